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
struct CrossReferenceSection {
    enum Kind: Equatable { case table, stream }
    var kind: Kind
    var entries: [(number: Int, entry: CrossReferenceEntry)]
    var trailer: PDFDictionary
}

/// The merged cross-reference of a file and how its newest section was written (which the
/// update's section must follow: a table after a table, a stream after a stream).
public struct CrossReference: Sendable {
    public enum Format: Sendable, Equatable { case table, stream }
    /// Every object's place, the newest section's word for each number.
    public private(set) var entries: [Int: CrossReferenceEntry] = [:]
    /// The trailer: the newest section's keys, then older sections' keys it lacks.
    public private(set) var trailer = PDFDictionary()
    /// The newest section's format and its offset (what `startxref` said, and what an
    /// update's /Prev must say).
    public let newestFormat: Format
    public let newestOffset: Int
    /// How many sections the /Prev chain had.
    public private(set) var sectionCount = 0

    init(newestFormat: Format, newestOffset: Int) {
        self.newestFormat = newestFormat; self.newestOffset = newestOffset
    }

    /// Adds an older section: numbers already known keep their newer entry. In a hybrid file a
    /// table's /XRefStm stream fills in what that table leaves free (`fillsFree`).
    mutating func merge(_ section: CrossReferenceSection, fillsFree: Bool = false) throws {
        for (number, entry) in section.entries {
            switch entries[number] {
            case nil: break
            case .free? where fillsFree: break
            default: continue
            }
            guard entries.count < PDFLimits.maxCrossReferenceEntries || entries[number] != nil else {
                throw PDFError.tooLarge("more than \(PDFLimits.maxCrossReferenceEntries) cross-reference entries")
            }
            entries[number] = entry
        }
        for entry in section.trailer.entries where trailer[entry.key] == nil {
            trailer[entry.key] = entry.value
        }
    }

    mutating func countSection() { sectionCount += 1 }

    /// The first number an update may give a new object: past /Size and past every number
    /// any section mentions (a wrong /Size must not make two objects share a number).
    public var nextFreeNumber: Int {
        let size = trailer["Size"]?.integerValue.flatMap { Int(exactly: $0) } ?? 0
        let highest = entries.keys.max() ?? 0
        return max(1, min(max(size, highest + 1), PDFLimits.maxObjectNumber + 1))
    }
}

/// Reads cross-reference sections: the classic table and the stream.
enum CrossReferenceReader {
    /// The table at `offset` (the lexer on the keyword `xref`) and its trailer.
    static func table(_ bytes: [UInt8], at offset: Int) throws -> CrossReferenceSection {
        var lexer = PDFLexer(bytes, at: offset)
        guard try lexer.next()?.isKeyword("xref") == true else { throw PDFError.malformed("expected 'xref'", at: offset) }
        var entries: [(Int, CrossReferenceEntry)] = []
        while true {
            let at = lexer.position
            let token = try lexer.next()
            if token?.isKeyword("trailer") == true { break }
            // A subsection: its first number and count, then the entries (`offset gen n|f`;
            // read as tokens, so that 19- and 21-byte lines from sloppy writers read too).
            guard case .integer(let first)? = token, case .integer(let count)? = try lexer.next(),
                  let start = PDFObject.objectNumber(first), count >= 0,
                  count <= Int64(PDFLimits.maxObjectNumber + 1 - start) else {
                throw PDFError.malformed("expected a subsection ('first count') or 'trailer' in the cross-reference table", at: at)
            }
            guard entries.count + Int(count) <= PDFLimits.maxCrossReferenceEntries else {
                throw PDFError.tooLarge("a cross-reference table of more than \(PDFLimits.maxCrossReferenceEntries) entries", at: at)
            }
            for i in 0..<Int(count) {
                let line = lexer.position
                guard case .integer(let place)? = try lexer.next(), case .integer(let g)? = try lexer.next(),
                      case .keyword(let type)? = try lexer.next(), type.count == 1, place >= 0,
                      let generation = PDFObject.generationNumber(g) else {
                    throw PDFError.malformed("a cross-reference entry that is not 'offset generation n|f'", at: line)
                }
                switch type[0] {
                case UInt8(ascii: "n"):
                    // An offset past the end is an error when (if ever) that object is read.
                    entries.append((start + i, .inFile(offset: Int(clamping: place), generation: generation)))
                case UInt8(ascii: "f"): entries.append((start + i, .free))
                default: throw PDFError.malformed("a cross-reference entry of type '\(Character(Unicode.Scalar(type[0])))' (n or f)", at: line)
                }
            }
        }
        var parser = PDFParser(bytes, at: lexer.position)
        guard case .dictionary(let trailer) = try parser.object() else {
            throw PDFError.malformed("the trailer is not a dictionary", at: lexer.position)
        }
        return CrossReferenceSection(kind: .table, entries: entries, trailer: trailer)
    }

    /// A cross-reference stream (already read as an object): its entries, its dictionary the trailer.
    static func stream(_ stream: PDFStream) throws -> CrossReferenceSection {
        let dictionary = stream.dictionary
        guard dictionary["Type"]?.nameValue == "XRef" else { throw PDFError.malformed("the object at startxref is neither 'xref' nor a /Type /XRef stream") }
        guard let widths = dictionary["W"]?.arrayValue?.compactMap(\.integerValue), widths.count == 3,
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
        let data = try within("its data", { try StreamDecoder.decode(stream) })
        guard data.count / entryBytes >= total else {
            throw PDFError.malformed("a cross-reference stream holds \(data.count / entryBytes) entries where /Index says \(total)")
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
                    // An offset past the end is an error when (if ever) that object is read.
                    entries.append((number, .inFile(offset: Int(clamping: second),
                                                    generation: Int(min(third, UInt64(PDFLimits.maxGeneration))))))
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
