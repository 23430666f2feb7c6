// SPDX-License-Identifier: Apache-2.0
/// Where an object is, as a cross-reference section says.
public enum CrossReferenceEntry: Sendable, Equatable {
    case free
    /// At a byte offset of the file, with its generation.
    case inFile(offset: Int, generation: Int)
    /// The `index`th object of the object stream numbered `stream` (generation 0).
    case inObjectStream(stream: Int, index: Int)
}

/// One cross-reference section: a classic table (`xref` … `trailer`) or a cross-reference
/// stream, with its trailer dictionary (the stream's own dictionary for a stream).
struct CrossReferenceSection: Sendable {
    enum Kind: Equatable, Sendable { case table, stream }
    var kind: Kind
    var entries: [(number: Int, entry: CrossReferenceEntry)]
    var trailer: PDFDictionary
    /// Where its bytes end (after the trailer dictionary, or the stream's `endobj`).
    var end = 0

    /// Refuses a section that names one number twice (two subsections over the same numbers, an
    /// /Index with overlapping ranges): which of the two counts is each reader's guess.
    func checkNumbersOnce(at offset: Int) throws {
        var seen = Set<Int>()
        seen.reserveCapacity(entries.count)
        for (number, _) in entries where !seen.insert(number).inserted {
            throw PDFError.ambiguous("the cross-reference section at byte \(offset) lists object \(number) twice", at: offset)
        }
    }
}

/// A section as it was found: where, what it says, and in a hybrid file (a table whose trailer
/// has /XRefStm) where its stream is and what that adds.
struct ReadSection: Sendable {
    var offset: Int
    var section: CrossReferenceSection
    var hidden: (offset: Int, entries: [(number: Int, entry: CrossReferenceEntry)])?
}

/// The merged cross-reference of a file and how its newest section was written (which the
/// update's section must follow: a table after a table, a stream after a stream).
public struct CrossReference: Sendable {
    public enum Format: Sendable, Equatable { case table, stream }
    /// Every object's place, the newest section's word for each number.
    public private(set) var entries: [Int: CrossReferenceEntry] = [:]
    /// The trailer: the newest section's (readers take /Root and the rest from it alone; an older
    /// section's trailer says nothing about the file as it is).
    public private(set) var trailer = PDFDictionary()
    /// The newest section's format and its offset (what `startxref` said, and what an
    /// update's /Prev must say).
    public let newestFormat: Format
    public let newestOffset: Int
    /// Every section of the /Prev chain, newest first.
    private(set) var sections: [ReadSection] = []
    /// How many sections the /Prev chain had.
    public var sectionCount: Int { sections.count }

    init(newestFormat: Format, newestOffset: Int) {
        self.newestFormat = newestFormat; self.newestOffset = newestOffset
    }

    /// Adds the next older section: numbers already known keep their newer entry. In a hybrid
    /// file the table's /XRefStm stream adds what that same table leaves out (ISO 32000-1,
    /// 7.5.8.4). Where the table lists an object free and the stream in use, readers part
    /// (poppler keeps the table's word and rebuilds the file, pdf.js and qpdf take the stream's);
    /// where both give it a place, the places must agree.
    mutating func merge(_ read: ReadSection) throws {
        try read.section.checkNumbersOnce(at: read.offset)
        var level: [Int: CrossReferenceEntry] = [:]
        level.reserveCapacity(read.section.entries.count)
        for (number, entry) in read.section.entries { level[number] = entry }
        if let hidden = read.hidden {
            try CrossReferenceSection(kind: .stream, entries: hidden.entries, trailer: PDFDictionary()).checkNumbersOnce(at: hidden.offset)
            for (number, entry) in hidden.entries where entry != .free {
                switch level[number] {
                case nil: level[number] = entry
                case .free?:
                    throw PDFError.ambiguous("object \(number) is free in the table at byte \(read.offset) but in use in its /XRefStm "
                                             + "stream (readers differ on which counts)", at: hidden.offset)
                case let listed? where listed != entry:
                    throw PDFError.ambiguous("object \(number) is at \(listed) in the table at byte \(read.offset) but at \(entry) "
                                             + "in its /XRefStm stream (readers that know hybrid files read the one, others the other)", at: hidden.offset)
                default: break
                }
            }
        }
        for (number, entry) in level where entries[number] == nil {
            guard entries.count < PDFLimits.maxCrossReferenceEntries else {
                throw PDFError.tooLarge("more than \(PDFLimits.maxCrossReferenceEntries) cross-reference entries")
            }
            entries[number] = entry
        }
        if sections.isEmpty { trailer = read.section.trailer }
        sections.append(read)
    }

