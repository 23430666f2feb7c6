// SPDX-License-Identifier: Apache-2.0
import CZlib

/// FlateDecode through zlib: inflate with a bound on what comes out (a few KB of a hostile
/// file must not become gigabytes), deflate for the streams the update writes.
enum Zlib {
    /// The data inflated, at most `limit` bytes. Only whole zlib data is read: a stream cut
    /// short (no end marker) or with more than white space after its end is refused as having two
    /// readings (readers keep what inflated, or drop the stream, or repair it, each its own way);
    /// corrupt data is an error.
    static func inflate(_ input: ArraySlice<UInt8>, limit: Int = PDFLimits.maxDecodedStreamBytes) throws -> [UInt8] {
        var stream = z_stream()
        var status = inflateInit_(&stream, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else { throw PDFError.unsupported("zlib could not start (status \(status))") }
        defer { inflateEnd(&stream) }
        // zlib counts in UInt32; a PDF of up to `PDFLimits.maxFileBytes` fits.
        guard input.count <= Int(UInt32.max) else { throw PDFError.tooLarge("a compressed stream of \(input.count) bytes") }
        // An empty stream is empty for every reader.
        if input.isEmpty { return [] }

        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        try input.withUnsafeBufferPointer { source in
            // An empty stream has no base address; zlib then reports a buffer error below.
            stream.next_in = UnsafeMutablePointer(mutating: source.baseAddress)
            stream.avail_in = UInt32(source.count)
            try chunk.withUnsafeMutableBufferPointer { buffer in
                guard let base = buffer.baseAddress else { return }
                repeat {
                    stream.next_out = base
                    stream.avail_out = UInt32(buffer.count)
                    status = CZlib.inflate(&stream, Z_NO_FLUSH)
                    let produced = buffer.count - Int(stream.avail_out)
                    guard out.count <= limit - produced else {
                        throw PDFError.tooLarge("a stream that inflates to more than \(limit) bytes")
                    }
                    out.append(contentsOf: buffer[0..<produced])
                    switch status {
                    case Z_OK: continue
                    case Z_STREAM_END:
                        let rest = source.suffix(Int(stream.avail_in))
                        guard rest.allSatisfy(PDFLexer.isWhitespace) else {
                            throw PDFError.ambiguous("\(rest.count) bytes follow the end of the compressed data")
                        }
                        return
                    case Z_BUF_ERROR:
                        throw PDFError.ambiguous("the compressed data is cut short (no end marker, after \(out.count) bytes out)")
                    default:
                        let reason = stream.msg.map { String(cString: $0) } ?? "status \(status)"
                        throw PDFError.malformed("the compressed data is damaged (zlib: \(reason), after \(out.count) bytes out)")
                    }
                } while true
            }
        }
        return out
    }

    /// The data deflated as a zlib stream (FlateDecode), at zlib's default level.
    static func deflate(_ input: [UInt8]) throws -> [UInt8] {
        var size = compressBound(uLong(input.count))
        var out = [UInt8](repeating: 0, count: Int(size))
        let status = out.withUnsafeMutableBufferPointer { o in
            input.withUnsafeBufferPointer { i in
                compress2(o.baseAddress, &size, i.baseAddress, uLong(i.count), Z_DEFAULT_COMPRESSION)
            }
        }
        guard status == Z_OK else { throw PDFError.unsupported("zlib could not compress (status \(status))") }
        out.removeLast(out.count - Int(size))
        return out
    }
}

/// The PNG predictors (/Predictor 10–15) that PDF writers put on cross-reference and object
/// streams: each row a filter byte (None, Sub, Up, Average, Paeth) then the row's bytes. And
/// TIFF's predictor 2 for 8-bit components; /Predictor 1 is none.
enum Predictor {
    static func decode(_ data: [UInt8], parameters: PDFDictionary?) throws -> [UInt8] {
        guard let parameters else { return data }
        func integer(_ key: PDFName, _ fallback: Int64) -> Int64 { parameters[key]?.integerValue ?? fallback }
        let predictor = integer("Predictor", 1)
        if predictor == 1 { return data }
        let colors = integer("Colors", 1), bits = integer("BitsPerComponent", 8), columns = integer("Columns", 1)
        guard (1...32).contains(colors), [1, 2, 4, 8, 16].contains(bits), (1...(1 << 20)).contains(columns) else {
            throw PDFError.unsupported("a predictor with /Colors \(colors), /BitsPerComponent \(bits), /Columns \(columns)")
        }
        // Both at most 2^20 · 32 · 16 / 8: no overflow.
        let rowBytes = Int((columns * colors * bits + 7) / 8)
        let pixelBytes = Int(max(1, colors * bits / 8))
        switch predictor {
        case 2:
            guard bits == 8 else { throw PDFError.unsupported("the TIFF predictor with \(bits)-bit components") }
            return tiff(data, rowBytes: rowBytes, pixelBytes: pixelBytes)
        case 10...15:
            return try png(data, rowBytes: rowBytes, pixelBytes: pixelBytes)
        default:
            throw PDFError.unsupported("predictor \(predictor)")
        }
    }

