// SPDX-License-Identifier: Apache-2.0
/// Whether libinput averages a tablet tool's positions (its "smoothing"), and why.
///
/// libinput 1.22 (evdev-tablet.c) smooths every tablet unless an `AttrTabletSmoothing` quirk
/// matching the device says otherwise; without a quirk, Wacom AES pens are not smoothed (it asks
/// libwacom, which this reader does not). The kiosk wants the pen's own positions, so its
/// `deploy/libinput/local-overrides.quirks` turns smoothing off for every tablet.
public struct TabletSmoothing: Sendable, Equatable, CustomStringConvertible {
    public enum Setting: String, Sendable {
        case on, off
        /// A section this reader cannot evaluate would set the other value if it matched.
        case unknown
    }

    public enum Reason: Sendable, Equatable {
        /// The last `AttrTabletSmoothing` line of a section matching the device.
        case quirk(enabled: Bool, at: QuirkLocation)
        /// No quirk decides.
        case libinputDefault
        /// A file has an error, so libinput loaded no quirks at all (the first error).
        case quirksRejected(QuirkProblem)
    }

    /// A section that would have decided, after the one that did, but has a Match key this
    /// reader does not know, so it was not counted.
    public struct Uncounted: Sendable, Equatable {
        public var section: String
        public var location: QuirkLocation
        public var unknownKeys: [String]
        public var enabled: Bool
    }

    public var setting: Setting
    public var reason: Reason
    public var uncounted: [Uncounted] = []

    public var description: String {
        var why: String
        switch reason {
        case .quirk(let enabled, let at):
            why = "AttrTabletSmoothing=\(enabled ? 1 : 0), \(at)"
        case .libinputDefault:
            why = "libinput's default, but off for Wacom AES pens, which only libwacom can tell; "
                + "deploy/libinput/local-overrides.quirks turns it off"
        case .quirksRejected(let problem):
            why = "libinput's default: it loads no quirks when a file has an error, here \(problem)"
        }
        for u in uncounted {
            why += "; not counted: [\(u.section)] at \(u.location), which would set AttrTabletSmoothing=\(u.enabled ? 1 : 0)"
                + " but has \(u.unknownKeys.joined(separator: ", ")), unknown to this reader"
        }
        return "\(setting.rawValue) (\(why))"
    }
}

extension LibinputQuirks {
    /// What libinput decides for a tablet: the last matching section with `AttrTabletSmoothing`.
    public func tabletSmoothing(for device: DeviceIdentity) -> TabletSmoothing {
        if let problem = problems.first {
            return TabletSmoothing(setting: .on, reason: .quirksRejected(problem))
        }
        var reason = TabletSmoothing.Reason.libinputDefault
        var enabled = true
        var uncounted: [TabletSmoothing.Uncounted] = []
        for section in sections {
            guard let line = section.property("AttrTabletSmoothing") else { continue }
            let sets = line.value == "1"
            switch section.fit(device) {
            case .matches:
                reason = .quirk(enabled: sets, at: line.location)
                enabled = sets
                uncounted.removeAll()   // a later section overrides those, counted or not
            case .undecided(let keys):
                uncounted.append(.init(section: section.name, location: section.location, unknownKeys: keys, enabled: sets))
            case .noMatch:
                break
            }
        }
        let doubtful = uncounted.contains { $0.enabled != enabled }
        return TabletSmoothing(setting: doubtful ? .unknown : (enabled ? .on : .off), reason: reason, uncounted: uncounted)
    }
}
