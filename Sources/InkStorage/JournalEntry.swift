import Foundation
import InkCore

/// A notebook edit as the journal stores it (JSON inside a checked record). Samples are
/// arrays `[x, y, pressure, altitude, azimuth, time, flags]` (+ distance when known) to keep
/// a signature's few thousand samples small. Sample times are the kiosk's monotonic clock,
/// which restarts at boot: each process writes a `session` record first, pairing that clock
/// with the wall clock, so a later process can bring the times onto its own clock.
struct JournalEntry: Codable, Equatable {
    var op: String                      // "stroke", "placed", "erase", "undo", "redo", "clear", "add-page", "turn", "session"
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
            color = [b.color.r, b.color.g, b.color.b, b.color.a]
            width = b.width
            curve = b.pressureCurve.points.map { [$0.x, $0.y] }
            nib = [b.nibThickness, b.azimuthLockAltitude, b.fallbackNibAngle]
            samples = stroke.samples.map(Self.encode)
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
        default: return documentEdit(&context).map { .page(index, $0) }
        }
    }

    private func documentEdit(_ context: inout RestoreContext) -> DocumentEdit? {
        switch op {
        case "stroke", "placed":
            guard let id, let toolName = tool, let kind = ToolKind(rawValue: toolName), let c = color, c.count == 4,
                  let width, (0...Self.maxWidth).contains(width), width > 0, let nib, nib.count == 3,
                  nib.allSatisfy({ abs($0) <= Self.maxWidth }), let samples,
                  let points = curve.map({ $0.compactMap { $0.count == 2 ? Point($0[0], $0[1]) : nil } }),
                  let pressureCurve = try? PressureCurve(points: points) else { return nil }
            let brush = Brush(tool: kind, color: RGBA(c[0], c[1], c[2], c[3]), width: width, pressureCurve: pressureCurve,
                              nibThickness: nib[0], azimuthLockAltitude: nib[1], fallbackNibAngle: nib[2])
            var decoded = samples.compactMap(Self.decode)
            guard decoded.count == samples.count, !decoded.isEmpty else { return nil }
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

    private static func encode(_ s: Sample) -> [Double] {
        let flags = Double(Int(s.estimated.rawValue) << 1 | (s.isCoalesced ? 1 : 0))
        var v = [s.location.x, s.location.y, s.pressure, s.altitude, s.azimuth, s.time, flags]
        if let d = s.distance { v.append(d) }
        return v
    }

    private static func decode(_ v: [Double]) -> Sample? {
        // A record with a valid checksum can still hold nonsense: never trap on it, nor draw it.
        guard v.count == 7 || v.count == 8, v.allSatisfy(\.isFinite), let flags = Int(exactly: v[6]),
              (0...0x1ff).contains(flags), abs(v[0]) <= maxCoordinate, abs(v[1]) <= maxCoordinate,
              (0...1).contains(v[2]), abs(v[3]) <= 10, abs(v[4]) <= 10, v.count == 7 || (0...1).contains(v[7])
        else { return nil }
        return Sample(location: Point(v[0], v[1]), pressure: v[2], altitude: v[3], azimuth: v[4],
                      distance: v.count == 8 ? v[7] : nil, time: v[5], isCoalesced: flags & 1 != 0,
                      estimated: EstimatedProperties(rawValue: UInt8(truncatingIfNeeded: flags >> 1)))
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
