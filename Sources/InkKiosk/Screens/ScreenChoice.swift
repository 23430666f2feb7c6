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
            s.digitalSigner = signWith
            if api != nil {
                s.documentReader = pdfHelper()
                s.documentLimits = Worksheet.Limits(maxMB: worksheetMaxMB, maxPages: worksheetMaxPages)
            }
            return SignatureScreen(settings: s, metrics: metrics, sheets: sheets)
        case .classroom:
            var s = ClassroomScreen.Settings()
            s.text = text; s.buttonMM = buttonMM; s.saveDirectory = saveDirectory; s.retention = savesRetention; s.palette = palette; s.widths = widths
            s.worksheets = WorksheetShelf(folders: worksheetFolders,
                                          limits: Worksheet.Limits(maxMB: worksheetMaxMB, maxPages: worksheetMaxPages),
                                          maxListed: worksheetsListed, cacheMB: worksheetCacheMB,
                                          copiesMB: worksheetCopiesMB, helper: pdfHelper())
            return ClassroomScreen(settings: s, metrics: metrics, sheets: sheets)
        }
    }

    /// poppler in its caged process, started when first asked (worksheets, a host's documents).
    private func pdfHelper() -> PDFHelper {
        var launch = PDFHelper.Launch(executable: pdfHelperExecutable, memoryMB: worksheetHelperMB, cpuSeconds: worksheetHelperCPUSeconds)
        launch.requireSeccomp = pdfHelperRequiresSeccomp
        return PDFHelper(launch: launch, stuckSeconds: worksheetStuckSeconds)
    }
}
