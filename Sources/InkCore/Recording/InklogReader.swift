import Dispatch
import Foundation

/// A whole recording: the devices it used and the events, in time order.
public struct Recording: Sendable, Equatable {
    public var devices: [DeviceInfo]
    public var events: [InkEvent]
    /// How many out-of-range values the reader clamped (pressure 1.7, tilt 400°, ...).
    public var clampedValues: Int

    public init(devices: [DeviceInfo], events: [InkEvent], clampedValues: Int = 0) {
        self.devices = devices; self.events = events; self.clampedValues = clampedValues
    }
    public func device(_ id: Int) -> DeviceInfo? { devices.first { $0.id == id } }
}

/// Reads `.inklog` recordings strictly: the first bad line stops the read with its line number,
/// and nothing half-read is returned. Out-of-range values are clamped and counted.
///
/// The header is decoded with `JSONDecoder`; event lines, nearly all of a recording, with
/// `InklogLineParser`, which reads them straight from the file's bytes.
public struct InklogReader {
    public static let version = 1
    private let name: String
    /// How event lines are parsed: `.bytes` (the hand-written parser), or `.jsonDecoder` (the
    /// reference the tests compare it with).
    enum LineParsing { case bytes, jsonDecoder }
    private let lineParsing: LineParsing
    /// Parts the event lines are read in; nil: `parts(for:)` decides (tests set it).
    private let parts: Int?

    public init(name: String = "<memory>") { self.init(name: name, lineParsing: .bytes) }
    init(name: String, lineParsing: LineParsing, parts: Int? = nil) {
        self.name = name; self.lineParsing = lineParsing; self.parts = parts
    }

    public static func read(contentsOf url: URL) throws -> Recording {
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw InklogError(file: url.path, line: 0, message: "cannot read the file: \(error.localizedDescription)")
        }
        return try InklogReader(name: url.path).read(data)
    }

    public func read(_ data: Data) throws -> Recording {
        try data.withUnsafeBytes { raw in try read(raw.bindMemory(to: UInt8.self)) }
    }

    private func read(_ bytes: UnsafeBufferPointer<UInt8>) throws -> Recording {
        // Lines end at "\n"; a final "\n" ends the last line rather than starting an empty one.
        var lineStart = 0
        var number = 0
        /// The next line's bytes, or nil at the end.
        func nextLine() -> UnsafeBufferPointer<UInt8>? {
            guard lineStart < bytes.count else { return nil }
            let rest = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[lineStart...])
            let end: Int
            if let base = rest.baseAddress, let nl = memchr(base, Int32(UInt8(ascii: "\n")), rest.count) {
                end = lineStart + (base.distance(to: UnsafeRawPointer(nl)))
            } else {
                end = bytes.count
            }
            let line = UnsafeBufferPointer(rebasing: bytes[lineStart..<end])
            lineStart = end + 1
            number += 1
            return line
        }

        guard let headerLine = nextLine() else { throw fail(1, "the file is empty; the first line must be the header") }
        let decoder = JSONDecoder()
        let header = try decodeLine(headerLine, number: 1, decoder)
        guard let version = header.inklog else { throw fail(1, "the first line is not an inklog header (no \"inklog\" field)") }
        guard version == Self.version else { throw fail(1, "unsupported inklog version \(version) (this reader knows version \(Self.version))") }
        guard let devices = header.devices else { throw fail(1, "the header has no \"devices\" list") }
        var byId: [Int: DeviceInfo] = [:]
        for d in devices {
            guard byId[d.id] == nil else { throw fail(1, "device id \(d.id) appears twice in the header") }
            guard d.widthMM.isFinite, d.heightMM.isFinite, d.widthMM > 0, d.heightMM > 0 else {
                throw fail(1, "device \(d.id) (\(d.name)) needs a positive widthMM and heightMM")
            }
            byId[d.id] = d
        }

        // The event lines, in parts read side by side on the cores (a page of handwriting is
        // ten thousand lines); each part knows only its own line numbers until they are joined.
        let body = lineStart
        let parts = EventLines.split(bytes, from: body, parts: self.parts ?? Self.parts(for: bytes.count - body))
        var results = [EventLines.Result](repeating: EventLines.Result(), count: parts.count)
        let parseLine: (UnsafeBufferPointer<UInt8>) throws -> InklogLine
        switch lineParsing {
        case .bytes:
            parseLine = { try InklogLineParser.parse($0) }
        case .jsonDecoder:
            parseLine = { raw in
                do { return try decodeLine(raw, number: 0, decoder) } catch let e as InklogError { throw LineProblem(text: e.message) }
            }
        }
        let template = EventParser(devices: byId)
        if parts.count == 1 {
            results[0] = EventLines.read(bytes, parts[0], template, parseLine)
        } else {
            results.withUnsafeMutableBufferPointer { out in
                // Each part reads only its own bytes and writes only its own slot.
                nonisolated(unsafe) let out = out, bytes = bytes, parseLine = parseLine
                DispatchQueue.concurrentPerform(iterations: parts.count) { i in
                    out[i] = EventLines.read(bytes, parts[i], template, parseLine)
                }
            }
        }

        var events: [InkEvent] = []
        events.reserveCapacity(results.reduce(0) { $0 + $1.events.count })
        var clamped = 0
        var line = 1   // the header's
        var lastTime = -Double.infinity
        for part in results {
            if let first = part.events.first, first.time < lastTime {   // the part's first line
                throw fail(line + 1, "time goes backwards: t=\(first.time) after t=\(lastTime)")
            }
            if let problem = part.problem { throw fail(line + 1 + problem.index, problem.text) }
            events += part.events
            clamped += part.clamped
            line += part.lines
            lastTime = part.events.last?.time ?? lastTime
        }
        return Recording(devices: devices, events: events, clampedValues: clamped)
    }

    /// How many parts `bytes` of event lines are read in: one below half a megabyte (a thread
    /// costs more than it saves), else one a core, at most four.
    static func parts(for bytes: Int) -> Int {
        bytes < 512 << 10 ? 1 : min(4, max(1, ProcessInfo.processInfo.activeProcessorCount))
    }

    private func decodeLine(_ raw: UnsafeBufferPointer<UInt8>, number: Int, _ decoder: JSONDecoder) throws -> InklogLine {
        let line: InklogLine
        let data = Data(buffer: raw)
        do { line = try decoder.decode(InklogLine.self, from: data) } catch {
            throw fail(number, InklogLine.explain(error, in: data))
        }
        if let unknown = line.unknownKeys.first { throw fail(number, "unknown field '\(unknown)'") }
        return line
    }

    private func fail(_ line: Int, _ message: String) -> InklogError {
        InklogError(file: name, line: line, message: message)
    }
}

