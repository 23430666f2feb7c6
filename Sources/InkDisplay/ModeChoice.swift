// SPDX-License-Identifier: Apache-2.0
/// A mode a connector offers, as far as choosing one goes.
public struct ModeCandidate: Sendable, Equatable, CustomStringConvertible {
    public var width: Int, height: Int, refresh: Int
    public var preferred: Bool
    public init(width: Int, height: Int, refresh: Int, preferred: Bool) {
        self.width = width; self.height = height; self.refresh = refresh; self.preferred = preferred
    }
    public var description: String { "\(width)x\(height)@\(refresh)" }

    /// "1280x800" or "1280x800@60", as `--mode` takes it.
    func matches(_ name: String) -> Bool { name == "\(width)x\(height)" || name == description }
}

/// Which of a connector's modes to show: the one the configuration names while the screen
/// offers it, else the screen's preferred mode (what a new monitor says suits it), else the first.
public enum ModeChoice {
    public static func choose(from modes: [ModeCandidate], configured: String?) -> Int? {
        guard !modes.isEmpty else { return nil }
        if let configured, let i = modes.firstIndex(where: { $0.matches(configured) }) { return i }
        return modes.firstIndex(where: \.preferred) ?? 0
    }
}
