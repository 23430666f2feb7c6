/// A sample as a stroke keeps it: 36 bytes instead of a `Sample`'s 90 and its nib angle's 8.
/// A classroom day holds half a million of them. Single precision keeps a position within a
/// ten-thousandth of a pixel on any screen, and the time is whole microseconds after the
/// stroke's first sample (libinput's own resolution).
public struct StoredSample: Sendable, Equatable {
    var x: Float
    var y: Float
    var pressure: Float
    var altitude: Float
    var azimuth: Float
    /// NaN: the tool has no distance axis.
    var distance: Float
    /// The calligraphy nib's direction here, after the azimuth lock.
    var nibAngle: Float
    /// Microseconds after the stroke's first sample (a stroke of 71 minutes at most; later
    /// samples keep the last time).
    var micros: UInt32
    /// Bit 0 coalesced, bits 1…5 `estimated`, bits 6…10 `estimatesExpectingUpdate`.
    var flags: UInt16

    private static let coalescedBit: UInt16 = 1
    private static let estimatedShift: UInt16 = 1
    private static let expectingShift: UInt16 = 6
    private static let propertyMask: UInt16 = 0x1f

    /// `sample` at `base` seconds (the stroke's first sample's time), rounded as it will be given back.
    init(_ s: Sample, base: Double, nibAngle: Double) {
        x = Float(s.location.x); y = Float(s.location.y)
        pressure = Float(s.pressure); altitude = Float(s.altitude); azimuth = Float(s.azimuth)
        distance = s.distance.map { Float($0) } ?? .nan
        self.nibAngle = Float(nibAngle)
        let offset = ((s.time - base) * 1_000_000).rounded()
        micros = offset.isNaN ? 0 : UInt32(offset.clamped(to: 0...Double(UInt32.max)))
        flags = (s.isCoalesced ? Self.coalescedBit : 0)
            | (UInt16(s.estimated.rawValue) & Self.propertyMask) << Self.estimatedShift
            | (UInt16(s.estimatesExpectingUpdate.rawValue) & Self.propertyMask) << Self.expectingShift
    }

    var isCoalesced: Bool {
        get { flags & Self.coalescedBit != 0 }
        set { flags = newValue ? flags | Self.coalescedBit : flags & ~Self.coalescedBit }
    }

    var expectsUpdate: Bool { (flags >> Self.expectingShift) & Self.propertyMask != 0 }

    /// The sample given back; `updateIndex` comes from the stroke's side table.
    func sample(base: Double, updateIndex: Int?) -> Sample {
        Sample(location: Point(Double(x), Double(y)), pressure: Double(pressure), altitude: Double(altitude),
               azimuth: Double(azimuth), distance: distance.isNaN ? nil : Double(distance),
               time: base + Double(micros) / 1_000_000, isCoalesced: isCoalesced,
               estimated: EstimatedProperties(rawValue: UInt8((flags >> Self.estimatedShift) & Self.propertyMask)),
               estimatesExpectingUpdate: EstimatedProperties(rawValue: UInt8((flags >> Self.expectingShift) & Self.propertyMask)),
               updateIndex: updateIndex)
    }
}

/// A stroke's samples, read as `Sample`s from their compact form: whatever draws, exports,
/// journals or undoes a stroke sees the values the stroke keeps.
public struct StrokeSamples: RandomAccessCollection, Sendable, Equatable {
    var stored: [StoredSample] = []
    /// The first sample's time: the others' are microseconds after it.
    var base = 0.0
    /// The update index of each sample still waiting for its update (by position; rare).
    var pending: [(position: Int, updateIndex: Int)] = []

    public var startIndex: Int { 0 }
    public var endIndex: Int { stored.count }

    public subscript(i: Int) -> Sample {
        let s = stored[i]
        return s.sample(base: base, updateIndex: s.expectsUpdate ? updateIndex(at: i) : nil)
    }

    /// Just the position of sample `i` (the erasers and bounds ask often).
    public func location(at i: Int) -> Point { Point(Double(stored[i].x), Double(stored[i].y)) }

    private func updateIndex(at i: Int) -> Int? {
        pending.last(where: { $0.position == i })?.updateIndex
    }

    /// The calligraphy nib's direction at each sample.
    public var nibAngles: NibAngles { NibAngles(stored: stored) }

    public struct NibAngles: RandomAccessCollection, Sendable {
        let stored: [StoredSample]
        public var startIndex: Int { 0 }
        public var endIndex: Int { stored.count }
        public subscript(i: Int) -> Double { Double(stored[i].nibAngle) }
    }

    /// Bytes the samples take (their buffer's capacity and the side table).
    public var bytes: Int {
        stored.capacity * MemoryLayout<StoredSample>.stride + pending.capacity * MemoryLayout<(Int, Int)>.stride
    }

    public static func == (a: StrokeSamples, b: StrokeSamples) -> Bool {
        a.elementsEqual(b)
    }
}
