// SPDX-License-Identifier: Apache-2.0
import InkConfig
import InkCore
import InkLoop
import InkPDFHelper
import InkPipeline
import InkWorksheet

/// What the kiosk makes of its screen settings.
extension ScreenSettings {
    public func metrics(size: PixelSize, widthMM: Int) -> ScreenMetrics { ScreenMetrics(size: size, widthMM: widthMM, dpi: look.dpi) }

    /// The pipeline's options for this mode: the classroom toolbar has its own palette for
    /// `show-palette`, so the overlay palette stays off there.
    public func pipelineOptions(_ base: PipelineOptions) -> PipelineOptions {
        var o = base
        o.paletteOverlay = mode != .classroom
        o.undoDepth = notebook.undoDepth
        o.pageCacheBytes = notebook.pageCacheMB << 20
        return o
    }

    /// The screen for `mode`.
    /// `sheets`: poppler's thread for the classroom's worksheets (inline: on the caller's).
    public func makeScreen(metrics: ScreenMetrics, sheets: BackgroundChores = .inline()) -> KioskScreen {
        switch mode {
        case .draw:
            return DrawScreen(text: look.text, buttonMM: look.buttonMM, metrics: metrics)
        case .signature:
            var s = SignatureScreen.Settings()
            s.text = look.text; s.buttonMM = look.buttonMM; s.outbox = capture.outbox; s.retention = capture.outboxRetention
            s.hosted = api.address != nil
            s.encryptTo = capture.encryptTo
            s.digitalSigner = capture.signWith
            s.keepSignedPDF = capture.keepSignedPDF
            if api.address != nil {
                s.documentReader = makePDFHelper()
                s.documentLimits = Worksheet.Limits(maxMB: worksheets.maxMB, maxPages: worksheets.maxPages)
            }
            return SignatureScreen(settings: s, metrics: metrics, sheets: sheets)
        case .classroom:
            var s = ClassroomScreen.Settings()
            s.text = look.text; s.buttonMM = look.buttonMM; s.palette = look.palette; s.widths = look.widths
            s.saveDirectory = capture.saveDirectory; s.retention = capture.savesRetention
            // The school cloud's folders are the agent's: like a stick's, a worksheet from them is
            // copied to the tablet when opened, so the agent may replace or remove the file meanwhile.
            let cloudFolders = cloud.isEnabled ? [cloud.handOutDirectory, cloud.returnDirectory] : []
            s.worksheets = WorksheetShelf(folders: worksheets.folders + cloudFolders,
                                          limits: Worksheet.Limits(maxMB: worksheets.maxMB, maxPages: worksheets.maxPages),
                                          maxListed: worksheets.listed, cacheMB: worksheets.cacheMB,
                                          copiesMB: worksheets.copiesMB, helper: makePDFHelper())
            s.cloud = cloud.isEnabled ? cloud : nil
            return ClassroomScreen(settings: s, metrics: metrics, sheets: sheets)
        }
    }

    /// poppler in its caged process, started when first asked (worksheets, a host's documents).
    private func makePDFHelper() -> PDFHelper {
        var launch = PDFHelper.Launch(executable: pdfHelper.executable, memoryMB: pdfHelper.memoryMB, cpuSeconds: pdfHelper.cpuSeconds)
        launch.requireSeccomp = pdfHelper.requiresSeccomp
        launch.fileMB = pdfHelper.fileMB
        launch.user = HelperUser(uid: pdfHelper.uid, gid: pdfHelper.gid)
        launch.withoutLandlock = WithoutLandlock(rawValue: pdfHelper.withoutLandlock.rawValue) ?? .refuse
        return PDFHelper(launch: launch, stuckSeconds: pdfHelper.stuckSeconds)
    }
}
