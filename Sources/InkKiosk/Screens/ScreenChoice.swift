import InkConfig
import InkCore
import InkLoop
import InkPDFHelper
import InkPipeline
import InkWorksheet

/// What the kiosk makes of its screen settings.
extension ScreenSettings {
    public func metrics(size: PixelSize, widthMM: Int) -> ScreenMetrics { ScreenMetrics(size: size, widthMM: widthMM, dpi: dpi) }

    /// The pipeline's options for this mode: the classroom toolbar has its own palette for
    /// `show-palette`, so the overlay palette stays off there.
    public func pipelineOptions(_ base: PipelineOptions) -> PipelineOptions {
        var o = base
        o.paletteOverlay = mode != .classroom
        o.undoDepth = undoDepth
        o.pageCacheBytes = pageCacheMB << 20
        return o
    }

    /// The screen for `mode`.
    /// `sheets`: poppler's thread for the classroom's worksheets (inline: on the caller's).
    public func makeScreen(metrics: ScreenMetrics, sheets: BackgroundChores = .inline()) -> KioskScreen {
        switch mode {
        case .draw:
            return DrawScreen(text: text, buttonMM: buttonMM, metrics: metrics)
        case .signature:
            var s = SignatureScreen.Settings()
            s.text = text; s.buttonMM = buttonMM; s.outbox = outbox; s.retention = outboxRetention; s.hosted = api != nil
            s.encryptTo = encryptTo
            s.signWith = signWith
            return SignatureScreen(settings: s, metrics: metrics)
        case .classroom:
            var s = ClassroomScreen.Settings()
            s.text = text; s.buttonMM = buttonMM; s.saveDirectory = saveDirectory; s.retention = savesRetention; s.palette = palette; s.widths = widths
            var launch = PDFHelper.Launch(executable: pdfHelperExecutable, memoryMB: worksheetHelperMB, cpuSeconds: worksheetHelperCPUSeconds)
            launch.requireSeccomp = pdfHelperRequiresSeccomp
            s.worksheets = WorksheetShelf(folders: worksheetFolders,
                                          limits: Worksheet.Limits(maxMB: worksheetMaxMB, maxPages: worksheetMaxPages),
                                          maxListed: worksheetsListed, cacheMB: worksheetCacheMB,
                                          copiesMB: worksheetCopiesMB,
                                          helper: PDFHelper(launch: launch, stuckSeconds: worksheetStuckSeconds,
                                                            log: { writeStandardError("inkkiosk: \($0)\n") }))
            return ClassroomScreen(settings: s, metrics: metrics, sheets: sheets)
        }
    }
}
