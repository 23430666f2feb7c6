// SPDX-License-Identifier: Apache-2.0
/// What the kiosk shows (poppler draws it) and what it signs (this reader's objects, which the
/// update writes back) must be one document. Readers agree on a file whose structure leaves them
/// nothing to choose; they part where a file is damaged or ambiguous, each repairing it its own
/// way, which is what shadow attacks on signed PDFs use (a catalog given twice, an object no
/// cross-reference lists, a /Length that ends elsewhere: Mainka, Mladenov, Rohlmann, NDSS 2021).
/// So a file is taken only when every byte of it has one reading, and refused (`.ambiguous`, with
/// the byte) otherwise:
///
/// - every object of the file parsed once (`FileScan`): no key given twice anywhere, no stream
///   whose /Length misses its `endstream`, nothing between objects but white space and comments,
///   nothing after the last `%%EOF`, whose `startxref` is where the reader began;
/// - every cross-reference section of the /Prev chain points each object at exactly that object
///   (number and generation), no section lists a number twice, a hybrid file's table and stream
///   agree, and no table or cross-reference stream is outside the chain;
/// - every object of the file is listed by some section (an object no section lists is what a
///   reader that rebuilds the file finds, and the others do not), and so is every object of an
///   object stream, at its index;
/// - every reference of every object names an object in use, of its generation (a reference to
///   nothing makes poppler rebuild the cross-reference from the bytes);
/// - /Size is past every object in use.
///
/// The objects of that one reading, the current one of each number, are what the document reads.
struct OneReading {
    /// The object of each number in use, as the newest cross-reference gives it.
    let objects: [Int: PDFObject]

    init(bytes: [UInt8], crossReference: CrossReference, work: PDFWork) throws {
        let entries = crossReference.entries
        let scan = try FileScan.scan(bytes, work: work) { reference in
            try Self.directLength(reference, in: bytes, entries: entries)
        }
        try scan.checkEnd(newest: crossReference.newestOffset, fileSize: bytes.count)
        let file = FileObjects(bytes: bytes, scan: scan)
        try Self.checkEverySectionInTheChain(file, crossReference)
        let inStreams = try Self.checkEveryPlace(file, crossReference)
        let (objects, placeOf) = try Self.currentObjects(file, crossReference, inStreams: inStreams, work: work)
        try Self.checkSize(crossReference, placeOf: placeOf)
        try Self.checkReferences(objects, crossReference, placeOf: placeOf)
        self.objects = objects
    }

    /// The file's objects by where they start.
    private struct FileObjects {
        let bytes: [UInt8]
        let scan: FileScan
        let at: [Int: Int]

        init(bytes: [UInt8], scan: FileScan) {
            self.bytes = bytes; self.scan = scan
            var at: [Int: Int] = [:]
            at.reserveCapacity(scan.definitions.count)
            for (i, definition) in scan.definitions.enumerated() { at[definition.offset] = i }
            self.at = at
        }

        /// The object a cross-reference offset points at (past white space), if one starts there.
        func definition(at offset: Int) -> FileScan.Definition? {
            at[OneReading.skippingWhitespace(offset, in: bytes)].map { scan.definitions[$0] }
        }
    }

    /// Every table and cross-reference stream of the file is in the /Prev chain.
    private static func checkEverySectionInTheChain(_ file: FileObjects, _ crossReference: CrossReference) throws {
        let chainTables = Set(crossReference.sections.filter { $0.section.kind == .table }.map(\.offset))
        for table in file.scan.tables where !chainTables.contains(table) {
            throw PDFError.ambiguous("a cross-reference table that the file's /Prev chain does not reach "
                                     + "(a reader that rebuilds the file would use it)", at: table)
        }
        let chainStreams = chainStreamOffsets(crossReference)
        for definition in file.scan.definitions where definition.object.streamValue?.dictionary["Type"]?.nameValue == "XRef"
            && !chainStreams.contains(definition.offset) {
            throw PDFError.ambiguous("a cross-reference stream (object \(definition.reference.number)) that the file's /Prev chain "
                                     + "does not reach", at: definition.offset)
        }
    }

