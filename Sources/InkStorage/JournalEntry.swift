// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import Glibc
import InkCore

/// A notebook edit as the journal stores it (JSON inside a checked record). A stroke's samples
/// follow the JSON in binary (`packed`, see `SampleBlock`): a day's journal is read in a
/// fraction of a second. Older journals carry them as JSON arrays
/// `[x, y, pressure, altitude, azimuth, time, flags]` (+ distance when known), still read. Sample times are the kiosk's monotonic clock,
/// which restarts at boot: each process writes a `session` record first, pairing that clock
/// with the wall clock, so a later process can bring the times onto its own clock.
struct JournalEntry: Codable, Equatable {
    var op: String                      // "stroke", "placed", "erase", "undo", "redo", "clear", "add-page", "turn", "session", "worksheet"
    var page: Int?                      // the page an edit is on (absent: the first)
    var device: String?                 // the name of the device that drew a stroke
    var finger: Bool?                   // drawn by a finger (else a pen)
    var wall: Double?                   // a session's clocks: seconds since 1970 …
    var mono: Double?                   // … and the monotonic clock at the same moment
    var id: Int?
    var tool: String?
    var color: [Double]?
    var width: Double?
    var curve: [[Double]]?
    var nib: [Double]?                  // thickness, lock altitude, fallback angle
    var samples: [[Double]]?
    var ids: [Int]?
    var sha256: String?                 // a worksheet's content, file, title and page count
    var file: String?
    var title: String?
    var pages: Int?
    var bytes: Int?                     // a worksheet's size
    /// A stroke's brush numbers (colour, width, nib, pressure curve) and samples, written after
    /// the JSON as a `SampleBlock`: parsing JSON numbers is most of what reading a journal costs.
    var packedBrush: [Double]?
    var packed: [Sample]?

    private enum CodingKeys: String, CodingKey {
        case op, page, device, finger, wall, mono, id, tool, color, width, curve, nib, samples, ids, sha256, file, title, pages, bytes
    }

    init(_ edit: NotebookEdit, deviceName: (Int) -> String? = { _ in nil }) {
        switch edit {
        case .page(let index, let e):
            self.init(e)
            page = index == 0 ? nil : index
            if let stroke = e.stroke {
                device = deviceName(stroke.source.device)
                finger = stroke.source.isPen ? nil : true
            }
        case .addPage: self.init(op: "add-page")
        case .turn(let index): self.init(op: "turn"); page = index
        case .openWorksheet(let sheet):
            self.init(op: "worksheet")
            sha256 = sheet.sha256; file = sheet.file; title = sheet.title; pages = sheet.pages; bytes = sheet.bytes
        }
    }

    private init(op: String) { self.op = op }

    /// The record that starts a process's part of the journal.
    init(session clock: ClockAnchor) {
        op = "session"; wall = clock.wall; mono = clock.mono
    }

    /// A session record's clocks; nil for any other record (or nonsense numbers).
    var session: ClockAnchor? {
        guard op == "session", let wall, let mono, wall.isFinite, mono.isFinite else { return nil }
        return ClockAnchor(wall: wall, mono: mono)
    }

    private init(_ edit: DocumentEdit) {
        switch edit {
        case .added(let stroke), .placed(let stroke):
            if case .placed = edit { op = "placed" } else { op = "stroke" }
            id = stroke.id
            let b = stroke.brush
            tool = b.tool.rawValue
            packedBrush = [b.color.r, b.color.g, b.color.b, b.color.a, b.width, b.nibThickness, b.azimuthLockAltitude,
                           b.fallbackNibAngle] + b.pressureCurve.points.flatMap { [$0.x, $0.y] }
            packed = Array(stroke.samples)
        case .erased(let list): op = "erase"; ids = list
        case .undo: op = "undo"
        case .redo: op = "redo"
        case .clear: op = "clear"
        }
    }

    /// The edit, or nil if the entry does not make sense (then the journal treats it as damage).
    func edit(_ context: inout RestoreContext) -> NotebookEdit? {
        let index = page ?? 0
        guard index >= 0, index < Notebook.maxPages else { return nil }
        switch op {
        case "add-page": return .addPage
        case "turn": return .turn(to: index)
        case "worksheet":
            guard let sha256, WorksheetRef.isDigest(sha256), let file, let pages, (1...Notebook.maxPages).contains(pages) else { return nil }
            // A size that cannot be is ignored: the file is then looked for by content alone.
            return .openWorksheet(WorksheetRef(sha256: sha256, file: file, title: title ?? "", pages: pages,
                                               bytes: bytes.flatMap { $0 > 0 ? $0 : nil }))
        default: return documentEdit(&context).map { .page(index, $0) }
        }
    }

