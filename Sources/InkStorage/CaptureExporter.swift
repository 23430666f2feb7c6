// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import InkCore

/// The pictures among a capture's files, in the order `SignatureCapture.write` makes them.
public enum CapturePicture: String, Sendable, CaseIterable {
    case png, svg
}

/// Draws a capture's pictures for `SignatureCapture.write`. The drawing is the caller's (the
/// kiosk's draws with the screen's own code): storage keeps files safe and does not render.
public protocol CaptureExporter: Sendable {
    /// The part of the screen the pictures show: the ink grown by `margin` pixels, kept on the
    /// screen, in whole pixels; nil when there is no ink (an empty signature is refused).
    func crop(_ strokes: [Stroke], screen: PixelSize, margin: Double) -> Rect?
    /// `strokes` on a transparent background, `crop` of the screen, encoded as `picture`.
    func encode(_ picture: CapturePicture, _ strokes: [Stroke], screen: PixelSize, crop: Rect) throws -> Data
}
