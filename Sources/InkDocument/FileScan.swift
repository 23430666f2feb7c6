// SPDX-License-Identifier: Apache-2.0
/// The file read from its first byte to its last, as the format lays it out: the header, then
/// objects (`12 0 obj … endobj`), cross-reference tables with their trailers, `startxref`,
/// `%%EOF`, comments and white space, in any order (linearized files and incremental updates mix
/// them), and nothing else. Every object is parsed, so every dictionary of the file is seen
/// (a key given twice anywhere is refused) and every object's place is known: what the checks
/// of `OneReading` compare with what the cross-reference sections say.
///
/// Bytes that are none of these are refused, not skipped: a reader that rebuilds a damaged file
/// finds objects in them that the cross-reference hides, which is how one file shows two documents.
struct FileScan {
    /// An object as the file holds it: its header's place, and what it is.
    struct Definition {
        var reference: PDFReference
        var offset: Int
        var object: PDFObject
    }

    private(set) var definitions: [Definition] = []
    /// Where each `xref` table starts.
    private(set) var tables: [Int] = []
    /// The `startxref` keywords: where each is and the offset it gives.
    private(set) var startxrefs: [(at: Int, value: Int)] = []
    /// The last significant things in the file: what its end must be (`startxref N %%EOF`).
    private(set) var tail: [Item] = []

    enum Item: Equatable {
        case object(Int), table(Int), startxref(Int), endOfFile(Int), comment(Int)
    }

    /// Scans `bytes`; `length` resolves a stream's indirect /Length through the cross-reference.
    static func scan(_ bytes: [UInt8], work: PDFWork, length: PDFParser.LengthResolver) throws -> FileScan {
        var scan = FileScan()
        var lexer = PDFLexer(bytes)
        while true {
            skipWhitespace(&lexer)
            guard let byte = lexer.peek else { break }
            let at = lexer.position
            if byte == UInt8(ascii: "%") {
                while let c = lexer.peek, c != 0x0A, c != 0x0D { lexer.position += 1 }
                let isEOF = bytes[at..<lexer.position].starts(with: "%%EOF".utf8)
                scan.note(isEOF ? .endOfFile(at) : .comment(at))
            } else if lexer.hasKeyword("xref", at: at) {
                let section = try within("the cross-reference table at byte \(at)") { try CrossReferenceReader.table(bytes, at: at) }
                scan.tables.append(at)
                scan.note(.table(at))
                lexer.position = section.end
            } else if lexer.hasKeyword("startxref", at: at) {
                // `startxref`, an end of line, the offset: poppler reads the digits after spaces and
                // ends of line only (a NUL or a comment there, and it rebuilds the file).
                lexer.position += 9
                while let b = lexer.peek, b == 0x20 || b == 0x0D || b == 0x0A { lexer.position += 1 }
                guard let first = lexer.peek, (0x30...0x39).contains(first), case .integer(let value)? = try lexer.next(),
                      let offset = Int(exactly: value), offset >= 0 else {
                    throw PDFError.ambiguous("'startxref' is not followed by an end of line and an offset", at: at)
                }
                scan.startxrefs.append((at, offset))
                scan.note(.startxref(at))
            } else if (0x30...0x39).contains(byte) {
                var parser = PDFParser(bytes, at: at)
                guard (try? parser.objectHeader()) != nil else {
                    throw PDFError.ambiguous("bytes that are no object, cross-reference section or comment (a reader that rebuilds "
                                             + "the file would read them its own way)", at: at)
                }
                parser = PDFParser(bytes, at: at)
                let (reference, object) = try within("the object at byte \(at)") { try parser.indirectObject(length: length) }
                try work.parsed(parser.parsedValues)
                scan.definitions.append(Definition(reference: reference, offset: at, object: object))
                scan.note(.object(at))
                lexer.position = parser.position
            } else {
                throw PDFError.ambiguous("bytes that are no object, cross-reference section or comment (a reader that rebuilds "
                                         + "the file would read them its own way)", at: at)
            }
        }
        return scan
    }

    /// White space only (comments are items of their own here).
    private static func skipWhitespace(_ lexer: inout PDFLexer) {
        while let b = lexer.peek, PDFLexer.isWhitespace(b) { lexer.position += 1 }
    }

    private mutating func note(_ item: Item) {
        tail.append(item)
        if tail.count > 3 { tail.removeFirst() }
    }

    /// The file ends as the format says: its last `startxref` gives `newest` (where the reader
    /// began), then `%%EOF`, then nothing but white space. Anything after it would be read by some
    /// readers (as an update) and not by others.
    func checkEnd(newest: Int, fileSize: Int) throws {
        guard case .endOfFile(let eof)? = tail.last else {
            let at: Int? = switch tail.last {
            case .object(let o)?, .table(let o)?, .startxref(let o)?, .comment(let o)?: o
            default: nil
            }
            throw PDFError.ambiguous("the file does not end with 'startxref', its offset and '%%EOF' (something follows the last "
                                     + "'%%EOF', or it is missing)", at: at ?? fileSize)
        }
        guard tail.count >= 2, case .startxref(let at) = tail[tail.count - 2], let last = startxrefs.last, last.at == at else {
            throw PDFError.ambiguous("the last '%%EOF' does not follow a 'startxref'", at: eof)
        }
        guard last.value == newest else {
            throw PDFError.ambiguous("the last 'startxref' gives \(last.value), where the reader began at \(newest)", at: at)
        }
    }
}
