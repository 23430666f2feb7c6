/// Frame deadlines at a fixed rate from a start time. Every event up to a deadline is drawn
/// in that frame, whatever the digitiser's rate: none is dropped, several are coalesced.
public struct FrameClock: Sendable {
    public let start: Double
    public let interval: Double

    public init(start: Double, fps: Double) {
        self.start = start
        interval = 1 / fps
    }

    /// The deadline of the first frame that shows an event at `time`.
    public func deadline(after time: Double) -> Double {
        let k = ((time - start) / interval).rounded(.up)
        return start + max(k, 0) * interval
    }
}
