// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials

/// qpdf's reading of a document, from its JSON (`qpdf --json --json-stream-data=inline
/// --decode-level=none --json-key=pages --json-key=acroform --json-key=qpdf FILE`, qpdf 11):
/// its page list with each page's contents, the page objects' boxes, rotation and resources
/// inherited by going up /Parent (as pdf.js does, where poppler and our reader walk down the
/// tree: a tree whose /Parent links lie reads differently here), and its form's signature fields.
public enum QPDFReading {
    /// The arguments qpdf is run with (before the file's path).
    public static let arguments = ["--json", "--json-stream-data=inline", "--decode-level=none",
                                   "--json-key=pages", "--json-key=acroform", "--json-key=qpdf"]

    public struct Unreadable: Error, CustomStringConvertible {
        public let description: String
    }

    public static func reading(json bytes: [UInt8]) throws -> DocumentReading {
        let root: JSON
        // qpdf writes a name's bytes as they are, UTF-8 or not: made valid first (as `QPDFStrings.name` does ours).
        let text = jsonNumbers(String(decoding: bytes, as: UTF8.self))
        do { root = try JSONDecoder().decode(JSON.self, from: Data(text.utf8)) } catch {
            throw Unreadable(description: "qpdf's JSON does not decode: \(error)")
        }
        guard case .array(let parts)? = root["qpdf"], parts.count == 2, case .object(let table) = parts[1] else {
            throw Unreadable(description: "qpdf's JSON has no object table")
        }
        var objects: [String: ReadValue] = [:]
        for (key, entry) in table where key.hasPrefix("obj:") {
            objects[String(key.dropFirst(4))] = try object(entry)
        }
        func fetch(_ reference: String) -> ReadValue { objects[reference] ?? .null }

        var pages: [DocumentReading.Page] = []
        for page in root["pages"]?.arrayValue ?? [] {
            guard let reference = page["object"]?.stringValue else { throw Unreadable(description: "a page without its object") }
            let dictionary = fetch(reference).dictionaryValue ?? [:]
            // Inherited attributes: the page's own, else the nearest /Parent's.
            func inherited(_ key: String) -> ReadValue? {
                var node = dictionary
                var seen = Set<String>()
                while true {
                    if let value = node[key] { return value }
                    guard let parent = node["/Parent"]?.referenceValue, seen.insert(parent).inserted else { return nil }
                    node = fetch(parent).dictionaryValue ?? [:]
                }
            }
            func box(_ key: String) -> [Double]? {
                guard let value = inherited(key) else { return nil }
                let items = (value.referenceValue.map(fetch) ?? value).arrayValue?.map { ($0.referenceValue.map(fetch) ?? $0).numberValue }
                guard let numbers = items, numbers.count == 4, numbers.allSatisfy({ $0 != nil }) else { return nil }
                return DocumentReading.normalised(numbers.map { $0 ?? 0 })
            }
            let media = box("/MediaBox") ?? [0, 0, 612, 792]
            let crop = box("/CropBox").map { DocumentReading.cut($0, to: media) } ?? media
            let rotate = inherited("/Rotate").flatMap { ($0.referenceValue.map(fetch) ?? $0).numberValue } ?? 0
            var resolver = Resolver(fetch: fetch)
            let contents = (page["contents"]?.arrayValue ?? []).map { resolver.value(.reference($0.stringValue ?? ""), depth: 0, follow: true) }
            let resources = inherited("/Resources").map { resolver.value($0, depth: 0, follow: true) }
            pages.append(DocumentReading.Page(object: reference, contents: contents, resources: resources, mediaBox: media, cropBox: crop,
                                              rotation: ((Int(rotate) % 360) + 360) % 360))
        }

        var fields: [DocumentReading.Field] = []
        for field in root["acroform"]?["fields"]?.arrayValue ?? [] where field["fieldtype"]?.stringValue == "/Sig" {
            guard let name = field["fullname"]?.stringValue, let widget = field["annotation"]?["object"]?.stringValue else { continue }
            let page = field["pageposfrom1"]?.numberValue.flatMap { $0 >= 1 ? Int($0) : nil }
            let rectValue = fetch(widget).dictionaryValue?["/Rect"]
            let rect = (rectValue?.referenceValue.map(fetch) ?? rectValue)?.arrayValue?.compactMap { ($0.referenceValue.map(fetch) ?? $0).numberValue } ?? []
            fields.append(DocumentReading.Field(name: name, widget: widget, page: page, rect: DocumentReading.normalised(rect)))
        }
        return DocumentReading(pages: pages, signatureFields: fields)
    }

