// SPDX-License-Identifier: Apache-2.0
/// `12 0 R`: an object by its number and generation.
public struct PDFReference: Hashable, Sendable, Comparable, CustomStringConvertible {
    public var number: Int
    public var generation: Int
    public init(_ number: Int, _ generation: Int = 0) { self.number = number; self.generation = generation }
    public var description: String { "\(number) \(generation) R" }
    public static func < (a: PDFReference, b: PDFReference) -> Bool {
        (a.number, a.generation) < (b.number, b.generation)
    }
}

/// A name (`/Type`), as the bytes it stands for (`#20` already made a space): names are byte
/// strings, and a name that is not UTF-8 must be written back exactly as it was.
public struct PDFName: Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    public var bytes: [UInt8]
    public init(bytes: [UInt8]) { self.bytes = bytes }
    public init(_ text: String) { bytes = Array(text.utf8) }
    public init(stringLiteral text: String) { self.init(text) }
    public var description: String { "/" + String(decoding: bytes, as: UTF8.self) }
}

/// A dictionary, its entries in the file's order (a rewritten object keeps its order). The
/// reader refuses a file that gives a key twice, so each key has one value.
public struct PDFDictionary: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        public var key: PDFName
        public var value: PDFObject
    }
    public private(set) var entries: [Entry] = []

    public init() {}
    public init(_ pairs: [(PDFName, PDFObject)]) {
        for (key, value) in pairs { self[key] = value }
    }

    public var count: Int { entries.count }
    public var keys: [PDFName] { entries.map(\.key) }

    /// The value, `nil` when absent; setting `nil` (or `.null`, which the format treats as absent) removes it.
    public subscript(key: PDFName) -> PDFObject? {
        get { entries.first { $0.key == key }?.value }
        set {
            let index = entries.firstIndex { $0.key == key }
            switch (index, newValue) {
            case (let i?, nil), (let i?, .null?): entries.remove(at: i)
            case (let i?, let value?): entries[i].value = value
            case (nil, nil), (nil, .null?): break
            case (nil, let value?): entries.append(Entry(key: key, value: value))
            }
        }
    }

    /// Used by the parser, which has refused a key given twice already: a null value is no
    /// entry (the format says the two are the same).
    mutating func appendUnlessNull(_ key: PDFName, _ value: PDFObject) {
        guard value != .null else { return }
        entries.append(Entry(key: key, value: value))
    }
}

/// A stream: its dictionary and its bytes as the file holds them (still encoded).
public struct PDFStream: Sendable, Equatable {
    public var dictionary: PDFDictionary
    public var data: ArraySlice<UInt8>
    public init(dictionary: PDFDictionary, data: ArraySlice<UInt8>) {
        self.dictionary = dictionary; self.data = data
    }
}

/// One PDF object. Strings are bytes (a text string's encoding is `PDFText`'s business).
public indirect enum PDFObject: Sendable, Equatable {
    case null
    case bool(Bool)
    case integer(Int64)
    case real(Double)
    case string([UInt8])
    case name(PDFName)
    case array([PDFObject])
    case dictionary(PDFDictionary)
    case reference(PDFReference)
    case stream(PDFStream)

    public var integerValue: Int64? { if case .integer(let v) = self { v } else { nil } }
    /// An integer or a real, as a real.
    public var numberValue: Double? {
        switch self {
        case .integer(let v): Double(v)
        case .real(let v): v
        default: nil
        }
    }
    public var boolValue: Bool? { if case .bool(let v) = self { v } else { nil } }
    public var nameValue: PDFName? { if case .name(let v) = self { v } else { nil } }
    public var stringValue: [UInt8]? { if case .string(let v) = self { v } else { nil } }
    public var arrayValue: [PDFObject]? { if case .array(let v) = self { v } else { nil } }
    public var referenceValue: PDFReference? { if case .reference(let v) = self { v } else { nil } }
    public var streamValue: PDFStream? { if case .stream(let v) = self { v } else { nil } }
    /// A dictionary, or a stream's dictionary.
    public var dictionaryValue: PDFDictionary? {
        switch self {
        case .dictionary(let d): d
        case .stream(let s): s.dictionary
        default: nil
        }
    }
    public var isNull: Bool { self == .null }

    /// What kind of object this is, for error messages.
    var kindName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .integer: "an integer"
        case .real: "a real number"
        case .string: "a string"
        case .name(let n): "the name \(n)"
        case .array: "an array"
        case .dictionary: "a dictionary"
        case .reference(let r): "a reference (\(r))"
        case .stream: "a stream"
        }
    }

    /// An object number or generation read from the file, as an `Int` within the format's limits.
    static func objectNumber(_ value: Int64) -> Int? {
        value >= 0 && value <= Int64(PDFLimits.maxObjectNumber) ? Int(value) : nil
    }
    static func generationNumber(_ value: Int64) -> Int? {
        value >= 0 && value <= Int64(PDFLimits.maxGeneration) ? Int(value) : nil
    }
}

/// A rectangle in PDF points, normalised: x0 ≤ x1, y0 ≤ y1 (a file may give its corners in
/// any order).
public struct PDFRect: Sendable, Equatable, CustomStringConvertible {
    public var x0: Double, y0: Double, x1: Double, y1: Double
    public init(_ a: Double, _ b: Double, _ c: Double, _ d: Double) {
        x0 = min(a, c); y0 = min(b, d); x1 = max(a, c); y1 = max(b, d)
    }
    public var width: Double { x1 - x0 }
    public var height: Double { y1 - y0 }
    public var isFinite: Bool { x0.isFinite && y0.isFinite && x1.isFinite && y1.isFinite }
    public var description: String { "[\(x0) \(y0) \(x1) \(y1)]" }
    public var object: PDFObject { .array([x0, y0, x1, y1].map(PDFObject.number)) }
    public static let zero = PDFRect(0, 0, 0, 0)
}

extension PDFObject {
    /// A number as the writer puts it: an integer when it is one.
    static func number(_ value: Double) -> PDFObject {
        if value == value.rounded(), abs(value) < 1e15 { return .integer(Int64(value)) }
        return .real(value)
    }
}
