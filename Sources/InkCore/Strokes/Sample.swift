// SPDX-License-Identifier: Apache-2.0
/// Which of a sample's values are not measured: fallbacks for axes the tool lacks, or
/// guesses (prediction, a pressure the digitiser has not reported yet).
public struct EstimatedProperties: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public static let location = EstimatedProperties(rawValue: 1 << 0)
    public static let pressure = EstimatedProperties(rawValue: 1 << 1)
    public static let altitude = EstimatedProperties(rawValue: 1 << 2)
    public static let azimuth = EstimatedProperties(rawValue: 1 << 3)
    public static let distance = EstimatedProperties(rawValue: 1 << 4)
    public static let all: EstimatedProperties = [.location, .pressure, .altitude, .azimuth, .distance]
}

/// One pen or finger position with everything the brushes need.
public struct Sample: Sendable, Equatable {
    /// Screen pixels.
    public var location: Point
    /// 0…1, normalised as libinput gives it.
    public var pressure: Double
    public var altitude: Double
    public var azimuth: Double
    /// Hover distance 0…1, nil when the tool has no distance axis.
    public var distance: Double?
    /// Seconds, monotonic (the event's kernel timestamp where there is one).
    public var time: Double
    /// Arrived between two frames, before the frame's last sample.
    public var isCoalesced: Bool
    /// Extrapolated by the predictor: drawn in the overlay, never committed.
    public var isPredicted: Bool
    public var estimated: EstimatedProperties
    /// The subset of `estimated` that a later event is expected to replace.
    public var estimatesExpectingUpdate: EstimatedProperties
    /// Matches this sample to the update that replaces its estimates.
    public var updateIndex: Int?

    public init(location: Point, pressure: Double, altitude: Double = .pi / 2, azimuth: Double = 0,
                distance: Double? = nil, time: Double, isCoalesced: Bool = false, isPredicted: Bool = false,
                estimated: EstimatedProperties = [], estimatesExpectingUpdate: EstimatedProperties = [],
                updateIndex: Int? = nil) {
        self.location = location; self.pressure = pressure; self.altitude = altitude; self.azimuth = azimuth
        self.distance = distance; self.time = time; self.isCoalesced = isCoalesced; self.isPredicted = isPredicted
        self.estimated = estimated; self.estimatesExpectingUpdate = estimatesExpectingUpdate; self.updateIndex = updateIndex
    }

    /// Replaces the values still expected to be updated with those of `real`; the rest stays.
    public mutating func applyUpdate(from real: Sample) {
        let pending = estimatesExpectingUpdate
        if pending.contains(.pressure) { pressure = real.pressure }
        if pending.contains(.altitude) { altitude = real.altitude }
        if pending.contains(.azimuth) { azimuth = real.azimuth }
        if pending.contains(.distance) { distance = real.distance }
        if pending.contains(.location) { location = real.location }
        estimated.subtract(pending)
        estimatesExpectingUpdate = []
    }
}
