/// Reads objects from tokens: direct objects (`12 0 R` as a reference), and indirect objects
/// (`12 0 obj … endobj`) with their streams. Nesting is bounded by `PDFLimits.maxNesting`, so a
/// file of a million `[` is an error, not a stack overflow.
struct PDFParser {
    var lexer: PDFLexer

    /// Gives the value of a stream's indirect /Length (the document's resolver), or nil when it
    /// cannot be had; the stream's end is then found by its `endstream`.
    typealias LengthResolver = (PDFReference) -> Int64?
    /// Gives the first `endstream` at or after an offset (the document's index of them), for a
    /// stream whose /Length is wrong; nil searches the bytes.
    typealias EndstreamFinder = (Int) -> Int?

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

    /// After `<<`: keys and values up to `>>`.
    private mutating func dictionaryBody(depth: Int, start: Int) throws -> PDFDictionary {
        var dictionary = PDFDictionary()
        var seen = 0
        while true {
            let at = lexer.position
            switch try token() {
            case .dictionaryClose: return dictionary
            case .name(let key):
                seen += 1
                guard seen <= PDFLimits.maxDictionaryCount else {
                    throw PDFError.tooLarge("a dictionary of more than \(PDFLimits.maxDictionaryCount) entries", at: start)
                }
                dictionary.appendIfNew(key, try object(depth: depth + 1))
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

    /// An indirect object at the lexer's position: its header, its object and, after a
    /// dictionary, its stream's bytes (/Length direct, or indirect through `length`).
    mutating func indirectObject(length: LengthResolver, endstream: EndstreamFinder? = nil) throws -> (PDFReference, PDFObject) {
        let reference = try objectHeader()
        let value = try object()
        guard case .dictionary(let dictionary) = value else { return (reference, value) }
        let afterDictionary = lexer.position
        lexer.skipSpace()
        guard lexer.hasKeyword("stream", at: lexer.position) else {
            lexer.position = afterDictionary
            return (reference, value)
        }
        lexer.position += 6
        lexer.skipStreamEndOfLine()
        let data = try streamData(dictionary, length: length, endstream: endstream)
        return (reference, .stream(PDFStream(dictionary: dictionary, data: data)))
    }

    /// The stream's bytes from the lexer's position: /Length of them when `endstream` follows,
    /// else up to the next `endstream` (a wrong /Length is common; a missing `endstream` is not).
    private mutating func streamData(_ dictionary: PDFDictionary, length: LengthResolver,
                                     endstream: EndstreamFinder?) throws -> ArraySlice<UInt8> {
        let start = lexer.position
        let bytes = lexer.bytes
        var declared: Int64?
        switch dictionary["Length"] {
        case .integer(let v)?: declared = v
        case .reference(let r)?: declared = length(r)
        default: declared = nil
        }
        if let declared, declared >= 0, declared <= Int64(lexer.end - start) {
            let end = start + Int(declared)
            var probe = PDFLexer(bytes, at: end, end: lexer.end)
            probe.skipSpace()
            if probe.hasKeyword("endstream", at: probe.position) {
                lexer.position = probe.position + 9
                return bytes[start..<end]
            }
        }
        let next = endstream.map { $0(start) } ?? Self.find(Array("endstream".utf8), in: bytes, from: start, to: lexer.end)
        guard let found = next, found <= lexer.end - 9 else {
            throw PDFError.malformed("a stream without 'endstream'", at: start)
        }
        var end = found
        // The end of line before `endstream` is not part of the data.
        if end > start, bytes[end - 1] == 0x0A { end -= 1 }
        if end > start, bytes[end - 1] == 0x0D { end -= 1 }
        lexer.position = found + 9
        return bytes[start..<end]
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