    private static func chainStreamOffsets(_ crossReference: CrossReference) -> Set<Int> {
        Set(crossReference.sections.filter { $0.section.kind == .stream }.map(\.offset) + crossReference.sections.compactMap { $0.hidden?.offset })
    }

    /// Every place a section gives is that object's (number and generation), and every object of
    /// the file has such a place. Returns every section's compressed entries.
    private static func checkEveryPlace(_ file: FileObjects, _ crossReference: CrossReference) throws -> Set<CompressedPlace> {
        var listed = Set<Int>()
        var inStreams = Set<CompressedPlace>()
        for read in crossReference.sections {
            let all = read.section.entries.map { ($0, read.offset) } + (read.hidden.map { h in h.entries.map { ($0, h.offset) } } ?? [])
            for ((number, entry), sectionOffset) in all {
                switch entry {
                case .free: break
                case .inObjectStream(let stream, let index): inStreams.insert(CompressedPlace(stream: stream, index: index, number: number))
                case .inFile(let offset, let generation):
                    guard let found = file.definition(at: offset) else {
                        throw PDFError.ambiguous("the cross-reference section at byte \(sectionOffset) puts object \(number) \(generation) "
                                                 + "at byte \(offset), where no object starts", at: offset)
                    }
                    guard found.reference == PDFReference(number, generation) else {
                        throw PDFError.ambiguous("the cross-reference section at byte \(sectionOffset) puts object \(number) \(generation) "
                                                 + "at byte \(offset), where object \(found.reference.number) \(found.reference.generation) is", at: offset)
                    }
                    listed.insert(found.offset)
                }
            }
        }
        let chainStreams = chainStreamOffsets(crossReference)
        for definition in file.scan.definitions where !listed.contains(definition.offset) && !chainStreams.contains(definition.offset) {
            throw PDFError.ambiguous("object \(definition.reference.number) \(definition.reference.generation) is listed by no "
                                     + "cross-reference section (a reader that rebuilds the file reads it, others do not)", at: definition.offset)
        }
        return inStreams
    }

    /// The current object of each number in use, and where in the file it is (its object
    /// stream's place for a compressed one). Each object stream is inflated once; every object
    /// in it must be listed there by some section.
    private static func currentObjects(_ file: FileObjects, _ crossReference: CrossReference, inStreams: Set<CompressedPlace>,
                                       work: PDFWork) throws -> ([Int: PDFObject], [Int: Int]) {
        let entries = crossReference.entries
        var objects: [Int: PDFObject] = [:], placeOf: [Int: Int] = [:]
        objects.reserveCapacity(entries.count)
        var streams: [Int: ObjectStream] = [:]
        for (number, entry) in entries.sorted(by: { $0.key < $1.key }) {
            switch entry {
            case .free: continue
            case .inFile(let offset, _):
                guard let found = file.definition(at: offset) else { throw PDFError.malformed("object \(number) is at no object", at: offset) }
                objects[number] = found.object
                placeOf[number] = found.offset
            case .inObjectStream(let streamNumber, let index):
                guard case .inFile(let offset, 0)? = entries[streamNumber], let container = file.definition(at: offset) else {
                    throw PDFError.malformed("object \(number) is said to be in object stream \(streamNumber), which is not a stream "
                                             + "object of the file")
                }
                let stream: ObjectStream
                if let known = streams[streamNumber] {
                    stream = known
                } else {
                    guard let data = container.object.streamValue else {
                        throw PDFError.malformed("object \(number) is said to be in object stream \(streamNumber), which is "
                                                 + "\(container.object.kindName)", at: offset)
                    }
                    stream = try within("object stream \(streamNumber) 0") { try ObjectStream(number: streamNumber, stream: data, work: work) }
                    for (index, held) in stream.objects.enumerated()
                    where !inStreams.contains(CompressedPlace(stream: streamNumber, index: index, number: held.number)) {
                        throw PDFError.ambiguous("object \(held.number) in object stream \(streamNumber) (entry \(index)) is listed by no "
                                                 + "cross-reference section there", at: offset)
                    }
                    streams[streamNumber] = stream
                }
                objects[number] = try within("object \(number) 0") { try stream.object(number: number, index: index) }
                placeOf[number] = offset
            }
        }
        return (objects, placeOf)
    }

