// SPDX-License-Identifier: Apache-2.0
/// The hours a reboot into an update may happen, "HH:MM-HH:MM" in local time; a window whose end
/// is before its start runs over midnight ("22:00-05:00"). The start is in the window, the end is not.
public struct RebootWindow: Equatable, Sendable, CustomStringConvertible {
    /// Minutes after midnight.
    public let start: Int
    public let end: Int

    public struct Problem: Error, Equatable, CustomStringConvertible {
        public var description: String
    }

    public init(_ text: String) throws(Problem) {
        let halves = text.split(separator: "-", omittingEmptySubsequences: false)
        guard halves.count == 2, let start = Self.minutes(halves[0]), let end = Self.minutes(halves[1]) else {
            throw Problem(description: "\(text.debugDescription) is not a window like \"02:00-05:00\" (HH:MM-HH:MM, 24-hour local time)")
        }
        guard start != end else {
            throw Problem(description: "\(text.debugDescription) is an empty window: its start and end are the same")
        }
        self.start = start; self.end = end
    }

    private static func minutes(_ s: Substring) -> Int? {
        let parts = s.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 2, parts[1].count == 2,
              parts.allSatisfy({ $0.allSatisfy(\.isASCIIDigit) }),
              let h = Int(parts[0]), let m = Int(parts[1]), h < 24, m < 60 else { return nil }
        return h * 60 + m
    }

    /// Whether `minute` (after midnight) is in the window.
    public func contains(minute: Int) -> Bool {
        start < end ? (start..<end).contains(minute) : (minute >= start || minute < end)
    }

    /// Seconds from `secondOfDay` (local) until the window opens; 0 inside it.
    public func secondsUntilOpen(secondOfDay: Int) -> Int {
        if contains(minute: secondOfDay / 60) { return 0 }
        let wait = start * 60 - secondOfDay
        return wait > 0 ? wait : wait + 86_400
    }

    public var description: String { "\(Self.show(start))-\(Self.show(end))" }

    private static func show(_ m: Int) -> String {
        let h = m / 60, mm = m % 60
        return (h < 10 ? "0" : "") + "\(h):" + (mm < 10 ? "0" : "") + "\(mm)"
    }
}
