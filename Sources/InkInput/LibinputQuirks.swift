// SPDX-License-Identifier: Apache-2.0
import Glibc

/// libinput's device quirks, read the way libinput 1.22 reads them (plus the Match keys later
/// versions added), to tell a technician what
/// libinput does with a device and which line of which file made it so.
///
/// A file is a list of `[Section]`s: `Match…=` lines that must all hold, then `Attr…=` and
/// `Model…=` lines that apply when they do. Files are read in order and a later section's
/// value wins over an earlier one's.
public struct LibinputQuirks: Sendable {
    /// Every section of every file read, in libinput's order.
    public private(set) var sections: [QuirkSection] = []
    /// Lines libinput refuses. One is enough for libinput to load no quirks at all.
    public private(set) var problems: [QuirkProblem] = []

    public init() {}

    /// Reads one file's text after the ones read so far. `file` is what locations name.
    public mutating func add(file: String, text: String) {
        var parser = QuirksFileParser(file: file)
        // Split on the scalar: as Characters, "\r\n" is one and would not split on "\n".
        for (index, line) in text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            parser.take(Substring(line), number: index + 1)
        }
        parser.finish()
        sections += parser.sections
        problems += parser.problems.sorted { $0.location.line < $1.location.line }   // an empty section is found late
    }

    mutating func addProblem(_ problem: QuirkProblem) { problems.append(problem) }
}

// MARK: - What a file holds

/// A line in a quirks file, as a technician opens it.
public struct QuirkLocation: Sendable, Equatable, CustomStringConvertible {
    public var file: String
    /// 1-based, as editors count (libinput 1.22's own messages count from 0); 0 when the
    /// problem is the file (or directory) as a whole.
    public var line: Int

    public init(file: String, line: Int) {
        self.file = file
        self.line = line
    }

    public var description: String { line > 0 ? "\(file):\(line)" : file }
}

/// A line libinput would refuse, and why.
public struct QuirkProblem: Sendable, Equatable, CustomStringConvertible {
    public var location: QuirkLocation
    public var message: String

    public var description: String { "\(location): \(message)" }
}

/// An `Attr…=` or `Model…=` line: what a section sets when it matches.
public struct QuirkProperty: Sendable, Equatable {
    public var key: String
    public var value: String
    public var location: QuirkLocation
}

/// One `[Section]`.
public struct QuirkSection: Sendable, Equatable {
    /// The name between the brackets.
    public var name: String
    /// The `[Section]` line.
    public var location: QuirkLocation
    public var matches: [QuirkMatch] = []
    public var properties: [QuirkProperty] = []

    /// How the section's Match lines fare against a device.
    enum Fit: Equatable {
        case matches
        case noMatch
        /// Every Match line this reader knows holds; these keys it does not know.
        case undecided(unknownKeys: [String])
    }

    func fit(_ device: DeviceIdentity) -> Fit {
        var unknown: [String] = []
        for match in matches {
            if case .unknown(let key) = match {
                unknown.append(key)
            } else if !match.holds(for: device) {
                return .noMatch
            }
        }
        return unknown.isEmpty ? .matches : .undecided(unknownKeys: unknown)
    }

    /// The last line setting `key` (libinput applies them in order, so the last one counts).
    func property(_ key: String) -> QuirkProperty? { properties.last { $0.key == key } }
}

/// One `Match…=` line. `MatchUniq`, `MatchUdevType=touchscreen` and lists in `MatchProduct`
/// are later libinput's: 1.22 (Debian 12) refuses them like any key it does not know.
public enum QuirkMatch: Sendable, Equatable {
    case name(glob: String)
    case uniq(glob: String)
    case bus(QuirkBus)
    case vendor(UInt16)
    case product(anyOf: [UInt16])
    case version(UInt16)
    case udevType(UdevInputType)
    case dmiModalias(glob: String)
    case deviceTree(glob: String)
    /// A key this reader does not know (a newer libinput's, or a typo): the section does not
    /// match. (libinput 1.22 itself refuses every quirk when a file has a key it does not know.)
    case unknown(key: String)

