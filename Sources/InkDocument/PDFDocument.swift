/// A PDF file read defensively: its cross-reference (tables and streams, every section of the
/// /Prev chain, the newest entry winning), its trailer, and its objects on demand (from the
/// file, or from object streams). Nothing is trusted: every offset, count and length is
/// checked, and anything wrong is a `PDFError` that says what and at which byte.
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
    private let cache = ObjectCache()

    public init(bytes: [UInt8]) throws {
        guard bytes.count <= PDFLimits.maxFileBytes else {
            throw PDFError.tooLarge("a file of \(bytes.count) bytes (at most \(PDFLimits.maxFileBytes) are read)")
        }
        self.bytes = bytes
        guard let header = PDFParser.find(Array("%PDF-".utf8), in: bytes, from: 0, to: min(bytes.count, PDFLimits.headerSearchBytes)) else {
            throw PDFError.malformed("not a PDF: no '%PDF-' in the first \(PDFLimits.headerSearchBytes) bytes")
        }
        version = String(decoding: bytes[(header + 5)...].prefix { $0 == UInt8(ascii: ".") || (0x30...0x39).contains($0) }.prefix(8), as: UTF8.self)
        crossReference = try Self.readCrossReference(bytes)
        if let encrypt = trailer["Encrypt"], !encrypt.isNull {
            throw PDFError(.encrypted, "the document is encrypted (its trailer has /Encrypt): it can be neither read nor signed without its password")
        }
        guard let root = trailer["Root"]?.referenceValue else { throw PDFError.malformed("the trailer has no /Root reference") }
        guard try object(root).dictionaryValue != nil else { throw PDFError.malformed("the catalog (/Root, \(root)) is not a dictionary") }
    }

    /// The catalog (/Root).
    public func catalog() throws -> PDFDictionary {
        try dictionary(trailer["Root"]) ?? PDFDictionary()
    }

    // MARK: the cross-reference

    private static func readCrossReference(_ bytes: [UInt8]) throws -> CrossReference {
        let newest = try startxref(bytes)
        var offset = newest
        var visited: Set<Int> = []
        var merged: CrossReference?
        while true {
            let section = try within("the cross-reference section at byte \(offset)") { try Self.section(bytes, at: offset) }
            if merged == nil { merged = CrossReference(newestFormat: section.kind == .table ? .table : .stream, newestOffset: offset) }
            visited.insert(offset)
            try merged?.merge(section)
            merged?.countSection()
            // A hybrid file's table points to a stream with the objects its table leaves out.
            if section.kind == .table, let hidden = section.trailer["XRefStm"]?.integerValue {
                guard let at = Int(exactly: hidden), at >= 0, at < bytes.count else {
                    throw PDFError.malformed("/XRefStm \(hidden) is outside the file", at: offset)
                }
                let stream = try within("the cross-reference stream at byte \(at) (/XRefStm)") { try Self.section(bytes, at: at) }
                try merged?.merge(CrossReferenceSection(kind: .stream, entries: stream.entries, trailer: PDFDictionary()), fillsFree: true)
            }
            guard let prev = section.trailer["Prev"]?.integerValue else { break }
            guard let next = Int(exactly: prev), next >= 0, next < bytes.count else {
                throw PDFError.malformed("/Prev \(prev) is outside the file", at: offset)
            }
            // A chain that comes back to a section already read has nothing more to say.
            if visited.contains(next) { break }
            guard visited.count < PDFLimits.maxCrossReferenceSections else {
                throw PDFError.tooLarge("more than \(PDFLimits.maxCrossReferenceSections) cross-reference sections")
            }
            offset = next
        }
        guard let merged else { throw PDFError.malformed("no cross-reference section") }
        return merged
    }

    /// The offset `startxref` gives, from the end of the file.
    private static func startxref(_ bytes: [UInt8]) throws -> Int {
        let from = max(0, bytes.count - PDFLimits.startxrefSearchBytes)
        guard let at = PDFParser.findLast(Array("startxref".utf8), in: bytes, from: from, to: bytes.count) else {
            throw PDFError.malformed("no 'startxref' in the last \(PDFLimits.startxrefSearchBytes) bytes: not a PDF, or cut short")
        }
        var lexer = PDFLexer(bytes, at: at + 9)
        guard case .integer(let value)? = try? lexer.next(), let offset = Int(exactly: value), offset >= 0, offset < bytes.count else {
            throw PDFError.malformed("'startxref' is not followed by an offset within the file", at: at)
        }
        return offset
    }

    /// The section at `offset`: `xref` starts a table, `n g obj` a cross-reference stream.
    private static func section(_ bytes: [UInt8], at offset: Int) throws -> CrossReferenceSection {
        var lexer = PDFLexer(bytes, at: offset)
        lexer.skipSpace()
        if lexer.hasKeyword("xref", at: lexer.position) { return try CrossReferenceReader.table(bytes, at: lexer.position) }
        var parser = PDFParser(bytes, at: offset)
        // A cross-reference stream's /Length is direct (ISO 32000-1, 7.5.8.2): nothing to resolve yet.
        let (_, object) = try parser.indirectObject(length: { _ in nil })
        guard let stream = object.streamValue else {
            throw PDFError.malformed("neither 'xref' nor a cross-reference stream", at: offset)
        }
        return try CrossReferenceReader.stream(stream)
    }

    // MARK: objects

    /// The object `reference` names: `.null` for a free or unknown number or a generation that
    /// does not match (as the format says of references to nothing).
    public func object(_ reference: PDFReference) throws -> PDFObject {
        try object(reference, depth: 0)
    }

    func object(_ reference: PDFReference, depth: Int) throws -> PDFObject {
        // Before the cache: a loop of references must end even when every step is cached.
        guard depth < PDFLimits.maxResolveDepth else {
            throw PDFError.tooLarge("references resolved more than \(PDFLimits.maxResolveDepth) deep (a loop?) at \(reference)")
        }
        return try cache.object(reference) { try read(reference, depth: depth) }
    }

    /// The object read from where the cross-reference says it is.
    private func read(_ reference: PDFReference, depth: Int) throws -> PDFObject {
        switch crossReference.entries[reference.number] {
        case nil, .free?:
            return .null
        case .inFile(let offset, let generation)?:
            guard generation == reference.generation else { return .null }
            return try within("object \(reference.number) \(generation)") {
                guard offset < bytes.count else { throw PDFError.malformed("its offset \(offset) is past the file's end (\(bytes.count))") }
                var parser = PDFParser(bytes, at: offset)
                let (found, object) = try parser.indirectObject(
                    length: { length in try? self.resolve(.reference(length), depth: depth + 1).integerValue },
                    endstream: { offset in self.cache.endstream(after: offset, in: self.bytes) })
                guard found.number == reference.number else {
                    throw PDFError.malformed("the cross-reference says it is here, but this is object \(found.number) \(found.generation)", at: offset)
                }
                return object
            }
        case .inObjectStream(let streamNumber, let index)?:
            guard reference.generation == 0 else { return .null }
            return try within("object \(reference.number) 0") {
                let stream = try cache.stream(streamNumber) {
                    // An object stream is itself in the file, never in another object stream.
                    guard case .inFile? = crossReference.entries[streamNumber] else {
                        throw PDFError.malformed("its object stream \(streamNumber) is not an object in the file")
                    }
                    let container = try object(PDFReference(streamNumber), depth: depth + 1)
                    guard let data = container.streamValue else {
                        throw PDFError.malformed("its object stream \(streamNumber) 0 is \(container.kindName), not a stream")
                    }
                    return try within("object stream \(streamNumber) 0") { try ObjectStream(number: streamNumber, stream: data) }
                }
                return try stream.object(number: reference.number, index: index)
            }
        }
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