    /// One entry of qpdf's object table: `{"value": …}` or `{"stream": {"dict": …, "data": base64}}`.
    private static func object(_ entry: JSON) throws -> ReadValue {
        if let value = entry["value"] { return ReadValue(qpdf: value) }
        guard let stream = entry["stream"] else { throw Unreadable(description: "an object that is neither a value nor a stream") }
        let data = stream["data"]?.stringValue.flatMap { Data(base64Encoded: $0) }.map { [UInt8]($0) } ?? []
        var dictionary = ReadValue(qpdf: stream["dict"] ?? .object([:])).dictionaryValue ?? [:]
        dictionary["/Length"] = nil   // what the data's length says
        return .stream(dictionary, data)
    }

    /// qpdf's objects as `ReadValue`s, followed as `DocumentReading.Resolver` follows ours.
    struct Resolver {
        let fetch: (String) -> ReadValue
        var expanded = Set<String>()

        mutating func value(_ v: ReadValue, depth: Int, follow: Bool) -> ReadValue {
            switch v {
            case .reference(let r):
                guard follow, depth < 48, expanded.insert(r).inserted else { return v }
                return value(fetch(r), depth: depth + 1, follow: true)
            case .array(let items): return .array(items.map { value($0, depth: depth + 1, follow: follow) })
            case .dictionary(let d): return .dictionary(dictionary(d, depth: depth, follow: follow))
            case .stream(let d, let data): return .stream(dictionary(d, depth: depth, follow: follow), data)
            default: return v
            }
        }

        private mutating func dictionary(_ d: [String: ReadValue], depth: Int, follow: Bool) -> [String: ReadValue] {
            var out: [String: ReadValue] = [:]
            for key in d.keys.sorted() {
                out[key] = value(d[key] ?? .null, depth: depth + 1, follow: follow && key != "/Parent" && key != "/P")
            }
            return out
        }
    }
}

extension ReadValue {
    /// A value of qpdf's JSON: names start with `/`, references are `N G R`, strings `u:`/`b:`.
    init(qpdf json: JSON) {
        switch json {
        case .null: self = .null
        case .bool(let b): self = .bool(b)
        case .number(let d): self = .number(d)
        case .string(let s):
            if s.hasPrefix("/") { self = .name(s) }
            else if s.hasPrefix("u:") || s.hasPrefix("b:") { self = .text(s) }
            else if QPDFReading.isReference(s) { self = .reference(s) }
            else { self = .text(s) }
        case .array(let items): self = .array(items.map { ReadValue(qpdf: $0) })
        case .object(let d): self = .dictionary(d.mapValues { ReadValue(qpdf: $0) })
        }
    }
}

extension QPDFReading {
    /// qpdf writes a real as the file has it (`20.`, `.5`, `+3`), which JSON does not allow:
    /// made `20.0`, `0.5`, `3` outside strings.
    static func jsonNumbers(_ text: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        var inString = false, escaped = false
        var previous: UInt8 = 0
        let bytes = Array(text.utf8)
        for (i, b) in bytes.enumerated() {
            if inString {
                if escaped { escaped = false } else if b == UInt8(ascii: "\\") { escaped = true } else if b == UInt8(ascii: "\"") { inString = false }
                out.append(b)
                continue
            }
            let next = i + 1 < bytes.count ? bytes[i + 1] : 0
            let isDigit = { (c: UInt8) in (0x30...0x39).contains(c) }
            switch b {
            case UInt8(ascii: "\""): inString = true; out.append(b)
            case UInt8(ascii: "+") where isDigit(next) || next == UInt8(ascii: "."): break
            case UInt8(ascii: "."):
                if !isDigit(previous) { out.append(UInt8(ascii: "0")) }
                out.append(b)
                if !isDigit(next) { out.append(UInt8(ascii: "0")) }
            default: out.append(b)
            }
            previous = b
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func isReference(_ s: String) -> Bool {
        let parts = s.split(separator: " ")
        return parts.count == 3 && parts[2] == "R" && Int(parts[0]) != nil && Int(parts[1]) != nil
    }
}

/// JSON as it comes.
public indirect enum JSON: Decodable, Sendable {
    case null, bool(Bool), number(Double), string(String), array([JSON]), object([String: JSON])

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null }
        else if let b = try? c.decode(Bool.self) { self = .bool(b) }
        else if let d = try? c.decode(Double.self) { self = .number(d) }
        else if let s = try? c.decode(String.self) { self = .string(s) }
        else if let a = try? c.decode([JSON].self) { self = .array(a) }
        else { self = .object(try c.decode([String: JSON].self)) }
    }

    subscript(key: String) -> JSON? { if case .object(let o) = self { o[key] } else { nil } }
    var arrayValue: [JSON]? { if case .array(let a) = self { a } else { nil } }
    var stringValue: String? { if case .string(let s) = self { s } else { nil } }
    var numberValue: Double? { if case .number(let d) = self { d } else { nil } }
}
