// SPDX-License-Identifier: Apache-2.0
/// What the interaction layer decided an event means, for the document and the screen.
public enum Intent: Sendable, Equatable {
    case beginStroke(StrokeSource, Brush, Sample)
    case appendSample(StrokeSource, Sample)
    /// A later real value for a sample whose estimates expect an update.
    case updateSample(StrokeSource, index: Int, Sample)
    case endStroke(StrokeSource)
    case cancelStroke(StrokeSource)
    /// A pen or finger on an on-screen control (a button, the toolbar): not ink.
    case press(Press)
}

/// A pen tip or finger pressing an on-screen control: it began, moved, lifted, or went away.
public struct Press: Sendable, Equatable {
    public enum Phase: Sendable, Equatable { case began, moved, ended, cancelled }
    public var phase: Phase
    public var source: StrokeSource
    public var location: Point
    public init(_ phase: Phase, _ source: StrokeSource, at location: Point) {
        self.phase = phase; self.source = source; self.location = location
    }
}

/// The pen hovering above the surface: where it would touch down and how visible the preview is.
public struct HoverState: Sendable, Equatable {
    public var location: Point
    public var alpha: Double
    public var brush: Brush
    public var sample: Sample
    public var nibAngle: Double

    public init(location: Point, alpha: Double, brush: Brush, sample: Sample, nibAngle: Double) {
        self.location = location; self.alpha = alpha; self.brush = brush; self.sample = sample; self.nibAngle = nibAngle
    }
}
