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
    public private(set) var samples: [Sample] = []
    /// The calligraphy nib's direction at each sample, after the azimuth lock.
    public private(set) var nibAngles: [Double] = []
    /// Where this frame's samples start; all but the last of them are coalesced.
    private var frameStart = 0
    /// The box around the sample positions, kept as samples arrive (erasing and repainting ask often).
    private var centreBounds = Rect.empty

    public init(id: StrokeID, brush: Brush, source: StrokeSource, samples: [Sample] = [], state: StrokeState = .active) {
        self.id = id; self.brush = brush; self.source = source
        for sample in samples { append(sample) }
        self.state = state
        frameStart = self.samples.count
    }

    public mutating func append(_ sample: Sample) {
        var s = sample
        s.isPredicted = false
        samples.append(s)
        centreBounds = centreBounds.including(s.location)
        nibAngles.append(brush.nibAngle(for: s, previous: nibAngles.last))
    }

    /// Replaces the pending estimates of the sample with `updateIndex`; false if none waits.
    @discardableResult
    public mutating func update(index: Int, with real: Sample) -> Bool {
        guard let i = samples.lastIndex(where: { $0.updateIndex == index && !$0.estimatesExpectingUpdate.isEmpty }) else {
            return false
        }
        samples[i].applyUpdate(from: real)
        centreBounds = Rect.bounding(samples.map(\.location))
        for j in i..<samples.count {
            nibAngles[j] = brush.nibAngle(for: samples[j], previous: j > 0 ? nibAngles[j - 1] : nil)
        }
        return true
    }

    /// Gives back the room arrays keep for growth (up to half of a finished stroke's memory:
    /// a notebook holds thousands of them for a whole day).
    public mutating func trim() {
        samples = samples.withUnsafeBufferPointer { Array($0) }
        nibAngles = nibAngles.withUnsafeBufferPointer { Array($0) }
    }

    /// Called once per frame: samples that arrived in this frame before its last one are coalesced.
    public mutating func finishFrame() {
        if samples.count - frameStart > 1 {
            for i in frameStart..<(samples.count - 1) { samples[i].isCoalesced = true }
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