    /// The first number an update may give a new object: past /Size and past every number
    /// any section mentions (a wrong /Size must not make two objects share a number).
    public var nextFreeNumber: Int {
        let size = trailer["Size"]?.integerValue.flatMap { Int(exactly: $0) } ?? 0
        let highest = entries.keys.max() ?? 0
        return max(1, min(max(size, highest + 1), PDFLimits.maxObjectNumber + 1))
    }
}

extension CrossReference {
    /// The /Prev chain from the section the file's last `startxref` names: every section, newest
    /// first. A chain that comes back to a section already read is refused.
    static func read(_ bytes: [UInt8], work: PDFWork) throws -> CrossReference {
        let newest = try startxref(bytes)
        var offset = newest
        var visited: Set<Int> = []
        var merged: CrossReference?
        while true {
            let section = try within("the cross-reference section at byte \(offset)") { try Self.section(bytes, at: offset, work: work) }
            if merged == nil { merged = CrossReference(newestFormat: section.kind == .table ? .table : .stream, newestOffset: offset) }
            visited.insert(offset)
            var read = ReadSection(offset: offset, section: section)
            // A hybrid file's table points to a stream with the objects its table leaves out.
            if section.kind == .table, let hidden = section.trailer["XRefStm"]?.integerValue {
                guard let at = Int(exactly: hidden), at >= 0, at < bytes.count else {
                    throw PDFError.malformed("/XRefStm \(hidden) is outside the file", at: offset)
                }
                let stream = try within("the cross-reference stream at byte \(at) (/XRefStm)") { try Self.section(bytes, at: at, work: work) }
                guard stream.kind == .stream else { throw PDFError.malformed("/XRefStm \(hidden) is not a cross-reference stream", at: offset) }
                read.hidden = (at, stream.entries)
            }
            try merged?.merge(read)
            guard let prev = section.trailer["Prev"]?.integerValue else { break }
            guard let next = Int(exactly: prev), next >= 0, next < bytes.count else {
                throw PDFError.malformed("/Prev \(prev) is outside the file", at: offset)
            }
            guard !visited.contains(next) else {
                throw PDFError.malformed("/Prev \(prev) leads back to a cross-reference section already read", at: offset)
            }
            guard visited.count < PDFLimits.maxCrossReferenceSections else {
                throw PDFError.tooLarge("more than \(PDFLimits.maxCrossReferenceSections) cross-reference sections")
            }
            offset = next
        }
        guard let merged else { throw PDFError.malformed("no cross-reference section") }
        return merged
    }

    /// The offset the last `startxref` gives, looked for near the end of the file (that it is
    /// the file's last word is checked when the whole file is read).
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
    private static func section(_ bytes: [UInt8], at offset: Int, work: PDFWork) throws -> CrossReferenceSection {
        var lexer = PDFLexer(bytes, at: offset)
        lexer.skipSpace()
        if lexer.hasKeyword("xref", at: lexer.position) { return try CrossReferenceReader.table(bytes, at: lexer.position) }
        var parser = PDFParser(bytes, at: offset)
        // A cross-reference stream's /Length is direct (ISO 32000-1, 7.5.8.2): nothing to resolve yet.
        let (_, object) = try parser.indirectObject(length: { _ in nil })
        guard let stream = object.streamValue else {
            throw PDFError.malformed("neither 'xref' nor a cross-reference stream", at: offset)
        }
        return try CrossReferenceReader.stream(stream, work: work)
    }
}

extension CrossReferenceEntry: CustomStringConvertible {
    public var description: String {
        switch self {
        case .free: "free"
        case .inFile(let offset, let generation): "byte \(offset) (generation \(generation))"
        case .inObjectStream(let stream, let index): "object stream \(stream), index \(index)"
        }
    }
}

