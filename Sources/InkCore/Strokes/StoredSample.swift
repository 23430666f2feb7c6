// SPDX-License-Identifier: Apache-2.0
/// A sample as a stroke keeps it: 24 bytes instead of a `Sample`'s 90 and its nib angle's 8.
/// A classroom day holds half a million of them. Single precision keeps a position within a
/// ten-thousandth of a pixel on any screen; the time is whole microseconds after the stroke's
/// first sample (libinput's own resolution); the pen's axes are 16-bit fixed point over their
/// ranges (a 65536th of the pressure, a ten-thousandth of a radian), finer than any tablet
/// reports, and binary fractions (0.5, π/4) are kept exactly.
public struct StoredSample: Sendable, Equatable {
    var x: Float
    var y: Float
    /// Microseconds after the stroke's first sample (a stroke of 71 minutes at most; later
    /// samples keep the last time).
    var micros: UInt32
    /// 0…1 in 65536ths.
    var pressure: UInt16
    /// 0…π/2 in 65536ths of it.
    var altitude: UInt16
    /// [0, 2π) as 0…65535 (wrapped).
    var azimuth: UInt16
    /// 0…1 in 65536ths; `noDistance`: the tool has no distance axis (a distance of 1 is kept as 65534).
    var distance: UInt16
    /// The calligraphy nib's direction here, after the azimuth lock: [0, 2π) as 0…65535 (wrapped).
    var nibAngle: UInt16
    /// Bit 0 coalesced, bits 1…5 `estimated`, bits 6…10 `estimatesExpectingUpdate`.
    var flags: UInt16

    private static let coalescedBit: UInt16 = 1
    private static let estimatedShift: UInt16 = 1
    private static let expectingShift: UInt16 = 6
    private static let propertyMask: UInt16 = 0x1f
    private static let noDistance: UInt16 = .max
    /// Steps of a range: a power of two, so binary fractions (0.5, π/4) stay exact. The last
    /// code, 65535, stands for the whole range (full pressure, a vertical pen).
    private static let steps = 65536.0

    /// `v` over `0...range` in 65536ths (clamped; NaN as 0).
    private static func fixed(_ v: Double, range: Double) -> UInt16 {
        let q = (v / range * steps).rounded()
        return q.isNaN ? 0 : UInt16(q.clamped(to: 0...steps - 1))
    }

    private static func real(_ q: UInt16, range: Double) -> Double { q == .max ? range : Double(q) / steps * range }

    /// An angle as 65536ths of a turn, wrapped into one turn.
    private static func turns(_ angle: Double) -> UInt16 {
        let q = (angle / (2 * .pi) * 65536).rounded()
        guard q.isFinite else { return 0 }
        let wrapped = q.truncatingRemainder(dividingBy: 65536)
        return UInt16(wrapped < 0 ? wrapped + 65536 : wrapped)
    }

    private static func angle(_ q: UInt16) -> Double { Double(q) / 65536 * (2 * .pi) }

    /// `sample` at `base` seconds (the stroke's first sample's time), rounded as it will be given back.
    init(_ s: Sample, base: Double, nibAngle: Double) {
        x = Float(s.location.x); y = Float(s.location.y)
        pressure = Self.fixed(s.pressure, range: 1)
        altitude = Self.fixed(s.altitude, range: .pi / 2)
        azimuth = Self.turns(s.azimuth)
        distance = s.distance.map { min(Self.fixed($0, range: 1), Self.noDistance - 1) } ?? Self.noDistance
        self.nibAngle = Self.turns(nibAngle)
        let offset = ((s.time - base) * 1_000_000).rounded()
        micros = offset.isNaN ? 0 : UInt32(offset.clamped(to: 0...Double(UInt32.max)))
        flags = (s.isCoalesced ? Self.coalescedBit : 0)
            | (UInt16(s.estimated.rawValue) & Self.propertyMask) << Self.estimatedShift
            | (UInt16(s.estimatesExpectingUpdate.rawValue) & Self.propertyMask) << Self.expectingShift
    }

    /// The nib angle as kept (wrapped into [0, 2π)).
    var nibRadians: Double {
        get { Self.angle(nibAngle) }
        set { nibAngle = Self.turns(newValue) }
    }

    var isCoalesced: Bool {
        get { flags & Self.coalescedBit != 0 }
        set { flags = newValue ? flags | Self.coalescedBit : flags & ~Self.coalescedBit }
    }

    var expectsUpdate: Bool { (flags >> Self.expectingShift) & Self.propertyMask != 0 }

    /// The sample given back; `updateIndex` comes from the stroke's side table.
    func sample(base: Double, updateIndex: Int?) -> Sample {
        Sample(location: Point(Double(x), Double(y)), pressure: Self.real(pressure, range: 1),
               altitude: Self.real(altitude, range: .pi / 2), azimuth: Self.angle(azimuth),
               distance: distance == Self.noDistance ? nil : Self.real(distance, range: 1),
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
        public subscript(i: Int) -> Double { stored[i].nibRadians }
    }

    /// Bytes the samples take (their buffer's capacity and the side table).
    public var bytes: Int {
        stored.capacity * MemoryLayout<StoredSample>.stride + pending.capacity * MemoryLayout<(Int, Int)>.stride
    }

    public static func == (a: StrokeSamples, b: StrokeSamples) -> Bool {
        a.elementsEqual(b)
    }
}
