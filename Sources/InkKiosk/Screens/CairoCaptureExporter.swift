// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import InkCore
import InkRender
import InkStorage

/// A capture's PNG and SVG drawn by InkRender's `Exporter`, the screen's own drawing code, so
/// that the files show the ink as the signer saw it; the capture's writer knows only
/// `CaptureExporter`, so that storage does not link cairo.
public struct CairoCaptureExporter: CaptureExporter {
    public init() {}

    public func crop(_ strokes: [Stroke], screen: PixelSize, margin: Double) -> Rect? {
        Exporter(size: screen, background: .transparent).inkBounds(strokes, margin: margin)
    }

    public func encode(_ picture: CapturePicture, _ strokes: [Stroke], screen: PixelSize, crop: Rect) throws -> Data {
        let exporter = Exporter(size: screen, background: .transparent).cropped(to: crop)
        switch picture {
        case .png: return try exporter.pngData(strokes)
        case .svg: return try exporter.svgData(strokes)
        }
    }
}