struct LineProblem: Error { var text: String }

/// A run of event lines, read on its own: its events, or the first problem in it.
enum EventLines {
    struct Result {
        var events: [InkEvent] = []
        /// Lines read (all of the part's, unless a problem stopped it).
        var lines = 0
        var clamped = 0
        /// The first bad line: its index within the part, and what is wrong with it.
        var problem: (index: Int, text: String)?
    }

    /// `parts` byte ranges from `start` to the end, each beginning at a line's start.
    static func split(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, parts: Int) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        var from = start
        for k in 1..<max(parts, 1) {
            var cut = max(from, start + (bytes.count - start) * k / parts)
            while cut < bytes.count && bytes[cut - 1] != UInt8(ascii: "\n") { cut += 1 }
            ranges.append(from..<cut)
            from = cut
        }
        ranges.append(from..<bytes.count)
        return ranges
    }

    static func read(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, _ template: EventParser,
                     _ parseLine: (UnsafeBufferPointer<UInt8>) throws -> InklogLine) -> Result {
        var result = Result()
        var parser = template
        result.events.reserveCapacity(range.count / 100 + 16)
        var lastTime = -Double.infinity
        var at = range.lowerBound
        while at < range.upperBound {
            var end = range.upperBound
            if let base = bytes.baseAddress, let nl = memchr(base + at, Int32(UInt8(ascii: "\n")), range.upperBound - at) {
                end = base.distance(to: nl.assumingMemoryBound(to: UInt8.self))
            }
            let raw = UnsafeBufferPointer(rebasing: bytes[at..<end])
            at = end + 1
            let index = result.lines
            result.lines += 1
            if raw.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\r") || $0 == UInt8(ascii: "\t") }) {
                result.problem = (index, "empty line")
                return result
            }
            do {
                let event = try parser.parse(try parseLine(raw))
                guard event.time >= lastTime else {
                    result.problem = (index, "time goes backwards: t=\(event.time) after t=\(lastTime)")
                    return result
                }
                lastTime = event.time
                result.events.append(event)
            } catch let problem as LineProblem {
                result.problem = (index, problem.text)
                return result
            } catch {
                result.problem = (index, "\(error)")
                return result
            }
        }
        result.clamped = parser.clamped
        return result
    }
}

/// Turns one decoded line into an `InkEvent`, checking what the event kind requires.
struct EventParser {
    let devices: [Int: DeviceInfo]
    private(set) var clamped = 0

