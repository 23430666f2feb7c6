// SPDX-License-Identifier: Apache-2.0
/// Where a stroke came from: a pen on a tablet device, or a finger in a touch slot.
public enum StrokeSource: Sendable, Hashable {
    case pen(device: Int)
    case finger(device: Int, slot: Int)

    public var device: Int {
        switch self { case .pen(let d), .finger(let d, _): return d }
    }

    public var isPen: Bool { if case .pen = self { return true } else { return false } }
}

public enum StrokeState: Sendable, Equatable {
    case active, done, cancelled
}

public typealias StrokeID = Int

/// The samples of one pen-down-to-pen-up, with the brush it was drawn with.
public struct Stroke: Sendable, Equatable {
    public let id: StrokeID
    public var brush: Brush
    public var source: StrokeSource
    public var state: StrokeState = .active
    /// The samples as kept (`StoredSample`): each is rounded when it arrives, so the live
    /// screen, re-renders, exports, the journal and recovery all see the same values.
    public private(set) var samples = StrokeSamples()
    /// The calligraphy nib's direction at each sample, after the azimuth lock.
    public var nibAngles: StrokeSamples.NibAngles { samples.nibAngles }
    /// Where this frame's samples start; all but the last of them are coalesced.
    private var frameStart = 0
    /// The box around the sample positions, kept as samples arrive (erasing and repainting ask often).
    private var centreBounds = Rect.empty

    public init(id: StrokeID, brush: Brush, source: StrokeSource, samples: [Sample] = [], state: StrokeState = .active) {
        self.id = id; self.brush = brush; self.source = source
        self.samples.stored.reserveCapacity(samples.count)
        for sample in samples { append(sample) }
        self.state = state
        frameStart = self.samples.count
    }

    public mutating func append(_ sample: Sample) {
        if samples.isEmpty { samples.base = sample.time }
        let kept = keep(sample, previous: samples.stored.last?.nibRadians)
        samples.stored.append(kept)
        if kept.expectsUpdate, let index = sample.updateIndex {
            samples.pending.append((samples.stored.count - 1, index))
        }
        centreBounds = centreBounds.including(samples.location(at: samples.count - 1))
    }

    /// Replaces the pending estimates of the sample with `updateIndex`; false if none waits.
    @discardableResult
    public mutating func update(index: Int, with real: Sample) -> Bool {
        guard let p = samples.pending.lastIndex(where: { $0.updateIndex == index }) else { return false }
        let i = samples.pending[p].position
        samples.pending.remove(at: p)
        var s = samples[i]
        s.applyUpdate(from: real)
        s.updateIndex = nil
        for j in i..<samples.count {
            samples.stored[j] = keep(j == i ? s : samples[j], previous: j > 0 ? samples.stored[j - 1].nibRadians : nil)
        }
        centreBounds = Rect.bounding(samples.indices.map { samples.location(at: $0) })
        return true
    }

    /// `sample` as the stroke keeps it, its nib angle worked out from the sample as it will be
    /// given back, so that a stroke rebuilt from its journalled samples gets the same angles.
    private func keep(_ sample: Sample, previous: Double?) -> StoredSample {
        var kept = StoredSample(sample, base: samples.base, nibAngle: 0)
        kept.nibRadians = brush.nibAngle(for: kept.sample(base: samples.base, updateIndex: nil), previous: previous)
        return kept
    }

    /// Gives back the room the sample buffer keeps for growth (up to half of a finished
    /// stroke's memory: a notebook holds thousands of them for a whole day).
    public mutating func trim() {
        samples.stored = samples.stored.withUnsafeBufferPointer { Array($0) }
        if samples.pending.isEmpty { samples.pending = [] }
    }

    /// Called once per frame: samples that arrived in this frame before its last one are coalesced.
    public mutating func finishFrame() {
        if samples.count - frameStart > 1 {
            for i in frameStart..<(samples.count - 1) { samples.stored[i].isCoalesced = true }
        }
        frameStart = samples.count
    }

    /// The same ink: where a stroke came from and how it was framed do not matter.
    public static func == (a: Stroke, b: Stroke) -> Bool {
        a.id == b.id && a.brush == b.brush && a.state == b.state && a.samples == b.samples
    }

    /// The bounding box of the stroke's centre line, grown by the brush's widest reach.
    public var bounds: Rect { centreBounds.outset(by: brush.reach) }
}
