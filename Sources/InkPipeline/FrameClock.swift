// SPDX-License-Identifier: Apache-2.0
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
        var k = max(((time - start) / interval).rounded(.up), 0)
        // start + k × interval can round to just below `time`; the frame must not come before it.
        while start + k * interval < time { k += 1 }
        return start + k * interval
    }
}
