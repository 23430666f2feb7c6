// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import Glibc

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

    public init(name: String = "<memory>") { self.init(name: name, lineParsing: .bytes) }
    init(name: String, lineParsing: LineParsing) { self.name = name; self.lineParsing = lineParsing }

    public static func read(contentsOf url: URL) throws -> Recording {
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw InklogError(file: url.path, line: 0, message: "cannot read the file: \(errorText(error))")
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
        var lines = try InklogLines(header: headerLine, name: name, lineParsing: lineParsing)
        var events: [InkEvent] = []
        // About 140 bytes an event line: room for all of them at once.
        events.reserveCapacity(bytes.count / 100 + 16)
        while let raw = nextLine() { events.append(try lines.event(raw, number: number)) }
        return Recording(devices: lines.devices, events: events, clampedValues: lines.clamped)
    }

    private func fail(_ line: Int, _ message: String) -> InklogError {
        InklogError(file: name, line: line, message: message)
    }
}

/// The checks every line of a recording goes through, in order: the header first, then each
/// event line (known devices, fields the event needs, time never going backwards). Shared by
/// the whole-file reader and the stream (`InklogStream`), so both accept the same files.
struct InklogLines {
    let devices: [DeviceInfo]
    private let name: String
    private let lineParsing: InklogReader.LineParsing
    private var parser: EventParser
    private var lastTime = -Double.infinity
    private let decoder = JSONDecoder()
    var clamped: Int { parser.clamped }

    init(header headerLine: UnsafeBufferPointer<UInt8>, name: String, lineParsing: InklogReader.LineParsing) throws {
        self.name = name
        self.lineParsing = lineParsing
        func fail(_ message: String) -> InklogError { InklogError(file: name, line: 1, message: message) }
        let header = try Self.decodeLine(headerLine, number: 1, name: name, decoder)
        guard let version = header.inklog else { throw fail("the first line is not an inklog header (no \"inklog\" field)") }
        guard version == InklogReader.version else { throw fail("unsupported inklog version \(version) (this reader knows version \(InklogReader.version))") }
        guard let devices = header.devices else { throw fail("the header has no \"devices\" list") }
        var byId: [Int: DeviceInfo] = [:]
        for d in devices {
            guard byId[d.id] == nil else { throw fail("device id \(d.id) appears twice in the header") }
            guard d.widthMM.isFinite, d.heightMM.isFinite, d.widthMM > 0, d.heightMM > 0 else {
                throw fail("device \(d.id) (\(d.name)) needs a positive widthMM and heightMM")
            }
            byId[d.id] = d
        }
        self.devices = devices
        parser = EventParser(devices: byId)
    }

    /// Event line `number` (1-based in the file).
    mutating func event(_ raw: UnsafeBufferPointer<UInt8>, number: Int) throws -> InkEvent {
        if raw.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\r") || $0 == UInt8(ascii: "\t") }) {
            throw fail(number, "empty line")
        }
        let event: InkEvent
        do {
            let line: InklogLine
            switch lineParsing {
            case .bytes: line = try InklogLineParser.parse(raw)
            case .jsonDecoder: line = try Self.decodeLine(raw, number: number, name: name, decoder)
            }
            event = try parser.parse(line)
        } catch let message as LineProblem {
            throw fail(number, message.text)
        }
        guard event.time >= lastTime else {
            throw fail(number, "time goes backwards: t=\(event.time) after t=\(lastTime)")
        }
        lastTime = event.time
        return event
    }

    private static func decodeLine(_ raw: UnsafeBufferPointer<UInt8>, number: Int, name: String, _ decoder: JSONDecoder) throws -> InklogLine {
        let line: InklogLine
        let data = Data(buffer: raw)
        do { line = try decoder.decode(InklogLine.self, from: data) } catch {
            throw InklogError(file: name, line: number, message: InklogLine.explain(error, in: data))
        }
        if let unknown = line.unknownKeys.first { throw InklogError(file: name, line: number, message: "unknown field '\(unknown)'") }
        return line
    }

    private func fail(_ line: Int, _ message: String) -> InklogError {
        InklogError(file: name, line: line, message: message)
    }
}

struct LineProblem: Error { var text: String }

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
