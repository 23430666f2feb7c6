// SPDX-License-Identifier: Apache-2.0
import InkCore

/// What the overlay shows this frame, on top of the ink: nothing here is ever committed.
public struct OverlayScene: Sendable {
    /// Predicted samples ahead of each active stroke.
    public var predictions: [StrokeSource: [Sample]] = [:]
    /// Hover previews, one per pen in proximity with its tip up.
    public var hovers: [HoverState] = []
    /// The colour palette (the `show-palette` action).
    public var palette: [RGBA]? = nil
    /// Where to draw the debug altitude/azimuth diagram: the pen's latest sample.
    public var debugDiagrams: [Sample] = []

    public init() {}
}
