// SPDX-License-Identifier: Apache-2.0
/// Reads objects from tokens: direct objects (`12 0 R` as a reference), and indirect objects
/// (`12 0 obj … endobj`) with their streams. Nesting is bounded by `PDFLimits.maxNesting`, so a
/// file of a million `[` is an error, not a stack overflow. It reads one way only: a key given
/// twice, a stream whose /Length does not end at `endstream`, an object not closed by `endobj`
/// are refused (`.ambiguous`), not guessed at, since other readers guess differently.
struct PDFParser {
    var lexer: PDFLexer
    /// Values parsed so far (what the document's `PDFWork` is charged).
    var parsedValues = 0

    /// Gives the value of a stream's indirect /Length (the document's resolver), or nil when it
    /// cannot be had.
    typealias LengthResolver = (PDFReference) throws -> Int64?

    init(_ bytes: [UInt8], at position: Int = 0, end: Int? = nil) {
        lexer = PDFLexer(bytes, at: position, end: end)
    }

    var position: Int { lexer.position }

    /// The next token, which must exist.
    private mutating func token() throws -> PDFToken {
        let at = lexer.position
        guard let t = try lexer.next() else { throw PDFError.malformed("the data ends where an object was expected", at: at) }
        return t
    }

    /// One direct object (a reference stays a reference).
    mutating func object(depth: Int = 0) throws -> PDFObject {
        guard depth < PDFLimits.maxNesting else {
            throw PDFError.tooLarge("arrays and dictionaries nested more than \(PDFLimits.maxNesting) deep", at: lexer.position)
        }
        let start = lexer.position
        parsedValues += 1
        switch try token() {
        case .integer(let v):
            if let r = referenceAfter(v) { return .reference(r) }
            return .integer(v)
        case .real(let v): return .real(v)
        case .string(let s): return .string(s)
        case .name(let n): return .name(n)
        case .arrayOpen:
            var items: [PDFObject] = []
            while true {
                lexer.skipSpace()
                if lexer.peek == UInt8(ascii: "]") { lexer.position += 1; return .array(items) }
                guard items.count < PDFLimits.maxArrayCount else {
                    throw PDFError.tooLarge("an array of more than \(PDFLimits.maxArrayCount) elements", at: start)
                }
                items.append(try object(depth: depth + 1))
            }
        case .dictionaryOpen:
            return .dictionary(try dictionaryBody(depth: depth, start: start))
        case .keyword(let word):
            switch String(decoding: word, as: UTF8.self) {
            case "true": return .bool(true)
            case "false": return .bool(false)
            case "null": return .null
            default: throw PDFError.malformed("expected an object, found \(PDFToken.keyword(word).text)", at: start)
            }
        case let other:
            throw PDFError.malformed("expected an object, found \(other.text)", at: start)
        }
    }

    /// After `<<`: keys and values up to `>>`. A key given twice is refused: poppler, qpdf and
    /// pdf.js keep its last value, others its first, so the file would show one thing and be
    /// signed as another.
    private mutating func dictionaryBody(depth: Int, start: Int) throws -> PDFDictionary {
        var dictionary = PDFDictionary()
        var keys = Set<PDFName>()
        while true {
            let at = lexer.position
            lexer.skipSpace()
            let keyAt = lexer.position
            switch try token() {
            case .dictionaryClose: return dictionary
            case .name(let key):
                guard keys.count < PDFLimits.maxDictionaryCount else {
                    throw PDFError.tooLarge("a dictionary of more than \(PDFLimits.maxDictionaryCount) entries", at: start)
                }
                guard keys.insert(key).inserted else {
                    throw PDFError.ambiguous("the key \(key) is given twice in one dictionary (readers disagree on which value counts)", at: keyAt)
                }
                dictionary.appendUnlessNull(key, try object(depth: depth + 1))
            case let other:
                throw PDFError.malformed("expected a name as a dictionary's key or '>>', found \(other.text)", at: at)
            }
        }
    }

    /// `number generation R` after an integer already read: the reference, with the lexer past
    /// it; else nil, with the lexer where it was.
    private mutating func referenceAfter(_ number: Int64) -> PDFReference? {
        let saved = lexer.position
        if let n = PDFObject.objectNumber(number),
           case .integer(let g)? = try? lexer.next(), let generation = PDFObject.generationNumber(g),
           case .keyword(let word)? = try? lexer.next(), word == [UInt8(ascii: "R")] {
            return PDFReference(n, generation)
        }
        lexer.position = saved
        return nil
    }