    init(devices: [Int: DeviceInfo]) { self.devices = devices }

    mutating func parse(_ l: InklogLine) throws -> InkEvent {
        guard let t = l.t else { throw LineProblem(text: "field 't' is missing") }
        guard t.isFinite else { throw LineProblem(text: "field 't' is not a finite number") }
        guard let dev = l.dev else { throw LineProblem(text: "field 'dev' is missing") }
        guard let device = devices[dev] else {
            throw LineProblem(text: "device \(dev) is not in the header (known: \(devices.keys.sorted().map(String.init).joined(separator: ", ")))")
        }
        guard let ev = l.ev else { throw LineProblem(text: "field 'ev' is missing") }
        if l.inklog != nil || l.devices != nil { throw LineProblem(text: "a header field in an event line") }

        let kind: InkEventKind
        switch ev {
        case "proximity":
            try expect(device, .tablet, ev)
            let tool = try require(l.tool, "tool")
            guard let type = ToolType(rawValue: tool) else {
                throw LineProblem(text: "unknown tool '\(tool)' (known: \(ToolType.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            kind = .proximity(isIn: try require(l.isIn, "in"), tool: type, serial: l.serial, axes: try axes(l))
        case "tip":
            try expect(device, .tablet, ev)
            kind = .tip(isDown: try require(l.down, "down"), axes: try axes(l))
        case "axis":
            try expect(device, .tablet, ev)
            kind = .axis(try axes(l))
        case "button":
            try expect(device, .tablet, ev)
            kind = .button(code: try require(l.button, "button"), isPressed: try require(l.pressed, "pressed"))
        case "touch-down", "touch-motion":
            try expect(device, .touch, ev)
            let slot = try slotNumber(l)
            let x = try unit(require(l.x, "x"), "x"), y = try unit(require(l.y, "y"), "y")
            kind = ev == "touch-down" ? .touchDown(slot: slot, x: x, y: y) : .touchMotion(slot: slot, x: x, y: y)
        case "touch-up":
            try expect(device, .touch, ev)
            kind = .touchUp(slot: try slotNumber(l))
        case "touch-cancel":
            try expect(device, .touch, ev)
            kind = .touchCancel(slot: try slotNumber(l))
        case "touch-frame":
            try expect(device, .touch, ev)
            kind = .touchFrame
        case "pad-button":
            try expect(device, .pad, ev)
            kind = .padButton(button: try require(l.button, "button"), isPressed: try require(l.pressed, "pressed"))
        default:
            throw LineProblem(text: "unknown event '\(ev)'")
        }
        return InkEvent(time: t, device: dev, kind: kind)
    }

    private func expect(_ device: DeviceInfo, _ kind: DeviceKind, _ ev: String) throws {
        guard device.kind == kind else {
            throw LineProblem(text: "'\(ev)' needs a \(kind.rawValue) device, but device \(device.id) (\(device.name)) is a \(device.kind.rawValue)")
        }
    }

    private func require<T>(_ value: T?, _ field: String) throws -> T {
        guard let value else { throw LineProblem(text: "field '\(field)' is missing") }
        return value
    }

    private func slotNumber(_ l: InklogLine) throws -> Int {
        let slot = try require(l.slot, "slot")
        guard slot >= 0 else { throw LineProblem(text: "field 'slot' is negative (\(slot))") }
        return slot
    }

    private mutating func axes(_ l: InklogLine) throws -> Axes {
        Axes(x: try unit(require(l.x, "x"), "x"), y: try unit(require(l.y, "y"), "y"),
             pressure: try l.pressure.map { try unit($0, "pressure") },
             distance: try l.distance.map { try unit($0, "distance") },
             tiltX: try l.tiltX.map { try clamp($0, "tiltX", to: -90...90) },
             tiltY: try l.tiltY.map { try clamp($0, "tiltY", to: -90...90) },
             rotation: try l.rotation.map { try clamp($0, "rotation", to: 0...360) },
             slider: try l.slider.map { try clamp($0, "slider", to: -1...1) })
    }

    private mutating func unit(_ v: Double, _ field: String) throws -> Double {
        try clamp(v, field, to: 0...1)
    }

    /// Devices do report values past their range; keep the recording, but never trust them.
    private mutating func clamp(_ v: Double, _ field: String, to range: ClosedRange<Double>) throws -> Double {
        guard v.isFinite else { throw LineProblem(text: "field '\(field)' is not a finite number") }
        if range.contains(v) { return v }
        clamped += 1
        return v.clamped(to: range)
    }
}
