// SPDX-License-Identifier: Apache-2.0
import CZlib
import Dispatch
import FoundationEssentials
import Glibc
import InkCore

/// Writes an image surface as PNG through zlib, at a compression level chosen for speed.
///
/// cairo's own PNG writer goes through libpng at zlib's default level with libpng's adaptive
/// row filters: on a 1920x1080 page of ink that is most of what writing the picture costs. Ink
/// on paper is long runs of one colour, which deflate's fastest level packs well without any
/// row filter (smaller than cairo's file, in a fraction of the time). The rows are deflated in
/// bands on every core, each band its own run of deflate blocks ending on a byte boundary, so
/// that one zlib stream holds them all, as parallel gzip does. The pixels are exactly cairo's:
/// RGB for an XRGB surface, RGBA (un-premultiplied, with cairo's rounding) for an ARGB one.
public enum PNGEncoder {
    /// zlib's level 1, its fastest that still compresses. docs/BENCHMARKS.md has
    /// the sizes and times against cairo's writer.
    public static let defaultLevel: Int32 = 1

    /// Bands are at least this many rows (a small image is one band).
    static let minimumBandRows = 128

    /// The image as a PNG file's bytes.
    public static func encode(_ image: ImageSurface, level: Int32 = defaultLevel) throws -> Data {
        let width = image.size.width, height = image.size.height
        let channels = image.format == .xrgb ? 3 : 4
        let rowBytes = 1 + width * channels   // the filter byte, then the pixels

        let bandCount = max(1, min(ProcessInfo.processInfo.activeProcessorCount, 4, height / minimumBandRows))
        let bandRows = (height + bandCount - 1) / max(bandCount, 1)
        let bands = (0..<bandCount).map { b in b * bandRows..<min(height, (b + 1) * bandRows) }.filter { !$0.isEmpty }
        let results = ParallelResults<Band>(count: bands.count, what: "a band of the PNG")

        // (No pixels at all leaves every band unwritten: `get` below says so.)
        _ = image.withPixels { data, stride in
            let pixels = Pixels(base: data, stride: stride)
            let encodeBand: @Sendable (Int) -> Void = { b in
                results.set(b, Result {
                    try deflateBand(pixels, rows: bands[b], width: width, channels: channels, rowBytes: rowBytes,
                                    level: level, last: b == bands.count - 1)
                })
            }
            if bands.count == 1 { encodeBand(0) } else { DispatchQueue.concurrentPerform(iterations: bands.count, execute: encodeBand) }
        }

        // One zlib stream: its header, the bands' deflate blocks in order, the Adler-32 of all rows.
        var idat = Data([0x78, 0x01])   // deflate, 32 KiB window, "fastest" (FCHECK makes 0x7801 a multiple of 31)
        var adler = adler32(0, nil, 0)
        for (band, rows) in zip(try results.values(), bands) {
            idat.append(band.deflated)
            adler = adler32_combine(adler, band.adler, off_t(rows.count * rowBytes))
        }
        idat.appendBigEndian(UInt32(truncatingIfNeeded: adler))

        var png = Data()
        png.reserveCapacity(idat.count + 64)
        png.append(contentsOf: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        var header = Data()
        header.appendBigEndian(UInt32(width))
        header.appendBigEndian(UInt32(height))
        // 8 bits a sample; colour type 2 (RGB) or 6 (RGBA); deflate; adaptive filtering; no interlace.
        header.append(contentsOf: [8, channels == 3 ? 2 : 6, 0, 0, 0])
        png.appendChunk("IHDR", header)
        png.appendChunk("IDAT", idat)
        png.appendChunk("IEND", Data())
        return png
    }

    /// Writes the PNG to `path` (created with mode 0666 less the umask, or truncated).
    ///
    /// Not synced: `Data.write` syncs every file it writes, which cost a replay's picture more
    /// than its deflate on a virtual disk. A file that must survive a power cut is written
    /// through `DurableFile`, which syncs it itself.
    public static func write(_ image: ImageSurface, to path: String, level: Int32 = defaultLevel) throws {
        let data = try encode(image, level: level)
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)
        guard fd >= 0 else { throw SystemCallError("create", path: path) }
        let failed: SystemCallError? = data.withUnsafeBytes { bytes in
            var done = 0
            while done < bytes.count {
                let n = Glibc.write(fd, bytes.baseAddress! + done, bytes.count - done)
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { return SystemCallError("write", path: path, errno: n < 0 ? errno : EIO) }
                done += n
            }
            return nil
        }
        if let failed { close(fd); throw failed }
        // close reports a write the file system could not complete (NFS, a full quota).
        guard close(fd) == 0 || errno == EINTR else { throw SystemCallError("close", path: path) }
    }

    // MARK: bands

    private struct Band { var deflated: Data; var adler: UInt }

    /// The surface's rows, read by several threads at once (never written); valid inside `withPixels`,
    /// which `concurrentPerform` returns within.
    private struct Pixels: @unchecked Sendable { let base: UnsafeRawPointer; let stride: Int }

    /// Rows are turned into PNG bytes and deflated this many bytes at a time: a buffer that
    /// stays in the cache, reused, instead of a copy of the whole band.
    static let groupBytes = 64 << 10

