// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: reading a stroke journal (`StrokeJournal.parse`: header, record lengths,
// CRC-32, the JSON edit, the packed samples after it, the restore of each edit). A mutated
// record almost never keeps a right CRC, so by default the target writes each record's CRC
// over before parsing (records are walked by their length fields, the way the reader does);
// an input whose last byte is odd is parsed as it is, so the checksum path stays fuzzed too.
// Anything may be cut off as damaged; nothing may trap.
import CZlib
import Glibc
@testable import InkCore
@testable import InkStorage

private let magic = StrokeJournal.magic

#if INKKIOSK_FUZZ_BUILD
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    fuzzJournal(data, size)
}
#endif

/// One input, as libFuzzer gives it (the fuzz build) or the seed replay of `swift test` does.
public func fuzzJournal(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let last = bytes.last, last & 1 == 0 { fixChecksums(&bytes) }
    var context = RestoreContext(reader: ClockAnchor(wall: 1_700_000_000, mono: 1000))
    let (edits, good, _) = StrokeJournal.parse(bytes, &context)
    precondition(good <= bytes.count && edits.count <= bytes.count, "parse reported more than it read")
    return 0
}

private func fixChecksums(_ bytes: inout [UInt8]) {
    guard bytes.count >= magic.count, bytes[0..<magic.count].elementsEqual(magic) else { return }
    var at = magic.count
    while at + 8 <= bytes.count {
        let length = (0..<4).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) }
        guard length <= bytes.count - at - 8 else { return }
        let crc = bytes.withUnsafeBufferPointer { UInt32(crc32(0, $0.baseAddress! + at + 8, UInt32(length))) }
        for k in 0..<4 { bytes[at + 4 + k] = UInt8(truncatingIfNeeded: crc >> (8 * k)) }
        at += 8 + length
    }
}

// `INKKIOSK_FUZZ_JOURNAL_SEEDS=DIR fuzz-journal` writes the seed journals with the real writer
// (`StrokeJournal.append`) into DIR and exits: how Tests/Fuzz/corpus/journal was made.
#if INKKIOSK_FUZZ_BUILD
@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> CInt {
    guard let dir = getenv("INKKIOSK_FUZZ_JOURNAL_SEEDS").map({ String(cString: $0) }) else { return 0 }
    func stroke(_ id: Int, _ tool: ToolKind, _ source: StrokeSource, points: Int, tilt: Bool = false) -> Stroke {
        var samples: [Sample] = []
        for k in 0..<points {
            let d = Double(k)
            let x: Double = 100 + d * 7
            let y: Double = 200 + Double(k * k % 13)
            let pressure: Double = 0.2 + Double(k % 5) / 10
            let time: Double = 1000.5 + d / 200
            let altitude: Double = tilt ? 0.9 : Double.pi / 2
            let azimuth: Double = tilt ? 0.3 * d : 0
            samples.append(Sample(location: Point(x, y), pressure: pressure, altitude: altitude, azimuth: azimuth,
                                  distance: nil, time: time, isCoalesced: k % 3 != 2))
        }
        return Stroke(id: id, brush: .standard(tool), source: source, samples: samples, state: .done)
    }
    let journals: [(String, [NotebookEdit])] = [
        ("empty", []),
        ("one-stroke", [.page(0, .added(stroke(1, .pen, .pen(device: 4), points: 12)))]),
        ("undo-redo-erase", [.page(0, .added(stroke(1, .pen, .pen(device: 4), points: 5))),
                             .page(0, .added(stroke(2, .highlighter, .pen(device: 4), points: 3))),
                             .page(0, .undo), .page(0, .redo), .page(0, .erased([1])), .page(0, .clear)]),
        ("pages", [.page(0, .added(stroke(1, .calligraphy, .pen(device: 2), points: 8, tilt: true))), .addPage, .turn(to: 1),
                   .page(1, .added(stroke(2, .pen, .finger(device: 3, slot: 1), points: 4))), .turn(to: 0)]),
        ("placed", [.page(0, .placed(stroke(7, .pen, .pen(device: 4), points: 2))), .page(0, .added(stroke(8, .debug, .pen(device: 4), points: 1)))]),
    ]
    for (name, edits) in journals {
        let path = "\(dir)/\(name).inkj"
        unlink(path)
        do {
            let journal = try StrokeJournal(path: path, clock: ClockAnchor(wall: 1_790_000_000, mono: 100))
            try journal.append(edits, deviceNames: [4: "Wacom Intuos Pro M Pen", 2: "Huion pen", 3: "ELAN touch"])
        } catch {
            fatalError("\(path): \(error)")
        }
    }
    exit(0)
}
#endif
