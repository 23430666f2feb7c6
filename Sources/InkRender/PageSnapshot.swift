// SPDX-License-Identifier: Apache-2.0
import CCairo
import CZlib
import InkCore

/// A page's canvas kept while the page is not shown, so that turning back to it costs a copy
/// instead of a repaint of every stroke (700 ms at 1000 strokes). Runs of one colour (the
/// paper, solid ink) are stored once, so a page of handwriting takes a fraction of a screen.
/// A page kept off screen (`deflated`) also has its words deflated (zlib level 1): the
/// antialiased edges of ink, literal words in the runs, shrink to a fraction again.
///
/// The words: `0x8000_0000 | n` then a pixel: the pixel `n` times; `n` then `n` pixels as they are.
public struct PageSnapshot: Sendable {
    public let size: PixelSize
    /// Which backdrop the canvas was painted on (a new backdrop makes the snapshot useless).
    public let backdrop: Int
    /// The words, or none when they are kept deflated in `packed`.
    private let words: [UInt32]
    /// Where each row starts in `words` (runs never cross rows): part of a picture is written
    /// back without decoding the rows above it. None when deflated.
    private let rowStarts: [Int]
    /// The words deflated (zlib), and how many there are.
    private let packed: [UInt8]
    private let packedWords: Int
    public var bytes: Int { words.count * 4 + rowStarts.count * 8 + packed.count }

    private static let runFlag: UInt32 = 0x8000_0000
    /// Shorter runs are cheaper as literals.
    private static let minRun = 3

    /// Compresses `surface` (XRGB or ARGB, 32 bits a pixel); `deflated` for a picture kept a
    /// while and shown whole (a page off screen), not one painted from in parts (paper).
    public init(of surface: ImageSurface, backdrop: Int, deflated: Bool = false) {
        size = surface.size
        self.backdrop = backdrop
        let width = surface.size.width, height = surface.size.height
        var out: [UInt32] = []
        var starts: [Int] = []
        starts.reserveCapacity(height)
        surface.withPixels { data, stride in
            for y in 0..<height {
                starts.append(out.count)
                let row = (data + y * stride).assumingMemoryBound(to: UInt32.self)
                Self.encode(row, count: width, into: &out)
            }
        } ?? ()
        if deflated, let packed = Self.deflate(out) {
            words = []; rowStarts = []
            self.packed = packed; packedWords = out.count
        } else {
            // Exactly as long as the picture: the array grew by doubling, and up to half of it
            // would stay empty for as long as the page is kept.
            words = out.withUnsafeBufferPointer { Array($0) }
            rowStarts = starts
            packed = []; packedWords = 0
        }
    }

    /// A picture of one colour: `pixel` (as the surface's 32-bit word) everywhere.
    public init(size: PixelSize, pixel: UInt32, backdrop: Int) {
        self.size = size
        self.backdrop = backdrop
        words = Array((0..<size.height).map { _ in [Self.runFlag | UInt32(size.width), pixel] }.joined())
        rowStarts = (0..<size.height).map { $0 * 2 }
        packed = []; packedWords = 0
    }

    private static func encode(_ p: UnsafePointer<UInt32>, count: Int, into out: inout [UInt32]) {
        var i = 0
        var literalStart = 0
        func flushLiterals(upTo end: Int) {
            guard end > literalStart else { return }
            out.append(UInt32(end - literalStart))
            out.append(contentsOf: UnsafeBufferPointer(start: p + literalStart, count: end - literalStart))
        }
        while i < count {
            let v = p[i]
            var j = i + 1
            while j < count && p[j] == v { j += 1 }
            if j - i >= minRun {
                flushLiterals(upTo: i)
                out.append(runFlag | UInt32(j - i))
                out.append(v)
                literalStart = j
            }
            i = j
        }
        flushLiterals(upTo: count)
    }

    /// `words` deflated at zlib's fastest level; nil if zlib fails (the words are kept as they are).
    private static func deflate(_ words: [UInt32]) -> [UInt8]? {
        let byteCount = words.count * 4
        var size = compressBound(uLong(byteCount))
        var out = [UInt8](repeating: 0, count: Int(size))
        let status = out.withUnsafeMutableBufferPointer { o in
            words.withUnsafeBytes { i in
                compress2(o.baseAddress, &size, i.baseAddress?.assumingMemoryBound(to: Bytef.self), uLong(byteCount), 1)
            }
        }
        guard status == Z_OK else { return nil }
        return out.withUnsafeBufferPointer { Array($0[0..<Int(size)]) }
    }

