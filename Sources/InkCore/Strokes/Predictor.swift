// SPDX-License-Identifier: Apache-2.0
/// Extrapolates a stroke about one frame ahead from its recent velocity, so that the ink
/// seems to stay under the pen tip. Predicted samples are drawn in the overlay only and are
/// thrown away when the next frame's real samples arrive.
public struct Predictor: Sendable, Equatable {
    /// How far ahead to predict, in seconds (one frame at the display rate).
    public var horizon: Double
    /// The velocity is measured over the samples of this last stretch of time.
    public var window: Double = 0.025
    /// Never predict farther than this many pixels: a wrong guess must stay small.
    public var maxDistance: Double = 48
    /// Samples to produce across the horizon.
    public var steps: Int = 2

    public init(horizon: Double) { self.horizon = horizon }

    public func predict<Samples: RandomAccessCollection>(from samples: Samples) -> [Sample]
        where Samples.Element == Sample, Samples.Index == Int {
        guard horizon > 0, let last = samples.last, samples.count >= 2 else { return [] }
        var first = samples.count - 1
        while first > 0, last.time - samples[first - 1].time <= window { first -= 1 }
        if first == samples.count - 1 { first -= 1 }
        let start = samples[first]
        let dt = last.time - start.time
        guard dt > 0.0005 else { return [] }
        var velocity = (last.location - start.location) * (1 / dt)
        let reach = velocity.length * horizon
        if reach > maxDistance { velocity = velocity * (maxDistance / reach) }
        guard velocity.length * horizon >= 0.5 else { return [] }
        return (1...steps).map { i in
            let ahead = horizon * Double(i) / Double(steps)
            var s = last
            s.location = last.location + velocity * ahead
            s.time = last.time + ahead
            s.isPredicted = true
            s.isCoalesced = false
            s.estimated = .all
            s.estimatesExpectingUpdate = []
            s.updateIndex = nil
            return s
        }
    }
}
