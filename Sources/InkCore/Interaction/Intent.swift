/// What the interaction layer decided an event means, for the document and the screen.
public enum Intent: Sendable, Equatable {
    case beginStroke(StrokeSource, Brush, Sample)
    case appendSample(StrokeSource, Sample)
    /// A later real value for a sample whose estimates expect an update.
    case updateSample(StrokeSource, index: Int, Sample)
    case endStroke(StrokeSource)
    case cancelStroke(StrokeSource)
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