    /// /Size one past the highest number any section lists (ISO 32000-1, 7.5.5): smaller hides
    /// objects from readers that stop at it, larger is what qpdf repairs.
    private static func checkSize(_ crossReference: CrossReference, placeOf: [Int: Int]) throws {
        let size = crossReference.trailer["Size"]?.integerValue ?? 0
        let highest = crossReference.entries.keys.max() ?? 0
        guard size == Int64(highest) + 1 else {
            throw PDFError.ambiguous("the trailer's /Size is \(size) where the highest object number listed is \(highest) "
                                     + "(readers that stop at /Size see other objects)", at: placeOf[highest] ?? crossReference.newestOffset)
        }
    }

    /// Every reference of every object (and of the trailer) names an object in use, of its generation.
    private static func checkReferences(_ objects: [Int: PDFObject], _ crossReference: CrossReference, placeOf: [Int: Int]) throws {
        let entries = crossReference.entries
        func check(_ object: PDFObject, in holder: String, at offset: Int?) throws {
            switch object {
            case .reference(let r):
                let inUse: Bool = switch entries[r.number] {
                case .inFile(_, let generation)?: generation == r.generation
                case .inObjectStream?: r.generation == 0
                default: false
                }
                guard inUse else {
                    throw PDFError.ambiguous("\(holder) refers to \(r), which is no object in use (poppler then rebuilds the "
                                             + "cross-reference from the bytes, other readers read null)", at: offset)
                }
            case .array(let items): for item in items { try check(item, in: holder, at: offset) }
            case .dictionary(let d): for entry in d.entries { try check(entry.value, in: holder, at: offset) }
            case .stream(let s): for entry in s.dictionary.entries { try check(entry.value, in: holder, at: offset) }
            default: break
            }
        }
        // In order of number: a file with several such references is refused for the same one every time.
        for (number, object) in objects.sorted(by: { $0.key < $1.key }) { try check(object, in: "object \(number)", at: placeOf[number]) }
        try check(.dictionary(crossReference.trailer), in: "the trailer", at: crossReference.newestOffset)
    }

    /// Object `number` as the `index`th of object stream `stream`.
    private struct CompressedPlace: Hashable {
        var stream: Int, index: Int, number: Int
    }

    /// `offset`, or past the white space there (writers that point at the end of line before
    /// an object are common, and every reader skips it alike).
    static func skippingWhitespace(_ offset: Int, in bytes: [UInt8]) -> Int {
        var at = offset
        while at < bytes.count, PDFLexer.isWhitespace(bytes[at]) { at += 1 }
        return at
    }

    /// A stream's indirect /Length: an integer object of the file (not in an object stream).
    private static func directLength(_ reference: PDFReference, in bytes: [UInt8], entries: [Int: CrossReferenceEntry]) throws -> Int64? {
        switch entries[reference.number] {
        case .inFile(let offset, let generation)? where generation == reference.generation && offset < bytes.count:
            var parser = PDFParser(bytes, at: offset)
            guard try parser.objectHeader() == reference, case .integer(let length) = try parser.object() else {
                throw PDFError.malformed("a stream's /Length \(reference) is not an integer object where the cross-reference says", at: offset)
            }
            return length
        case .inObjectStream?:
            throw PDFError.unsupported("a stream's /Length \(reference) is in an object stream")
        default:
            throw PDFError.ambiguous("a stream's /Length is \(reference), which is no object in use")
        }
    }
}