    /// The line's key, e.g. `MatchName`.
    public var key: String {
        switch self {
        case .name: "MatchName"
        case .uniq: "MatchUniq"
        case .bus: "MatchBus"
        case .vendor: "MatchVendor"
        case .product: "MatchProduct"
        case .version: "MatchVersion"
        case .udevType: "MatchUdevType"
        case .dmiModalias: "MatchDMIModalias"
        case .deviceTree: "MatchDeviceTree"
        case .unknown(let key): key
        }
    }

    /// Whether the device passes this line. Something the device does not have (no uniq, no
    /// DMI, a bus libinput has no name for) does not match, as in libinput.
    func holds(for device: DeviceIdentity) -> Bool {
        switch self {
        case .name(let glob): !device.name.isEmpty && Glob.matches(glob, device.name)
        case .uniq(let glob): device.uniq.map { !$0.isEmpty && Glob.matches(glob, $0) } ?? false
        case .bus(let bus): device.bus == bus.number
        case .vendor(let vendor): device.vendor == vendor
        case .product(let products): products.contains(device.product)
        case .version(let version): device.version == version
        case .udevType(let type): device.isUdevType(type)
        case .dmiModalias(let glob): device.dmiModalias.map { Glob.matches(glob, $0) } ?? false
        case .deviceTree(let glob): device.deviceTreeCompatible.map { Glob.matches(glob, $0) } ?? false
        case .unknown: false
        }
    }

    /// Parses the value of a `Match…` key, with libinput's rules for what is valid.
    init(key: String, value: String) throws(QuirkLineError) {
        switch key {
        case "MatchName": self = .name(glob: value)
        case "MatchUniq": self = .uniq(glob: value)
        case "MatchBus":
            guard let bus = QuirkBus(rawValue: value) else {
                throw QuirkLineError("\(key)=\(value): the bus is one of "
                                     + QuirkBus.allCases.map(\.rawValue).joined(separator: ", "))
            }
            self = .bus(bus)
        case "MatchVendor": self = .vendor(try Self.hexID(value, key: key))
        case "MatchProduct":
            let items = value.split(separator: ";")
            guard items.count <= 63 else { throw QuirkLineError("\(key): libinput takes at most 63 products") }
            var products: [UInt16] = []
            for item in items { products.append(try Self.hexID(String(item), key: key)) }
            self = .product(anyOf: products)
        case "MatchVersion": self = .version(try Self.hexID(value, key: key))
        case "MatchUdevType":
            guard let type = UdevInputType(rawValue: value) else {
                throw QuirkLineError("\(key)=\(value): the type is one of "
                                     + UdevInputType.allCases.map(\.rawValue).joined(separator: ", "))
            }
            self = .udevType(type)
        case "MatchDMIModalias":
            guard value.hasPrefix("dmi:") else { throw QuirkLineError("\(key)=\(value): the value starts with dmi:") }
            self = .dmiModalias(glob: value)
        case "MatchDeviceTree": self = .deviceTree(glob: value)
        default: self = .unknown(key: key)
        }
    }

    /// libinput takes ids as 0x and upper-case hex digits, up to 0xFFFF.
    private static func hexID(_ text: String, key: String) throws(QuirkLineError) -> UInt16 {
        let digits = text.dropFirst(2)
        guard text.hasPrefix("0x"), !digits.isEmpty,
              digits.unicodeScalars.allSatisfy({ ("0"..."9").contains($0) || ("A"..."F").contains($0) }),
              let id = UInt16(digits, radix: 16) else {
            throw QuirkLineError("\(key)=\(text): ids are written 0x and upper-case hex digits, at most 0xFFFF (0x056A)")
        }
        return id
    }
}

/// Why one line is refused.
struct QuirkLineError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

/// fnmatch(3) without flags, as libinput matches names, DMI modaliases and device trees.
enum Glob {
    static func matches(_ pattern: String, _ text: String) -> Bool { fnmatch(pattern, text, 0) == 0 }
}

// MARK: - Reading one file

/// libinput's reading of one file, line by line: a section is a `[Name]` line, its Match lines,
/// then its Attr/Model lines. Where libinput gives up on the file, this notes a problem and
/// reads on, so a technician sees every bad line at once.
struct QuirksFileParser {
    private enum Expecting { case section, firstMatch, matchOrProperty, propertyOrSection }

    let file: String
    private(set) var sections: [QuirkSection] = []
    private(set) var problems: [QuirkProblem] = []
    private var expecting = Expecting.section