/// Reads cross-reference sections: the classic table and the stream.
enum CrossReferenceReader {
    /// The table at `offset` (the lexer on the keyword `xref`) and its trailer. Written as the
    /// format writes it, nothing else: `xref`, then subsections (a line `first count`, then that
    /// many 20-byte entries `nnnnnnnnnn ggggg n` with a two-byte end of line), then `trailer`;
    /// between them only spaces and ends of line. A table of another shape makes qpdf rebuild the
    /// file and others read it token by token (skipping comments, NULs): two readings.
    static func table(_ bytes: [UInt8], at offset: Int) throws -> CrossReferenceSection {
        var lexer = PDFLexer(bytes, at: offset)
        guard lexer.hasKeyword("xref", at: offset) else { throw PDFError.malformed("expected 'xref'", at: offset) }
        lexer.position += 4
        func skipLineSpace() { while let b = lexer.peek, b == 0x20 || b == 0x0D || b == 0x0A { lexer.position += 1 } }
        func number() -> Int? {
            let from = lexer.position
            var v = 0
            while let b = lexer.peek, (0x30...0x39).contains(b), lexer.position - from < 8 { v = v * 10 + Int(b - 0x30); lexer.position += 1 }
            guard lexer.position > from, lexer.peek.map({ !(0x30...0x39).contains($0) }) ?? true else { return nil }
            return v
        }
        var entries: [(Int, CrossReferenceEntry)] = []
        while true {
            skipLineSpace()
            let at = lexer.position
            if lexer.hasKeyword("trailer", at: at) { lexer.position += 7; break }
            func notASubsection() -> PDFError {
                PDFError.ambiguous("a cross-reference table with something other than a subsection ('first count'), entries or 'trailer'", at: at)
            }
            guard let first = number(), lexer.peek == 0x20 else { throw notASubsection() }
            while lexer.peek == 0x20 { lexer.position += 1 }
            guard let count = number(), first <= PDFLimits.maxObjectNumber, count <= PDFLimits.maxObjectNumber + 1 - first else {
                throw notASubsection()
            }
            guard entries.count + count <= PDFLimits.maxCrossReferenceEntries else {
                throw PDFError.tooLarge("a cross-reference table of more than \(PDFLimits.maxCrossReferenceEntries) entries", at: at)
            }
            // The subsection's line ends; its entries follow.
            while lexer.peek == 0x20 { lexer.position += 1 }
            if lexer.peek == 0x0D { lexer.position += 1 }
            if lexer.peek == 0x0A { lexer.position += 1 }
            for i in 0..<count {
                let line = lexer.position
                guard let (place, generation, inUse) = Self.entry(bytes, at: line) else {
                    throw PDFError.ambiguous("a cross-reference entry that is not the format's 20 bytes "
                                             + "('nnnnnnnnnn ggggg n' and a two-byte end of line)", at: line)
                }
                lexer.position += 20
                // Whether an object is really there is checked against the file's objects.
                entries.append((first + i, inUse ? .inFile(offset: place, generation: generation) : .free))
            }
        }
        var parser = PDFParser(bytes, at: lexer.position)
        guard case .dictionary(let trailer) = try parser.object() else {
            throw PDFError.malformed("the trailer is not a dictionary", at: lexer.position)
        }
        return CrossReferenceSection(kind: .table, entries: entries, trailer: trailer, end: parser.position)
    }

    /// The 20-byte entry at `at`: its offset, generation, and whether it is in use (`n`).
    private static func entry(_ bytes: [UInt8], at: Int) -> (Int, Int, Bool)? {
        guard at + 20 <= bytes.count else { return nil }
        func digits(_ range: Range<Int>) -> Int? {
            var v = 0
            for i in range {
                guard (0x30...0x39).contains(bytes[at + i]) else { return nil }
                v = v * 10 + Int(bytes[at + i] - 0x30)
            }
            return v
        }
        guard let offset = digits(0..<10), bytes[at + 10] == 0x20, let generation = digits(11..<16), bytes[at + 16] == 0x20,
              bytes[at + 17] == UInt8(ascii: "n") || bytes[at + 17] == UInt8(ascii: "f") else { return nil }
        switch (bytes[at + 18], bytes[at + 19]) {
        case (0x20, 0x0D), (0x20, 0x0A), (0x0D, 0x0A): return (offset, generation, bytes[at + 17] == UInt8(ascii: "n"))
        default: return nil
        }
    }