    /// PNG rows `rows` (filter byte and pixels), deflated raw: a final block for the last band,
    /// else blocks ending on a byte boundary (a sync flush) for the next band to follow.
    private static func deflateBand(_ pixels: Pixels, rows: Range<Int>, width: Int, channels: Int, rowBytes: Int,
                                    level: Int32, last: Bool) throws -> Band {
        var stream = z_stream()
        // Negative window bits: raw deflate, no zlib header or checksum (the caller writes them once).
        var status = deflateInit2_(&stream, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY,
                                   zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else { throw RenderError("cannot start zlib", zlib: status) }
        defer { deflateEnd(&stream) }

        let groupRows = max(1, groupBytes / rowBytes)
        var raw = [UInt8](repeating: 0, count: groupRows * rowBytes)
        var chunk = [UInt8](repeating: 0, count: groupBytes)
        var deflated = Data()
        var adler = adler32(0, nil, 0)
        var y = rows.lowerBound
        while y < rows.upperBound {
            let group = y..<min(y + groupRows, rows.upperBound)
            let count = group.count * rowBytes
            raw.withUnsafeMutableBufferPointer { out in
                for (n, row) in group.enumerated() {
                    convert(pixels.base.advanced(by: row * pixels.stride).assumingMemoryBound(to: UInt32.self),
                            width: width, channels: channels, into: out.baseAddress! + n * rowBytes)
                }
                adler = adler32(adler, out.baseAddress, UInt32(count))
            }
            let flush = group.upperBound < rows.upperBound ? Z_NO_FLUSH : last ? Z_FINISH : Z_SYNC_FLUSH
            try raw.withUnsafeMutableBufferPointer { input in
                try chunk.withUnsafeMutableBufferPointer { output in
                    stream.next_in = input.baseAddress
                    stream.avail_in = UInt32(count)
                    // Until zlib has taken every byte in and has nothing more to give out.
                    repeat {
                        stream.next_out = output.baseAddress
                        stream.avail_out = UInt32(output.count)
                        status = deflate(&stream, flush)
                        guard status == Z_OK || status == Z_STREAM_END || status == Z_BUF_ERROR else {
                            throw RenderError("zlib could not compress a PNG", zlib: status)
                        }
                        deflated.append(output.baseAddress!, count: output.count - Int(stream.avail_out))
                    } while stream.avail_out == 0
                }
            }
            guard stream.avail_in == 0 else { throw RenderError("zlib left part of a PNG uncompressed") }
            y = group.upperBound
        }
        guard !last || status == Z_STREAM_END else { throw RenderError("zlib did not finish a PNG", zlib: status) }
        return Band(deflated: deflated, adler: adler)
    }

    /// One row of the surface as PNG bytes: the filter byte, then RGB or RGBA.
    private static func convert(_ source: UnsafePointer<UInt32>, width: Int, channels: Int, into row: UnsafeMutablePointer<UInt8>) {
        var o = row
        o[0] = 0   // filter "None": a run of paper stays a run for deflate
        o += 1
        if channels == 3 {
            for x in 0..<width {
                let v = source[x]
                o[0] = UInt8(truncatingIfNeeded: v >> 16)
                o[1] = UInt8(truncatingIfNeeded: v >> 8)
                o[2] = UInt8(truncatingIfNeeded: v)
                o += 3
            }
            return
        }
        for x in 0..<width {
            let v = source[x]
            let a = v >> 24
            switch a {
            case 255:
                o[0] = UInt8(truncatingIfNeeded: v >> 16); o[1] = UInt8(truncatingIfNeeded: v >> 8)
                o[2] = UInt8(truncatingIfNeeded: v); o[3] = 255
            case 0:
                o[0] = 0; o[1] = 0; o[2] = 0; o[3] = 0
            default:
                // cairo's un-premultiply: (c × 255 + a / 2) / a.
                o[0] = UInt8((((v >> 16) & 0xFF) * 255 + a / 2) / a)
                o[1] = UInt8((((v >> 8) & 0xFF) * 255 + a / 2) / a)
                o[2] = UInt8(((v & 0xFF) * 255 + a / 2) / a)
                o[3] = UInt8(a)
            }
            o += 4
        }
    }
}

private extension Data {
    mutating func appendBigEndian(_ v: UInt32) {
        append(contentsOf: [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)])
    }

    /// A PNG chunk: length, type, data, and the CRC-32 of type and data.
    mutating func appendChunk(_ type: String, _ body: Data) {
        appendBigEndian(UInt32(body.count))
        let typeBytes = Array(type.utf8)
        append(contentsOf: typeBytes)
        append(body)
        var crc = typeBytes.withUnsafeBufferPointer { crc32(0, $0.baseAddress, UInt32($0.count)) }
        // (zlib reads a NULL buffer as "start over": an empty body adds nothing.)
        if !body.isEmpty {
            crc = body.withUnsafeBytes { raw in
                crc32(crc, raw.bindMemory(to: UInt8.self).baseAddress, UInt32(raw.count))
            }
        }
        appendBigEndian(UInt32(crc))
    }
}