    private func documentEdit(_ context: inout RestoreContext) -> DocumentEdit? {
        switch op {
        case "stroke", "placed":
            var color = color, width = width, nib = nib, curve = curve
            if let b = packedBrush {
                // colour (4), width, nib (3), then the pressure curve's points as x, y pairs.
                guard b.count >= 8, b.count % 2 == 0 else { return nil }
                color = Array(b[0..<4]); width = b[4]; nib = Array(b[5..<8])
                curve = stride(from: 8, to: b.count, by: 2).map { [b[$0], b[$0 + 1]] }
            }
            guard let id, let toolName = tool, let kind = ToolKind(rawValue: toolName), let c = color, c.count == 4,
                  c.allSatisfy(\.isFinite), let width, (0...Self.maxWidth).contains(width), width > 0, let nib, nib.count == 3,
                  nib.allSatisfy({ abs($0) <= Self.maxWidth }),
                  let points = curve.map({ $0.compactMap { $0.count == 2 ? Point($0[0], $0[1]) : nil } }),
                  let pressureCurve = try? PressureCurve(points: points) else { return nil }
            let brush = Brush(tool: kind, color: RGBA(c[0], c[1], c[2], c[3]), width: width, pressureCurve: pressureCurve,
                              nibThickness: nib[0], azimuthLockAltitude: nib[1], fallbackNibAngle: nib[2])
            var decoded: [Sample]
            if let packed {
                decoded = packed
            } else if let samples {
                decoded = samples.compactMap(Self.decode)
                guard decoded.count == samples.count else { return nil }
            } else {
                return nil
            }
            guard !decoded.isEmpty else { return nil }
            for i in decoded.indices { decoded[i].time = context.time(decoded[i].time) }
            let stroke = Stroke(id: id, brush: brush, source: context.source(device: device, finger: finger == true),
                                samples: decoded, state: .done)
            return op == "placed" ? .placed(stroke) : .added(stroke)
        case "erase": return ids.map { .erased($0) }
        case "undo": return .undo
        case "redo": return .redo
        case "clear": return .clear
        default: return nil
        }
    }

    /// Beyond any screen (pixels), and beyond any brush: a record claiming more is damage.
    static let maxCoordinate = 100_000.0
    static let maxWidth = 1_000.0

    /// A sample's flags: coalesced, and which properties are estimates.
    static func flags(_ s: Sample) -> Int { Int(s.estimated.rawValue) << 1 | (s.isCoalesced ? 1 : 0) }

    private static func decode(_ v: [Double]) -> Sample? {
        guard v.count == 7 || v.count == 8, let flags = Int(exactly: v[6]) else { return nil }
        return sample(x: v[0], y: v[1], pressure: v[2], altitude: v[3], azimuth: v[4], time: v[5], flags: flags,
                      distance: v.count == 8 ? v[7] : nil)
    }

    /// A sample from stored numbers, or nil when they make no sense. A record with a valid
    /// checksum can still hold nonsense: never trap on it, nor draw it.
    static func sample(x: Double, y: Double, pressure: Double, altitude: Double, azimuth: Double, time: Double,
                       flags: Int, distance: Double?) -> Sample? {
        guard x.isFinite, y.isFinite, time.isFinite, abs(x) <= maxCoordinate, abs(y) <= maxCoordinate,
              (0...1).contains(pressure), abs(altitude) <= 10, abs(azimuth) <= 10, (0...0x1ff).contains(flags),
              distance.map({ (0...1).contains($0) }) ?? true
        else { return nil }
        return Sample(location: Point(x, y), pressure: pressure, altitude: altitude, azimuth: azimuth,
                      distance: distance, time: time, isCoalesced: flags & 1 != 0,
                      estimated: EstimatedProperties(rawValue: UInt8(truncatingIfNeeded: flags >> 1)))
    }
}

