// SPDX-License-Identifier: Apache-2.0
import InkPipeline
/// Per-frame latency: from the oldest event the frame shows (its kernel time) to the flip
/// request, and from the flip request to the flip's completion (vblank). A kiosk runs for
/// weeks: only the most recent frames are kept, so memory stays bounded.
public struct LatencyLog: Sendable {
    public private(set) var inputToFlip = RecentValues()
    public private(set) var flipToScanout = RecentValues()
    public private(set) var renderSeconds = RecentValues()
    private var frames = 0
    private var pendingRequest: Double?

    public init() {}

    mutating func frame(oldestEvent: Double?, flipRequested: Double, render: Double) {
        if let oldestEvent { inputToFlip.append(max(0, flipRequested - oldestEvent)) }
        renderSeconds.append(render)
        frames += 1
        pendingRequest = flipRequested
    }

    mutating func flipCompleted(at time: Double, now: Double) {
        guard let request = pendingRequest else { return }
        // Drivers without vblank timestamps report 0: use the time we heard of it.
        let done = time > 0 ? time : now
        flipToScanout.append(max(0, done - request))
        pendingRequest = nil
    }

    public var report: LatencyReport {
        LatencyReport(frames: frames,
                      inputToFlipMs: Summary(inputToFlip.values.map { $0 * 1000 }),
                      flipToScanoutMs: Summary(flipToScanout.values.map { $0 * 1000 }),
                      renderMs: Summary(renderSeconds.values.map { $0 * 1000 }))
    }
}

public struct LatencyReport: Sendable, Codable {
    public var frames: Int
    public var inputToFlipMs: Summary
    public var flipToScanoutMs: Summary
    public var renderMs: Summary
    /// The kiosk's peak resident memory when it wrote the figures (ru_maxrss).
    public var peakRSSMiB: Double?
}

/// The last `capacity` values appended (a ring).
public struct RecentValues: Sendable {
    public let capacity: Int
    private var ring: [Double] = []
    private var next = 0

    public init(capacity: Int = 100_000) { self.capacity = capacity }

    public mutating func append(_ v: Double) {
        if ring.count < capacity { ring.append(v) } else { ring[next] = v }
        next = (next + 1) % capacity
    }

    public var values: [Double] { ring }
}