    private static func png(_ data: [UInt8], rowBytes: Int, pixelBytes: Int) throws -> [UInt8] {
        let stride = rowBytes + 1
        let rows = data.count / stride   // a cut last row is dropped, as readers do
        var out = [UInt8](repeating: 0, count: rows * rowBytes)
        for row in 0..<rows {
            let filter = data[row * stride]
            let src = row * stride + 1, dst = row * rowBytes, above = dst - rowBytes
            for i in 0..<rowBytes {
                let x = data[src + i]
                let a: UInt8 = i >= pixelBytes ? out[dst + i - pixelBytes] : 0
                let b: UInt8 = row > 0 ? out[above + i] : 0
                let c: UInt8 = row > 0 && i >= pixelBytes ? out[above + i - pixelBytes] : 0
                switch filter {
                case 0: out[dst + i] = x
                case 1: out[dst + i] = x &+ a
                case 2: out[dst + i] = x &+ b
                case 3: out[dst + i] = x &+ UInt8((UInt16(a) + UInt16(b)) / 2)
                case 4: out[dst + i] = x &+ paeth(a, b, c)
                default: throw PDFError.malformed("a PNG row filter \(filter) in row \(row) (0–4 exist)")
                }
            }
        }
        return out
    }

    private static func paeth(_ a: UInt8, _ b: UInt8, _ c: UInt8) -> UInt8 {
        let p = Int(a) + Int(b) - Int(c)
        let pa = abs(p - Int(a)), pb = abs(p - Int(b)), pc = abs(p - Int(c))
        if pa <= pb && pa <= pc { return a }
        return pb <= pc ? b : c
    }

    private static func tiff(_ data: [UInt8], rowBytes: Int, pixelBytes: Int) -> [UInt8] {
        var out = data
        for start in Swift.stride(from: 0, to: out.count, by: rowBytes) {
            let end = min(start + rowBytes, out.count)
            for i in (start + pixelBytes)..<max(start + pixelBytes, end) { out[i] = out[i] &+ out[i - pixelBytes] }
        }
        return out
    }
}

/// A stream's bytes decoded: FlateDecode (with its predictor) or none. Other filters are not
/// needed for what this reader reads (cross-reference and object streams) and are refused.
/// What is inflated is charged to the document's `work`.
enum StreamDecoder {
    static func decode(_ stream: PDFStream, work: PDFWork) throws -> [UInt8] {
        let filters: [PDFObject]
        let parameters: [PDFObject]
        switch stream.dictionary["Filter"] {
        case nil: filters = []
        case .array(let list)?: filters = list
        case let single?: filters = [single]
        }
        switch stream.dictionary["DecodeParms"] {
        case .array(let list)?: parameters = list
        case let single?: parameters = [single]
        case nil: parameters = []
        }
        guard filters.count <= 1 else { throw PDFError.unsupported("a stream with \(filters.count) filters") }
        guard let filter = filters.first else {
            guard stream.data.count <= PDFLimits.maxDecodedStreamBytes else {
                throw PDFError.tooLarge("a stream of more than \(PDFLimits.maxDecodedStreamBytes) bytes")
            }
            return Array(stream.data)
        }
        guard filter.nameValue == "FlateDecode" || filter.nameValue == "Fl" else {
            throw PDFError.unsupported("the stream filter \(filter.nameValue.map(\.description) ?? filter.kindName) (only FlateDecode is read)")
        }
        let allowance = work.inflateAllowance
        let inflated: [UInt8]
        do {
            inflated = try Zlib.inflate(stream.data, limit: min(PDFLimits.maxDecodedStreamBytes, allowance))
        } catch let error as PDFError where error.kind == .tooLarge && allowance < PDFLimits.maxDecodedStreamBytes {
            throw PDFError(.overBudget, "more than \(work.limits.maxInflatedBytes >> 20) MiB to inflate")
        }
        try work.inflated(inflated.count)
        return try Predictor.decode(inflated, parameters: parameters.first?.dictionaryValue)
    }
}
