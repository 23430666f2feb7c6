// SPDX-License-Identifier: Apache-2.0
import InkCore
import InkRender

/// A display that can show a small image on a hardware cursor plane, moved without redrawing
/// anything. The hover preview uses it where the driver has one; elsewhere it is drawn in the
/// overlay like everything else.
public protocol CursorPlane: AnyObject {
    /// Shows `image` (ARGB, at most `cursorSize` square) with its hotspot at `location`.
    /// False when the hardware has no cursor plane: the caller draws the preview itself.
    func showCursor(_ image: ImageSurface, hotspot: (x: Int, y: Int), at location: Point) -> Bool
    func moveCursor(to location: Point, hotspot: (x: Int, y: Int))
    func hideCursor()
    var cursorSize: Int { get }
    var hasCursorPlane: Bool { get }
}
