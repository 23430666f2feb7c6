// SPDX-License-Identifier: Apache-2.0
import InkCore

/// An object stream (/Type /ObjStm), decoded once and all its objects parsed at once: the reader
/// keeps the objects, not the decoded bytes, so a page tree spread over many object streams
/// costs one inflate per stream, never one per lookup (no cache to thrash).
struct ObjectStream {
    let number: Int
    /// Its objects in the stream's order: their numbers, and what each is.
    let objects: [(number: Int, object: PDFObject)]

    /// Reads the stream's header (/N pairs of object number and offset after /First) and every
    /// object. One reading only: a number given twice, offsets out of order, or bytes between one
    /// object's end and the next one's start are refused; so is a stream (which an object stream
    /// may not hold).
    init(number: Int, stream: PDFStream, work: PDFWork) throws {
        self.number = number
        let dictionary = stream.dictionary
        guard dictionary["Type"]?.nameValue == "ObjStm" else { throw PDFError.malformed("not an object stream (/Type /ObjStm)") }
        guard let n = dictionary["N"]?.integerValue, n >= 0, n <= Int64(PDFLimits.maxObjectsInStream),
              let f = dictionary["First"]?.integerValue, f >= 0 else {
            throw PDFError.malformed("an object stream without a usable /N and /First")
        }
        let data = try StreamDecoder.decode(stream, work: work)
        guard f <= Int64(data.count) else { throw PDFError.malformed("an object stream's /First (\(f)) is past its data (\(data.count) bytes)") }
        let first = Int(f)
        var lexer = PDFLexer(data, end: first)
        var header: [(number: Int, offset: Int)] = []
        header.reserveCapacity(Int(n))
        var numbers = Set<Int>()
        for i in 0..<Int(n) {
            let at = lexer.position
            guard case .integer(let objectNumber)? = try lexer.next(), let objectNumber = PDFObject.objectNumber(objectNumber),
                  case .integer(let offset)? = try lexer.next(), offset >= 0, offset < Int64(data.count - first) else {
                throw PDFError.malformed("object stream entry \(i) is not 'number offset' within the stream (decoded byte \(at))")
            }
            guard numbers.insert(objectNumber).inserted else {
                throw PDFError.ambiguous("object stream \(number) lists object \(objectNumber) twice (decoded byte \(at))")
            }
            if let previous = header.last, Int(offset) <= previous.offset {
                throw PDFError.ambiguous("object stream \(number)'s objects are not in order of their offsets (entry \(i), decoded byte \(at))")
            }
            header.append((objectNumber, Int(offset)))
        }
        var objects: [(Int, PDFObject)] = []
        objects.reserveCapacity(header.count)
        for (i, entry) in header.enumerated() {
            let start = first + entry.offset
            let end = i + 1 < header.count ? first + header[i + 1].offset : data.count
            var parser = PDFParser(data, at: start, end: end)
            let object = try within("object \(entry.number) in object stream \(number) (offsets in its decoded data)") {
                let object = try parser.object()
                parser.lexer.skipSpace()
                guard parser.lexer.atEnd else {
                    throw PDFError.ambiguous("more follows the object before the next one starts", at: parser.lexer.position)
                }
                return object
            }
            try work.parsed(parser.parsedValues)
            objects.append((entry.number, object))
        }
        self.objects = objects
    }

    /// The object at `index`, which must be object `number`: a cross-reference that says
    /// otherwise is refused (a reader that searches the stream by number would find another).
    func object(number: Int, index: Int) throws -> PDFObject {
        guard objects.indices.contains(index) else {
            throw PDFError.ambiguous("object \(number) is said to be entry \(index) of object stream \(self.number), which has \(objects.count)")
        }
        guard objects[index].number == number else {
            throw PDFError.ambiguous("object \(number) is said to be entry \(index) of object stream \(self.number), "
                                     + "which holds object \(objects[index].number) there")
        }
        return objects[index].object
    }
}
