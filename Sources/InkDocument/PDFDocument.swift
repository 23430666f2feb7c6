// SPDX-License-Identifier: Apache-2.0
/// A PDF file read defensively and one way only: its cross-reference (tables and streams, every
/// section of the /Prev chain, the newest entry winning), its trailer, and every object of the
/// file, parsed once and checked to have one reading (`OneReading`). Nothing is trusted: every
/// offset, count and length is checked, the whole read is bounded by `PDFReadLimits`, and
/// anything wrong is a `PDFError` that says what and at which byte.
///
/// Encrypted files are refused: their strings are ciphertext, and an update could not be
/// written without the key.
public struct PDFDocument: Sendable {
    /// The file's bytes, exactly as given (an update is appended to them).
    public let bytes: [UInt8]
    /// The version in the header (`1.7` from `%PDF-1.7`).
    public let version: String
    public let crossReference: CrossReference
    public var trailer: PDFDictionary { crossReference.trailer }
    /// The object of each number in use.
    private let objects: [Int: PDFObject]
    /// What reading it has cost, against its limits (the page tree's walk is charged too).
    let work: PDFWork
    public var limits: PDFReadLimits { work.limits }
    /// What reading it has cost so far: values parsed, bytes inflated (for the benchmark and the log).
    public var readValues: Int { work.values }
    public var readInflatedBytes: Int { work.inflated }

    public init(bytes: [UInt8], limits: PDFReadLimits = .generous) throws {
        guard bytes.count <= PDFLimits.maxFileBytes else {
            throw PDFError.tooLarge("a file of \(bytes.count) bytes (at most \(PDFLimits.maxFileBytes) are read)")
        }
        self.bytes = bytes
        let magic = Array("%PDF-".utf8)
        if bytes.starts(with: magic) {
            // `%PDF-1.7`: readers that find no version where it belongs search the file for one.
            guard bytes.count > 8, (0x31...0x32).contains(bytes[5]), bytes[6] == UInt8(ascii: "."), (0x30...0x39).contains(bytes[7]) else {
                throw PDFError.ambiguous("the header is not '%PDF-' and a version (1.0 to 2.0)", at: 0)
            }
        } else {
            if let header = PDFParser.find(magic, in: bytes, from: 0, to: min(bytes.count, PDFLimits.headerSearchBytes)) {
                throw PDFError.ambiguous("\(header) bytes before '%PDF-' (readers differ on whether offsets count from the file's "
                                         + "start or from the header)", at: 0)
            }
            throw PDFError.malformed("not a PDF: no '%PDF-' in the first \(PDFLimits.headerSearchBytes) bytes")
        }
        version = String(decoding: bytes[5...].prefix { $0 == UInt8(ascii: ".") || (0x30...0x39).contains($0) }.prefix(8), as: UTF8.self)
        work = PDFWork(limits)
        crossReference = try CrossReference.read(bytes, work: work)
        if let encrypt = crossReference.trailer["Encrypt"], !encrypt.isNull {
            throw PDFError(.encrypted, "the document is encrypted (its trailer has /Encrypt): it can be neither read nor signed without its password")
        }
        objects = try OneReading(bytes: bytes, crossReference: crossReference, work: work).objects
        guard let root = trailer["Root"]?.referenceValue else { throw PDFError.malformed("the trailer has no /Root reference") }
        guard try object(root).dictionaryValue != nil else { throw PDFError.malformed("the catalog (/Root, \(root)) is not a dictionary") }
    }

    /// The catalog (/Root).
    public func catalog() throws -> PDFDictionary {
        try dictionary(trailer["Root"]) ?? PDFDictionary()
    }

    // MARK: objects

    /// The object `reference` names: `.null` for a free or unknown number or a generation that
    /// does not match (as the format says of references to nothing; the file's own references
    /// all name objects in use, `OneReading` saw to that).
    public func object(_ reference: PDFReference) throws -> PDFObject {
        switch crossReference.entries[reference.number] {
        case .inFile(_, let generation)? where generation == reference.generation:
            return objects[reference.number] ?? .null
        case .inObjectStream? where reference.generation == 0:
            return objects[reference.number] ?? .null
        default:
            return .null
        }
    }

    func object(_ reference: PDFReference, depth: Int) throws -> PDFObject {
        guard depth < PDFLimits.maxResolveDepth else {
            throw PDFError.tooLarge("references resolved more than \(PDFLimits.maxResolveDepth) deep (a loop?) at \(reference)")
        }
        return try object(reference)
    }

    /// `object` with references followed to what they name.
    public func resolve(_ object: PDFObject) throws -> PDFObject {
        try resolve(object, depth: 0)
    }

    func resolve(_ object: PDFObject, depth: Int) throws -> PDFObject {
        var current = object
        var steps = depth
        while case .reference(let r) = current {
            current = try self.object(r, depth: steps)
            steps += 1
        }
        return current
    }

    // MARK: typed access (references followed)

    /// The dictionary `object` is or names (a stream's dictionary too); nil for anything else.
    public func dictionary(_ object: PDFObject?) throws -> PDFDictionary? {
        guard let object else { return nil }
        return try resolve(object).dictionaryValue
    }

    public func array(_ object: PDFObject?) throws -> [PDFObject]? {
        guard let object else { return nil }
        return try resolve(object).arrayValue
    }

    public func number(_ object: PDFObject?) throws -> Double? {
        guard let object else { return nil }
        return try resolve(object).numberValue
    }

    /// A rectangle: an array of four numbers (each may be a reference), normalised; nil when
    /// it is not one, or not finite.
    public func rect(_ object: PDFObject?) throws -> PDFRect? {
        guard let items = try array(object), items.count == 4 else { return nil }
        var values: [Double] = []
        for item in items {
            guard let v = try number(item), v.isFinite else { return nil }
            values.append(v)
        }
        return PDFRect(values[0], values[1], values[2], values[3])
    }
}