    /// Calls `body` with the words, inflated first if they are kept deflated (none if that fails:
    /// the picture was made here, so only a lack of memory could).
    private func withWords<R>(_ body: (UnsafeBufferPointer<UInt32>) -> R) -> R {
        guard !packed.isEmpty else { return words.withUnsafeBufferPointer(body) }
        var inflated = [UInt32](repeating: 0, count: packedWords)
        let ok = inflated.withUnsafeMutableBytes { o in
            packed.withUnsafeBufferPointer { i in
                var length = uLong(o.count)
                return uncompress(o.baseAddress?.assumingMemoryBound(to: Bytef.self), &length,
                                  i.baseAddress, uLong(i.count)) == Z_OK && Int(length) == o.count
            }
        }
        if !ok { inflated = [] }
        return inflated.withUnsafeBufferPointer(body)
    }

    /// Writes the pixels back into `surface` (of the same size).
    public func restore(into surface: ImageSurface) {
        restore(into: surface, rows: 0..<size.height, columns: 0..<size.width)
        guard surface.size == size else { return }
        cairo_surface_mark_dirty(surface.surface)
    }

    /// Writes back only the pixels inside `r` (whole pixels; the rest of `surface` stays).
    public func restore(into surface: ImageSurface, in r: Rect) {
        let area = r.integral.intersection(Rect(x: 0, y: 0, width: Double(size.width), height: Double(size.height)))
        guard surface.size == size, area.width >= 1, area.height >= 1 else { return }
        let x0 = Int(area.minX), x1 = Int(area.maxX), y0 = Int(area.minY), y1 = Int(area.maxY)
        restore(into: surface, rows: y0..<y1, columns: x0..<x1)
        cairo_surface_mark_dirty_rectangle(surface.surface, Int32(x0), Int32(y0), Int32(x1 - x0), Int32(y1 - y0))
    }

    private func restore(into surface: ImageSurface, rows: Range<Int>, columns: Range<Int>) {
        guard surface.size == size else { return }
        let width = size.width, x0 = columns.lowerBound, x1 = columns.upperBound
        cairo_surface_flush(surface.surface)
        guard let data = cairo_image_surface_get_data(surface.surface) else { return }
        let stride = surface.stride
        withWords { w in
            var k = 0
            // Deflated words have no row starts: the rows above are walked over.
            if rowStarts.isEmpty {
                for _ in 0..<rows.lowerBound { k = Self.skipRow(w, from: k, width: width) }
            }
            for y in rows {
                if !rowStarts.isEmpty { k = rowStarts[y] }
                let row = UnsafeMutableRawPointer(data + y * stride).assumingMemoryBound(to: UInt32.self)
                var x = 0
                // To the row's end: the next row starts there.
                while x < width && k < w.count {
                    let head = w[k]
                    let n = Int(head & ~Self.runFlag)
                    let from = max(x, x0), to = min(x + n, x1)
                    if head & Self.runFlag != 0 {
                        if to > from { (row + from).update(repeating: w[k + 1], count: to - from) }
                        k += 2
                    } else {
                        if to > from { (row + from).update(from: w.baseAddress! + k + 1 + (from - x), count: to - from) }
                        k += 1 + n
                    }
                    x += n
                }
            }
        }
    }

    /// Where the row after the one starting at word `k` starts.
    private static func skipRow(_ w: UnsafeBufferPointer<UInt32>, from k: Int, width: Int) -> Int {
        var k = k, x = 0
        while x < width && k < w.count {
            let head = w[k]
            let n = Int(head & ~runFlag)
            k += head & runFlag != 0 ? 2 : 1 + n
            x += n
        }
        return k
    }
}

/// Snapshots of the pages not on screen, within a budget of bytes; the page left longest ago
/// goes first when it is exceeded.
public struct PageSnapshots: Sendable {
    public let budget: Int
    private var kept: [Int: (snapshot: PageSnapshot, revision: Int, used: Int)] = [:]
    private var clock = 0
    public private(set) var bytes = 0
    public var count: Int { kept.count }

    public init(budget: Int) { self.budget = budget }

    /// Keeps page `page`'s canvas at `revision` (its document's revision).
    public mutating func keep(_ snapshot: PageSnapshot, page: Int, revision: Int) {
        drop(page)
        guard snapshot.bytes <= budget else { return }
        clock += 1
        kept[page] = (snapshot, revision, clock)
        bytes += snapshot.bytes
        while bytes > budget, let oldest = kept.min(by: { $0.value.used < $1.value.used })?.key { drop(oldest) }
    }

    /// The snapshot of `page` if it shows `revision`; it leaves the cache (the page is about to change).
    public mutating func take(_ page: Int, revision: Int) -> PageSnapshot? {
        guard let k = kept[page] else { return nil }
        drop(page)
        return k.revision == revision ? k.snapshot : nil
    }

    public func has(_ page: Int) -> Bool { kept[page] != nil }

    public mutating func drop(_ page: Int) {
        if let k = kept.removeValue(forKey: page) { bytes -= k.snapshot.bytes }
    }

    public mutating func removeAll() { kept.removeAll(); bytes = 0 }
}