    init(file: String) { self.file = file }

    mutating func take(_ rawLine: Substring, number: Int) {
        let line = Self.withoutComment(rawLine)
        guard let first = line.first, let last = line.last else { return }
        let at = QuirkLocation(file: file, line: number)
        // Values have no quotes, so stray blanks would become part of them: libinput refuses them.
        if last == " " || last == "\t" { return note(at, "trailing whitespace") }
        if last == "\r" { return note(at, "the line ends in CR (Windows line endings): libinput refuses it") }
        if first == " " || first == "\t" { return note(at, "leading whitespace") }
        if first == "[" { return openSection(line, at: at) }
        guard ("A"..."Z").contains(first) else { return note(at, "\(line): not a [Section], Match…, Attr… or Model… line") }
        guard !sections.isEmpty else { return note(at, "\(line): comes before any [Section]") }

        let isMatch = line.hasPrefix("Match")
        switch expecting {
        case .section, .firstMatch:
            if !isMatch { note(at, "\(line): a section starts with its Match… lines") }
            expecting = isMatch ? .matchOrProperty : .propertyOrSection
        case .matchOrProperty:
            if !isMatch { expecting = .propertyOrSection }
        case .propertyOrSection:
            if isMatch { note(at, "\(line): Match… lines go before the section's Attr… and Model… lines") }
        }
        do {
            try addKeyValue(line, at: at)
        } catch {
            note(at, error.message)
        }
    }

    /// Ends the file: libinput refuses a file without sections and a section left incomplete.
    mutating func finish() {
        if sections.isEmpty {
            note(QuirkLocation(file: file, line: 0), "no [Section] in the file")
        } else {
            checkLastSectionComplete()
        }
    }

    /// `#` starts a comment anywhere on a line; the blanks before it go too.
    private static func withoutComment(_ line: Substring) -> Substring {
        guard let hash = line.firstIndex(of: "#") else { return line }
        var kept = line[..<hash]
        while kept.last == " " || kept.last == "\t" { kept = kept.dropLast() }
        return kept
    }

    private mutating func openSection(_ line: Substring, at: QuirkLocation) {
        var name = line.dropFirst()
        if name.last == "]" {
            name = name.dropLast()
        } else {
            note(at, "\(line): the closing ] is missing")
        }
        checkLastSectionComplete()
        sections.append(QuirkSection(name: String(name), location: at))
        expecting = .firstMatch
    }

    private mutating func checkLastSectionComplete() {
        guard let section = sections.last, section.matches.isEmpty || section.properties.isEmpty else { return }
        note(section.location, "[\(section.name)] needs a Match… line and an Attr… or Model… line")
    }

    private mutating func addKeyValue(_ line: Substring, at: QuirkLocation) throws(QuirkLineError) {
        let parts = line.split(separator: "=")
        guard parts.count == 2 else { throw QuirkLineError("\(line): expected one Key=value") }
        let key = String(parts[0]), value = String(parts[1])
        guard value.first != "\"", value.first != "'" else { throw QuirkLineError("\(key): values are written without quotes") }
        guard !sections.isEmpty else { return }
        let current = sections.count - 1

        if key.hasPrefix("Match") {
            let match = try QuirkMatch(key: key, value: value)
            guard !sections[current].matches.contains(where: { $0.key == key }) else {
                throw QuirkLineError("\(key) appears twice in [\(sections[current].name)]")
            }
            sections[current].matches.append(match)
        } else if key.hasPrefix("Model") || key.hasPrefix("Attr") {
            // Model… lines and the attributes read here take 1 or 0; other attributes are not checked.
            if key.hasPrefix("Model") || Self.booleanAttributes.contains(key), value != "0", value != "1" {
                throw QuirkLineError("\(key)=\(value): the value is 1 or 0")
            }
            sections[current].properties.append(QuirkProperty(key: key, value: value, location: at))
        } else {
            throw QuirkLineError("\(key): keys start with Match, Attr or Model")
        }
    }

    private static let booleanAttributes: Set<String> = ["AttrTabletSmoothing", "AttrUseVelocityAveraging"]

    private mutating func note(_ location: QuirkLocation, _ message: String) {
        problems.append(QuirkProblem(location: location, message: message))
    }
}
