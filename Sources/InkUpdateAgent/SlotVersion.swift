// SPDX-License-Identifier: Apache-2.0
/// A slot's version as the image and its bundles carry it ("1.0.0", "1.2.0-rc.1", "1.0.0+v2"),
/// ordered as SemVer orders them: numbers part by part, a pre-release ("-…" or Debian's "~…")
/// before its release, build metadata ("+…") not ordered (1.0.0+v2 is neither older nor newer
/// than 1.0.0: installing it is not a downgrade). Parts that are not numbers compare as text.
public struct SlotVersion: Comparable, CustomStringConvertible, Sendable {
    public let text: String
    let release: [Identifier]
    let prerelease: [Identifier]

    enum Identifier: Comparable {
        case number(UInt64)
        case word(String)

        static func < (a: Identifier, b: Identifier) -> Bool {
            switch (a, b) {
            case (.number(let x), .number(let y)): return x < y
            case (.number, .word): return true  // SemVer: numeric identifiers first
            case (.word, .number): return false
            case (.word(let x), .word(let y)): return x < y
            }
        }
    }

    public init(_ text: String) {
        self.text = text
        let withoutBuild = text.split(separator: "+", maxSplits: 1, omittingEmptySubsequences: false)[0]
        let split = withoutBuild.firstIndex { $0 == "-" || $0 == "~" }
        let releasePart = split.map { withoutBuild[..<$0] } ?? withoutBuild
        let prePart = split.map { withoutBuild[withoutBuild.index(after: $0)...] } ?? ""
        release = Self.identifiers(releasePart)
        prerelease = prePart.isEmpty ? [] : Self.identifiers(prePart)
    }

    private static func identifiers(_ s: Substring) -> [Identifier] {
        s.split(separator: ".", omittingEmptySubsequences: false).map { part in
            if !part.isEmpty, part.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let n = UInt64(part) { return .number(n) }
            return .word(String(part))
        }
    }

    public static func < (a: SlotVersion, b: SlotVersion) -> Bool {
        // Release parts, a missing part counting as 0 (1.0 == 1.0.0).
        for i in 0..<max(a.release.count, b.release.count) {
            let x = i < a.release.count ? a.release[i] : .number(0)
            let y = i < b.release.count ? b.release[i] : .number(0)
            if x != y { return x < y }
        }
        // A pre-release comes before its release.
        switch (a.prerelease.isEmpty, b.prerelease.isEmpty) {
        case (true, true): return false
        case (false, true): return true
        case (true, false): return false
        case (false, false): return a.prerelease.lexicographicallyPrecedes(b.prerelease)
        }
    }

    /// Same precedence (build metadata aside), not necessarily the same text.
    public static func == (a: SlotVersion, b: SlotVersion) -> Bool { !(a < b) && !(b < a) }

    public var description: String { text }
}

/// The one rule for what may be installed over what runs, for the fleet's agent and for RAUC's
/// pre-install handler (a stick's bundle, one installed by hand): no downgrade unless the config
/// allows it. The same version (by precedence) is no downgrade.
public enum DowngradeRule {
    /// Why `offered` may not be installed over `running`, or nil when it may.
    public static func refusal(offered: String, running: String, allowDowngrade: Bool) -> String? {
        guard !allowDowngrade, SlotVersion(offered) < SlotVersion(running) else { return nil }
        return "refused: \(offered) is older than the running \(running) (a downgrade; [update] allow_downgrade = true allows it)"
    }
}
