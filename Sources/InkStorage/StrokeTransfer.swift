// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import InkCore

/// Pages of finished strokes as bytes, for the process that writes a worksheet's annotated
/// PDF (the PDF helper): each stroke exactly as the journal stores it (its record's JSON and
/// its `SampleBlock`), so what the helper draws is what a restart would restore.
/// Layout: the magic, then per page a stroke count, per stroke the JSON's length, the JSON, the
/// samples' length and the samples (lengths and counts little-endian uint32).
public enum StrokeTransfer {
    static let magic = Array("inkkiosk strokes 1\n".utf8)

    public static func encode(_ pages: [[Stroke]]) throws -> [UInt8] {
        var out = magic
        let encoder = JSONEncoder()
        func put(_ n: Int) { withUnsafeBytes(of: UInt32(n).littleEndian) { out.append(contentsOf: $0) } }
        put(pages.count)
        for strokes in pages {
            put(strokes.count)
            for stroke in strokes {
                var entry = JournalEntry(.page(0, .added(stroke)))
                let block = SampleBlock.pack(brush: entry.packedBrush ?? [], entry.packed ?? [])
                entry.packedBrush = nil; entry.packed = nil
                let json = Array(try encoder.encode(entry))
                put(json.count); out += json
                put(block.count); out += block
            }
        }
        return out
    }

    /// The pages, or nil when the bytes are not what `encode` wrote (cut, or a stroke that makes no sense).
    public static func decode(_ bytes: [UInt8]) -> [[Stroke]]? {
        guard bytes.starts(with: magic) else { return nil }
        var at = magic.count
        func take() -> Int? {
            guard bytes.count - at >= 4 else { return nil }
            let v = bytes[at..<(at + 4)].withUnsafeBytes { UInt32(littleEndian: $0.loadUnaligned(as: UInt32.self)) }
            at += 4
            return Int(v)
        }
        func slice(_ n: Int) -> ArraySlice<UInt8>? {
            guard n >= 0, bytes.count - at >= n else { return nil }
            defer { at += n }
            return bytes[at..<(at + n)]
        }
        let decoder = JSONDecoder()
        var context = RestoreContext(reader: ClockAnchor(wall: 0, mono: 0))
        guard let pageCount = take(), pageCount <= Notebook.maxPages else { return nil }
        var pages: [[Stroke]] = []
        for _ in 0..<pageCount {
            guard let count = take(), count <= bytes.count else { return nil }
            var strokes: [Stroke] = []
            for _ in 0..<count {
                guard let jsonLength = take(), let json = slice(jsonLength), let blockLength = take(), let block = slice(blockLength),
                      var entry = try? decoder.decode(JournalEntry.self, from: Data(json)),
                      let unpacked = SampleBlock.unpack(block) else { return nil }
                entry.packedBrush = unpacked.brush
                entry.packed = unpacked.samples
                guard case .page(_, .added(let stroke))? = entry.edit(&context) else { return nil }
                strokes.append(stroke)
            }
            pages.append(strokes)
        }
        return at == bytes.count ? pages : nil
    }
}
