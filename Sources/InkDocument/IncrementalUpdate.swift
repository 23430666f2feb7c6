// SPDX-License-Identifier: Apache-2.0
/// An incremental update (ISO 32000-1, 7.5.6): new and rewritten objects appended after the
/// original file's last byte, then a cross-reference section for them whose /Prev is the
/// original's newest section, so the original's bytes stay an exact prefix of the result (what
/// a signature's /ByteRange, or a shop's copy of the contract, relies on).
///
/// The new section is written the way the original's newest one was: a table with a trailer
/// after a table, a compressed cross-reference stream after a stream (a reader that knows
/// only tables could not have read the original anyway, and one that expects streams finds one).
public struct IncrementalUpdate {
    public let document: PDFDocument
    private var nextNumber: Int
    private var objects: [PDFReference: PDFObject] = [:]
    private var reserved: Set<PDFReference> = []

    public init(_ document: PDFDocument) {
        self.document = document
        nextNumber = document.crossReference.nextFreeNumber
    }

    /// A number for an object written later with `set` (for objects that refer to each other).
    public mutating func reserve() throws -> PDFReference {
        guard nextNumber <= PDFLimits.maxObjectNumber else {
            throw PDFError.tooLarge("no object number left (the document uses them up to \(PDFLimits.maxObjectNumber))")
        }
        let reference = PDFReference(nextNumber)
        nextNumber += 1
        reserved.insert(reference)
        return reference
    }

    /// A new object, numbered after the document's.
    public mutating func add(_ object: PDFObject) throws -> PDFReference {
        let reference = try reserve()
        objects[reference] = object
        return reference
    }

    /// Writes `object` as `reference`: a reserved number, or an object of the document that
    /// the update replaces (same number and generation). Any other number would be past the
    /// trailer's /Size, which readers need not look beyond.
    public mutating func set(_ reference: PDFReference, _ object: PDFObject) throws {
        guard reserved.contains(reference) || (reference.number > 0 && reference.number < document.crossReference.nextFreeNumber) else {
            throw PDFError.refused("object \(reference) is neither the document's nor reserved by the update")
        }
        objects[reference] = object
    }

    /// What the update holds for `reference` so far, if anything.
    public func pending(_ reference: PDFReference) -> PDFObject? { objects[reference] }

    /// The document's object as the update will leave it: the update's version, else the file's.
    public func current(_ reference: PDFReference) throws -> PDFObject {
        try objects[reference] ?? document.object(reference)
    }

    /// The original bytes followed by the update.
    public func write() throws -> UpdatedPDF {
        guard !objects.isEmpty else { throw PDFError.refused("an update with no objects") }
        if let missing = reserved.subtracting(objects.keys).min() {
            throw PDFError.refused("object \(missing) was reserved but never set")
        }
        let original = document.bytes
        var out = original
        // The update starts on a line of its own (a file may end just after `%%EOF`).
        if let last = out.last, last != 0x0A, last != 0x0D { out.append(0x0A) }
        var ranges: [PDFReference: Range<Int>] = [:]
        for (reference, object) in objects.sorted(by: { $0.key < $1.key }) {
            let start = out.count
            out += Array("\(reference.number) \(reference.generation) obj\n".utf8)
            try within("writing object \(reference)") { try PDFSerializer.append(object, to: &out, depth: 0) }
            out += Array("\nendobj\n".utf8)
            ranges[reference] = start..<out.count
        }
        var trailer = PDFDictionary()
        for key: PDFName in ["Root", "Info", "ID"] { trailer[key] = document.trailer[key] }
        trailer["Prev"] = .integer(Int64(document.crossReference.newestOffset))

        let xrefOffset = out.count
        switch document.crossReference.newestFormat {
        case .table:
            trailer["Size"] = .integer(Int64(nextNumber))
            out += CrossReferenceWriter.table(ranges.mapValues(\.lowerBound))
            out += Array("trailer\n".utf8)
            out += try PDFSerializer.bytes(.dictionary(trailer))
            out += Array("\n".utf8)
        case .stream:
            // The stream is an object of the update too, with its own entry.
            guard nextNumber <= PDFLimits.maxObjectNumber else { throw PDFError.tooLarge("no object number left for the cross-reference stream") }
            let streamReference = PDFReference(nextNumber)
            var offsets = ranges.mapValues(\.lowerBound)
            offsets[streamReference] = xrefOffset
            trailer["Size"] = .integer(Int64(nextNumber + 1))
            let stream = try CrossReferenceWriter.stream(offsets, trailer: trailer)
            out += Array("\(streamReference.number) 0 obj\n".utf8)
            out += try PDFSerializer.bytes(.stream(stream))
            out += Array("\nendobj\n".utf8)
            ranges[streamReference] = xrefOffset..<out.count
        }
        out += Array("startxref\n\(xrefOffset)\n%%EOF\n".utf8)
        return UpdatedPDF(bytes: out, originalCount: original.count, objectRanges: ranges, crossReferenceOffset: xrefOffset)
    }
}

