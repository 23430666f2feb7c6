import InkCore

/// An object stream (/Type /ObjStm) decoded: its objects' numbers and where each starts.
struct ObjectStream {
    let number: Int
    let data: [UInt8]
    let first: Int
    /// (object number, offset after /First) for each object, in the stream's order.
    let objects: [(number: Int, offset: Int)]

    init(number: Int, stream: PDFStream) throws {
        self.number = number
        let dictionary = stream.dictionary
        guard dictionary["Type"]?.nameValue == "ObjStm" else { throw PDFError.malformed("not an object stream (/Type /ObjStm)") }
        guard let n = dictionary["N"]?.integerValue, n >= 0, n <= Int64(PDFLimits.maxObjectsInStream),
              let f = dictionary["First"]?.integerValue, f >= 0 else {
            throw PDFError.malformed("an object stream without a usable /N and /First")
        }
        data = try StreamDecoder.decode(stream)
        guard f <= Int64(data.count) else { throw PDFError.malformed("an object stream's /First (\(f)) is past its data (\(data.count) bytes)") }
        first = Int(f)
        var lexer = PDFLexer(data, end: first)
        var objects: [(Int, Int)] = []
        objects.reserveCapacity(Int(n))
        for i in 0..<Int(n) {
            let at = lexer.position
            guard case .integer(let objectNumber)? = try lexer.next(), let objectNumber = PDFObject.objectNumber(objectNumber),
                  case .integer(let offset)? = try lexer.next(), offset >= 0, offset < Int64(data.count - first) else {
                throw PDFError.malformed("object stream entry \(i) is not 'number offset' within the stream (decoded byte \(at))")
            }
            objects.append((objectNumber, Int(offset)))
        }
        self.objects = objects
    }

    /// Object `number`, said to be the `index`th: that one if its number matches, else the one
    /// of that number (writers have been seen to get the index wrong, never the number).
    func object(number: Int, index: Int) throws -> PDFObject {
        let slot: Int
        if index < objects.count, objects[index].number == number {
            slot = index
        } else if let found = objects.firstIndex(where: { $0.number == number }) {
            slot = found
        } else {
            throw PDFError.malformed("object stream \(self.number) 0 does not hold object \(number)")
        }
        let start = first + objects[slot].offset
        var parser = PDFParser(data, at: start)
        return try within("object \(number) in object stream \(self.number) (offsets in its decoded data)") {
            try parser.object()
        }
    }

    var byteCount: Int { data.count + objects.count * 16 }
}

/// Objects already read, and decoded object streams, kept between lookups (reading a page
/// tree asks for the same nodes and the same object stream hundreds of times): at most
/// `PDFLimits.maxCachedObjects` objects and `PDFLimits.maxCachedObjectStreamBytes` of streams,
/// all forgotten when either is full. Shared by copies of a document and safe from any thread.
final class ObjectCache: @unchecked Sendable {
    private let lock = Lock()
    private var objects: [PDFReference: PDFObject] = [:]
    private var streams: [Int: ObjectStream] = [:]
    private var streamBytes = 0

    func object(_ reference: PDFReference, load: () throws -> PDFObject) throws -> PDFObject {
        if let cached = lock.withLock({ objects[reference] }) { return cached }
        let loaded = try load()
        lock.withLock {
            if objects.count >= PDFLimits.maxCachedObjects { objects.removeAll() }
            objects[reference] = loaded
        }
        return loaded
    }

    /// Where the first `endstream` at or after `offset` is. A stream whose /Length is wrong is
    /// ended by the next one: the file is searched once, not once for each such stream (a
    /// hostile file of many would make that a search of the whole file each time).
    func endstream(after offset: Int, in bytes: [UInt8]) -> Int? {
        let positions: [Int] = lock.withLock {
            if let known = endstreams { return known }
            var found: [Int] = []
            var at = 0
            while let next = PDFParser.find(Self.endstreamKeyword, in: bytes, from: at, to: bytes.count) {
                found.append(next)
                at = next + 1
            }
            endstreams = found
            return found
        }
        var low = 0, high = positions.count
        while low < high {
            let middle = (low + high) / 2
            if positions[middle] < offset { low = middle + 1 } else { high = middle }
        }
        return low < positions.count ? positions[low] : nil
    }

    private static let endstreamKeyword = Array("endstream".utf8)
    private var endstreams: [Int]?

    func stream(_ number: Int, load: () throws -> ObjectStream) throws -> ObjectStream {
        if let cached = lock.withLock({ streams[number] }) { return cached }
        let loaded = try load()
        lock.withLock {
            if streamBytes + loaded.byteCount > PDFLimits.maxCachedObjectStreamBytes { streams.removeAll(); streamBytes = 0 }
            streams[number] = loaded
            streamBytes += loaded.byteCount
        }
        return loaded
    }
}
