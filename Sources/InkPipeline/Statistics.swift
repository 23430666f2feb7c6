// SPDX-License-Identifier: Apache-2.0
/// Median, 99th percentile and maximum of a list of figures.
public struct Summary: Sendable, Codable, Equatable {
    public var median: Double
    public var p99: Double
    public var max: Double

    public init(_ values: [Double]) {
        let sorted = values.sorted()
        func at(_ q: Double) -> Double {
            guard !sorted.isEmpty else { return 0 }
            return sorted[Swift.min(sorted.count - 1, Int((q * Double(sorted.count - 1)).rounded()))]
        }
        median = at(0.5); p99 = at(0.99); max = sorted.last ?? 0
    }
}

/// What `inkkiosk replay --stats` prints.
public struct ReplayStats: Sendable, Codable {
    public var events: Int
    public var samples: Int
    public var strokes: Int
    public var frames: Int
    public var clampedValues: Int
    public var renderMs: Summary
    public var damagedPixels: Summary
    /// Per-frame render cost of each stroke's frames, stroke by stroke (for the benchmark).
    public var strokeFrameMs: [Double]?
    /// The process's peak resident memory, when the command that played it reports it.
    public var peakRSSMiB: Double?
}
