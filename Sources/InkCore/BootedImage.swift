// SPDX-License-Identifier: Apache-2.0
/// The kernel command line (`/proc/cmdline`), split as the kernel splits it: words between
/// spaces, where double quotes keep spaces inside a word and are dropped. A later `key=value`
/// overrides an earlier one, as the kernel and init scripts read them.
public struct KernelCommandLine: Sendable, Equatable {
    public let words: [String]

    public init(_ text: String) {
        var words: [String] = []
        var word = ""
        var quoted = false, started = false
        for c in text {
            if c == "\"" {
                quoted.toggle(); started = true
            } else if !quoted && (c == " " || c == "\t" || c == "\n") {
                if started { words.append(word) }
                word = ""; started = false
            } else {
                word.append(c); started = true
            }
        }
        if started { words.append(word) }
        self.words = words
    }

    /// The value of the last `key=value`; nil when the key is not there.
    public func value(_ key: String) -> String? {
        let prefix = key + "="
        return words.last { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
    }

    /// Whether `word` stands alone (a flag such as `quiet`).
    public func has(_ word: String) -> Bool { words.contains(word) }
}

/// The disk image this machine booted, as its kernel command line says: GRUB adds
/// `rauc.slot=A|B` for the slot it chose and the slot's own `slot.cfg` adds `ik.version=…`
/// (scripts/image). Nothing of it on a machine that did not boot from the image (a Debian package,
/// the plain appliance): then there is no `BootedImage`, and nothing is guessed.
public struct BootedImage: Sendable, Equatable, Codable, CustomStringConvertible {
    /// RAUC's boot name of the slot (A or B in the image).
    public var slot: String
    /// The slot's version; nil when its command line does not say (an image made before
    /// ik.version, or another RAUC system).
    public var version: String?

    public init(slot: String, version: String?) {
        self.slot = slot; self.version = version
    }

    /// nil when the command line names no slot; an error when it names one that cannot be a
    /// slot's or version's name (characters GRUB and scripts/image never write).
    public init?(_ commandLine: KernelCommandLine) throws(BootedImageError) {
        guard let slot = commandLine.value("rauc.slot") else { return nil }
        guard Self.isName(slot) else { throw BootedImageError(key: "rauc.slot", value: slot) }
        let version = commandLine.value("ik.version")
        if let version, !Self.isName(version) { throw BootedImageError(key: "ik.version", value: version) }
        self.init(slot: slot, version: version)
    }

    /// "image 1.0.0+v2, slot B"
    public var description: String { "image \(version ?? "(version not on the kernel command line)"), slot \(slot)" }

    /// What scripts/image/build.sh allows in a version, and RAUC in a boot name: 1 to 64 of
    /// letters, digits and . + ~ _ -.
    static func isName(_ s: String) -> Bool {
        (1...64).contains(s.utf8.count) && s.utf8.allSatisfy { b in
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || "._+~-".utf8.contains(b)
        }
    }
}

public struct BootedImageError: Error, Equatable, CustomStringConvertible {
    public var key: String
    public var value: String
    public var description: String {
        "the kernel command line's \(key)=\(value.debugDescription) is not a slot's name or version "
            + "(1 to 64 letters, digits and . + ~ _ -): the booted image is not reported"
    }
}