extension IncrementalUpdate {
    /// `object` as the update will leave it: references followed to the update's version, else the file's.
    func resolve(_ object: PDFObject?) throws -> PDFObject? {
        var object = object
        var steps = 0
        while case .reference(let r)? = object {
            guard steps < PDFLimits.maxResolveDepth else {
                throw PDFError.malformed("references lead to references more than \(PDFLimits.maxResolveDepth) deep, at \(r)")
            }
            object = try current(r)
            steps += 1
        }
        return object
    }

    /// The dictionary `object` is (or refers to) as the update has it so far: one it may write back.
    func dictionary(_ object: PDFObject?, what: String) throws -> PDFDictionary {
        let found = try resolve(object) ?? .null
        guard case .dictionary(let dictionary) = found else {
            let place = object?.referenceValue.map { " (\($0))" } ?? ""
            throw PDFError.refused("\(what)\(place) is \(found.kindName), not a dictionary")
        }
        return dictionary
    }
}

/// A document with an update appended.
public struct UpdatedPDF: Sendable {
    /// The original's bytes, then the update's.
    public var bytes: [UInt8]
    /// How many of `bytes` are the original's.
    public var originalCount: Int
    /// Where each object the update wrote is in `bytes` (`n g obj` to `endobj`): a later step
    /// finds a signature's /Contents placeholder and /ByteRange here, to fill them in place.
    public var objectRanges: [PDFReference: Range<Int>]
    /// Where the update's cross-reference section starts.
    public var crossReferenceOffset: Int
}

/// The update's cross-reference section.
enum CrossReferenceWriter {
    /// Subsections of consecutive numbers.
    static func runs(_ numbers: [Int]) -> [(first: Int, count: Int)] {
        var runs: [(Int, Int)] = []
        for n in numbers.sorted() {
            if let last = runs.last, last.0 + last.1 == n { runs[runs.count - 1].1 += 1 } else { runs.append((n, 1)) }
        }
        return runs
    }

    /// `xref`, then per subsection its first number and count and 20-byte entries.
    static func table(_ offsets: [PDFReference: Int]) -> [UInt8] {
        let byNumber = Dictionary(offsets.map { ($0.key.number, ($0.key.generation, $0.value)) }, uniquingKeysWith: { a, _ in a })
        var out = Array("xref\n".utf8)
        for (first, count) in runs(Array(byNumber.keys)) {
            out += Array("\(first) \(count)\n".utf8)
            for n in first..<(first + count) {
                guard let (generation, offset) = byNumber[n] else { continue }
                out += Array((padded(offset, 10) + " " + padded(generation, 5) + " n \n").utf8)
            }
        }
        return out
    }

    private static func padded(_ v: Int, _ width: Int) -> String {
        let text = String(v)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }

    /// A cross-reference stream (/Type /XRef) with the trailer's keys, its entries type 1
    /// (offset, generation), the offset as wide as the largest needs, FlateDecode.
    static func stream(_ offsets: [PDFReference: Int], trailer: PDFDictionary) throws -> PDFStream {
        let byNumber = Dictionary(offsets.map { ($0.key.number, ($0.key.generation, $0.value)) }, uniquingKeysWith: { a, _ in a })
        let largest = offsets.values.max() ?? 0
        var offsetBytes = 1
        while offsetBytes < 8, largest >> (8 * offsetBytes) != 0 { offsetBytes += 1 }
        var data: [UInt8] = []
        var index: [PDFObject] = []
        for (first, count) in runs(Array(byNumber.keys)) {
            index += [.integer(Int64(first)), .integer(Int64(count))]
            for n in first..<(first + count) {
                guard let (generation, offset) = byNumber[n] else { continue }
                data.append(1)
                for i in (0..<offsetBytes).reversed() { data.append(UInt8(truncatingIfNeeded: offset >> (8 * i))) }
                data.append(UInt8(truncatingIfNeeded: generation >> 8)); data.append(UInt8(truncatingIfNeeded: generation))
            }
        }
        var dictionary = PDFDictionary()
        dictionary["Type"] = .name("XRef")
        for entry in trailer.entries { dictionary[entry.key] = entry.value }
        dictionary["Index"] = .array(index)
        dictionary["W"] = .array([.integer(1), .integer(Int64(offsetBytes)), .integer(2)])
        dictionary["Filter"] = .name("FlateDecode")
        let compressed = try Zlib.deflate(data)
        return PDFStream(dictionary: dictionary, data: compressed[...])
    }
}