    /// A cross-reference stream (already read as an object): its entries, its dictionary the trailer.
    static func stream(_ stream: PDFStream, work: PDFWork) throws -> CrossReferenceSection {
        let dictionary = stream.dictionary
        guard dictionary["Type"]?.nameValue == "XRef" else { throw PDFError.malformed("the object at startxref is neither 'xref' nor a /Type /XRef stream") }
        guard let items = dictionary["W"]?.arrayValue, case let widths = items.compactMap(\.integerValue), widths.count == 3, items.count == 3,
              widths.allSatisfy({ (0...8).contains($0) }) else {
            throw PDFError.malformed("a cross-reference stream's /W is not three widths of 0–8 bytes")
        }
        guard let sizeValue = dictionary["Size"]?.integerValue, sizeValue > 0, sizeValue <= Int64(PDFLimits.maxObjectNumber + 1) else {
            throw PDFError.malformed("a cross-reference stream without a usable /Size")
        }
        var ranges: [(first: Int, count: Int)] = []
        if let index = dictionary["Index"]?.arrayValue {
            let numbers = index.compactMap(\.integerValue)
            guard numbers.count == index.count, numbers.count % 2 == 0 else { throw PDFError.malformed("a cross-reference stream's /Index is not pairs of integers") }
            for pair in Swift.stride(from: 0, to: numbers.count, by: 2) {
                guard let first = PDFObject.objectNumber(numbers[pair]), numbers[pair + 1] >= 0,
                      numbers[pair + 1] <= Int64(PDFLimits.maxObjectNumber + 1 - first) else {
                    throw PDFError.malformed("a cross-reference stream's /Index has the range \(numbers[pair]) +\(numbers[pair + 1])")
                }
                ranges.append((first, Int(numbers[pair + 1])))
            }
        } else {
            ranges = [(0, Int(sizeValue))]
        }
        let total = ranges.reduce(0) { $0 + $1.count }   // each ≤ 2^23, pairs ≤ 50 000: no overflow
        guard total <= PDFLimits.maxCrossReferenceEntries else {
            throw PDFError.tooLarge("a cross-reference stream of \(total) entries")
        }
        let w = widths.map { Int($0) }
        let entryBytes = w[0] + w[1] + w[2]
        guard entryBytes > 0 else { throw PDFError.malformed("a cross-reference stream's /W is [0 0 0]") }
        let data = try within("its data", { try StreamDecoder.decode(stream, work: work) })
        guard data.count == total * entryBytes else {
            throw PDFError.ambiguous("a cross-reference stream holds \(data.count) bytes where /Index and /W say \(total * entryBytes)")
        }
        func field(_ at: Int, _ width: Int) -> UInt64 {
            var v: UInt64 = 0
            for i in at..<(at + width) { v = v << 8 | UInt64(data[i]) }
            return v
        }
        var entries: [(Int, CrossReferenceEntry)] = []
        entries.reserveCapacity(total)
        var at = 0
        for range in ranges {
            for number in range.first..<(range.first + range.count) {
                let type = w[0] == 0 ? 1 : field(at, w[0])
                let second = field(at + w[0], w[1]), third = field(at + w[0] + w[1], w[2])
                at += entryBytes
                switch type {
                case 0: entries.append((number, .free))
                case 1:
                    guard third <= UInt64(PDFLimits.maxGeneration) else {
                        throw PDFError.malformed("object \(number) is given generation \(third)")
                    }
                    // Whether an object is really there is checked against the file's objects.
                    entries.append((number, .inFile(offset: Int(clamping: second), generation: Int(third))))
                case 2:
                    guard second <= UInt64(PDFLimits.maxObjectNumber), third < UInt64(PDFLimits.maxObjectsInStream) else {
                        throw PDFError.malformed("object \(number) is said to be object \(third) of object stream \(second)")
                    }
                    entries.append((number, .inObjectStream(stream: Int(second), index: Int(third))))
                default:
                    continue   // types 3 and up: references to them are null (ISO 32000-1, 7.5.8.3)
                }
            }
        }
        return CrossReferenceSection(kind: .stream, entries: entries, trailer: dictionary)
    }
}