/// A stroke in binary, after its record's JSON and a zero byte: the number of brush numbers
/// (little-endian uint16) and the numbers (float64); then per sample x, y, pressure,
/// altitude, azimuth, time and distance (NaN: none) as little-endian float64, and the flags as
/// a little-endian uint16 (58 bytes a sample). Read without parsing any text.
enum SampleBlock {
    static let stride = 58

    static func pack(brush: [Double], _ samples: [Sample]) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(2 + brush.count * 8 + samples.count * stride)
        func put(_ v: Double) { withUnsafeBytes(of: v.bitPattern.littleEndian) { out.append(contentsOf: $0) } }
        withUnsafeBytes(of: UInt16(brush.count).littleEndian) { out.append(contentsOf: $0) }
        for v in brush { put(v) }
        for s in samples {
            put(s.location.x); put(s.location.y); put(s.pressure); put(s.altitude); put(s.azimuth); put(s.time)
            put(s.distance ?? .nan)
            withUnsafeBytes(of: UInt16(JournalEntry.flags(s)).littleEndian) { out.append(contentsOf: $0) }
        }
        return out
    }

    /// The brush numbers and samples, or nil when the block is cut or holds a sample that makes no sense.
    static func unpack(_ bytes: ArraySlice<UInt8>) -> (brush: [Double], samples: [Sample])? {
        guard bytes.count >= 2 else { return nil }
        return bytes.withUnsafeBytes { raw -> (brush: [Double], samples: [Sample])? in
            func f(_ at: Int) -> Double { Double(bitPattern: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt64.self))) }
            let brushCount = Int(UInt16(littleEndian: raw.loadUnaligned(fromByteOffset: 0, as: UInt16.self)))
            let start = 2 + brushCount * 8
            guard raw.count >= start, (raw.count - start) % stride == 0 else { return nil }
            let brush = (0..<brushCount).map { f(2 + $0 * 8) }
            var out: [Sample] = []
            out.reserveCapacity((raw.count - start) / stride)
            var at = start
            while at < raw.count {
                let distance = f(at + 48)
                let flags = Int(UInt16(littleEndian: raw.loadUnaligned(fromByteOffset: at + 56, as: UInt16.self)))
                guard let s = JournalEntry.sample(x: f(at), y: f(at + 8), pressure: f(at + 16), altitude: f(at + 24),
                                                  azimuth: f(at + 32), time: f(at + 40), flags: flags,
                                                  distance: distance.isNaN ? nil : distance) else { return nil }
                out.append(s)
                at += stride
            }
            return (brush, out)
        }
    }
}

extension DocumentEdit {
    /// The stroke an edit carries (a drawn or a placed one).
    var stroke: Stroke? {
        switch self {
        case .added(let s), .placed(let s): return s
        default: return nil
        }
    }
}

/// The wall clock and the monotonic clock read at one moment: converts a sample time from
/// one boot's monotonic clock to another's through the wall clock.
public struct ClockAnchor: Sendable, Equatable {
    public var wall: Double
    public var mono: Double
    public init(wall: Double, mono: Double) { self.wall = wall; self.mono = mono }

    public static func now() -> ClockAnchor { ClockAnchor(wall: Date().timeIntervalSince1970, mono: monotonicNow()) }
}

/// What reading a journal needs beyond each record: the clock the samples were written on
/// (the last session record), the clock they are read on, and the devices seen so far.
struct RestoreContext {
    let reader: ClockAnchor
    var writer: ClockAnchor?
    /// Device names → the ids restored strokes get: negative, so no live device has them.
    private(set) var devices: [String: Int] = [:]

    init(reader: ClockAnchor) { self.reader = reader }

    /// A written sample time on the reader's monotonic clock (as it is, for journals older than session records).
    func time(_ t: Double) -> Double {
        guard let writer else { return t }
        // Differences first: the clocks' large values would cost the times their microseconds.
        return t + ((writer.wall - reader.wall) - (writer.mono - reader.mono))
    }

    mutating func source(device name: String?, finger: Bool) -> StrokeSource {
        guard let name else { return .pen(device: 0) }
        let id = devices[name] ?? -(devices.count + 1)
        devices[name] = id
        return finger ? .finger(device: id, slot: 0) : .pen(device: id)
    }

    /// The restored devices' names by id.
    var deviceNames: [Int: String] { Dictionary(uniqueKeysWithValues: devices.map { ($0.value, $0.key) }) }
}