    /// `n g obj` at the lexer's position: the object's number and generation.
    mutating func objectHeader() throws -> PDFReference {
        let at = lexer.position
        guard case .integer(let n)? = try? lexer.next(), let number = PDFObject.objectNumber(n),
              case .integer(let g)? = try? lexer.next(), let generation = PDFObject.generationNumber(g),
              case .keyword(let word)? = try? lexer.next(), word.elementsEqual("obj".utf8) else {
            throw PDFError.malformed("expected an object's header ('12 0 obj')", at: at)
        }
        return PDFReference(number, generation)
    }

    /// An indirect object at the lexer's position, through its `endobj`: its header, its object
    /// and, after a dictionary, its stream's bytes (/Length direct, or indirect through `length`).
    mutating func indirectObject(length: LengthResolver) throws -> (PDFReference, PDFObject) {
        let reference = try objectHeader()
        var value = try object()
        if case .dictionary(let dictionary) = value {
            lexer.skipSpace()
            if lexer.hasKeyword("stream", at: lexer.position) {
                lexer.position += 6
                let data = try streamData(dictionary, length: length)
                value = .stream(PDFStream(dictionary: dictionary, data: data))
            }
        }
        lexer.skipSpace()
        guard lexer.hasKeyword("endobj", at: lexer.position) else {
            throw PDFError.ambiguous("object \(reference.number) \(reference.generation) is not closed by 'endobj' where it ends "
                                     + "(readers differ on what follows)", at: lexer.position)
        }
        lexer.position += 6
        return (reference, value)
    }

    /// After the keyword `stream`: its end of line (CRLF or LF; a lone CR, or none, leaves readers
    /// to disagree on the first byte), then exactly /Length bytes, then `endstream`. A wrong
    /// /Length is refused: readers that search for `endstream` instead each find another one.
    private mutating func streamData(_ dictionary: PDFDictionary, length: LengthResolver) throws -> ArraySlice<UInt8> {
        let keyword = lexer.position - 6
        if lexer.peek == 0x0D, lexer.byte(at: lexer.position + 1) == 0x0A {
            lexer.position += 2
        } else if lexer.peek == 0x0A {
            lexer.position += 1
        } else {
            throw PDFError.ambiguous("'stream' not followed by an end of line (CRLF or LF)", at: keyword)
        }
        let start = lexer.position
        let declared: Int64?
        switch dictionary["Length"] {
        case .integer(let v)?: declared = v
        case .reference(let r)?: declared = try length(r)
        default: declared = nil
        }
        guard let declared else {
            throw PDFError.malformed("a stream without a usable /Length", at: keyword)
        }
        guard declared >= 0, declared <= Int64(lexer.end - start) else {
            throw PDFError.malformed("a stream's /Length \(declared) goes past the end of the file", at: start)
        }
        let end = start + Int(declared)
        var probe = PDFLexer(lexer.bytes, at: end, end: lexer.end)
        probe.skipSpace()
        guard probe.hasKeyword("endstream", at: probe.position) else {
            throw PDFError.ambiguous("a stream's /Length \(declared) does not end at 'endstream' (readers that search for it "
                                     + "find different data)", at: end)
        }
        lexer.position = probe.position + 9
        return lexer.bytes[start..<end]
    }

    /// The first place at or after `from` (and before `to`) where `needle` starts.
    static func find(_ needle: [UInt8], in bytes: [UInt8], from: Int, to: Int) -> Int? {
        guard let first = needle.first, from >= 0, to <= bytes.count, to - from >= needle.count else { return nil }
        var i = from
        let last = to - needle.count
        while i <= last {
            if bytes[i] == first, bytes[i..<(i + needle.count)].elementsEqual(needle) { return i }
            i += 1
        }
        return nil
    }

    /// The last place before `to` (and at or after `from`) where `needle` starts.
    static func findLast(_ needle: [UInt8], in bytes: [UInt8], from: Int, to: Int) -> Int? {
        guard let first = needle.first, from >= 0, to <= bytes.count, to - from >= needle.count else { return nil }
        var i = to - needle.count
        while i >= from {
            if bytes[i] == first, bytes[i..<(i + needle.count)].elementsEqual(needle) { return i }
            i -= 1
        }
        return nil
    }
}
