import InkCore

/// A notebook edit as the journal stores it (JSON inside a checked record). Samples are
/// arrays `[x, y, pressure, altitude, azimuth, time, flags]` (+ distance when known) to keep
/// a signature's few thousand samples small.
struct JournalEntry: Codable, Equatable {
    var op: String                      // "stroke", "erase", "undo", "redo", "clear", "add-page", "turn"
    var page: Int?                      // the page an edit is on (absent: the first)
    var id: Int?
    var tool: String?
    var color: [Double]?
    var width: Double?
    var curve: [[Double]]?
    var nib: [Double]?                  // thickness, lock altitude, fallback angle
    var samples: [[Double]]?
    var ids: [Int]?

    init(_ edit: NotebookEdit) {
        switch edit {
        case .page(let index, let e):
            self.init(e)
            page = index == 0 ? nil : index
        case .addPage: self.init(op: "add-page")
        case .turn(let index): self.init(op: "turn"); page = index
        }
    }

    private init(op: String) { self.op = op }

    private init(_ edit: DocumentEdit) {
        switch edit {
        case .added(let stroke):
            op = "stroke"
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
    var edit: NotebookEdit? {
        let index = page ?? 0
        guard index >= 0, index < 10_000 else { return nil }
        switch op {
        case "add-page": return .addPage
        case "turn": return .turn(to: index)
        default: return documentEdit.map { .page(index, $0) }
        }
    }

    private var documentEdit: DocumentEdit? {
        switch op {
        case "stroke":
            guard let id, let toolName = tool, let kind = ToolKind(rawValue: toolName), let c = color, c.count == 4,
                  let width, width.isFinite, width > 0, let nib, nib.count == 3, let samples,
                  let points = curve.map({ $0.compactMap { $0.count == 2 ? Point($0[0], $0[1]) : nil } }),
                  let pressureCurve = try? PressureCurve(points: points) else { return nil }
            let brush = Brush(tool: kind, color: RGBA(c[0], c[1], c[2], c[3]), width: width, pressureCurve: pressureCurve,
                              nibThickness: nib[0], azimuthLockAltitude: nib[1], fallbackNibAngle: nib[2])
            let decoded = samples.compactMap(Self.decode)
            guard decoded.count == samples.count, !decoded.isEmpty else { return nil }
            return .added(Stroke(id: id, brush: brush, source: .pen(device: 0), samples: decoded, state: .done))
        case "erase": return ids.map { .erased($0) }
        case "undo": return .undo
        case "redo": return .redo
        case "clear": return .clear
        default: return nil
        }
    }

    private static func encode(_ s: Sample) -> [Double] {
        let flags = Double(Int(s.estimated.rawValue) << 1 | (s.isCoalesced ? 1 : 0))
        var v = [s.location.x, s.location.y, s.pressure, s.altitude, s.azimuth, s.time, flags]
        if let d = s.distance { v.append(d) }
        return v
    }

    private static func decode(_ v: [Double]) -> Sample? {
        guard v.count == 7 || v.count == 8, v.allSatisfy(\.isFinite) else { return nil }
        let flags = Int(v[6])
        return Sample(location: Point(v[0], v[1]), pressure: v[2], altitude: v[3], azimuth: v[4],
                      distance: v.count == 8 ? v[7] : nil, time: v[5], isCoalesced: flags & 1 != 0,
                      estimated: EstimatedProperties(rawValue: UInt8(truncatingIfNeeded: flags >> 1)))
    }
}
