/// Per-frame latency: from the oldest event the frame shows (its kernel time) to the flip
/// request, and from the flip request to the flip's completion (vblank).
public struct LatencyLog: Sendable {
    public private(set) var inputToFlip: [Double] = []
    public private(set) var flipToScanout: [Double] = []
    public private(set) var renderSeconds: [Double] = []
    private var pendingRequest: Double?

    public init() {}

    mutating func frame(oldestEvent: Double?, flipRequested: Double, render: Double) {
        if let oldestEvent { inputToFlip.append(max(0, flipRequested - oldestEvent)) }
        renderSeconds.append(render)
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
        LatencyReport(frames: renderSeconds.count,
                      inputToFlipMs: Summary(inputToFlip.map { $0 * 1000 }),
                      flipToScanoutMs: Summary(flipToScanout.map { $0 * 1000 }),
                      renderMs: Summary(renderSeconds.map { $0 * 1000 }))
    }
}

public struct LatencyReport: Sendable, Codable {
    public var frames: Int
    public var inputToFlipMs: Summary
    public var flipToScanoutMs: Summary
    public var renderMs: Summary
}
