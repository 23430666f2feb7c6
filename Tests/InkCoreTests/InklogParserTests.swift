// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
@testable import InkCore

/// The hand-written event-line parser against `JSONDecoder` (the reader's reference path), and
/// the errors it gives.
private let devices = [
    DeviceInfo(id: 1, kind: .tablet, name: "Pen \"A\" ✓", widthMM: 224, heightMM: 140, direct: false),
    DeviceInfo(id: 2, kind: .touch, name: "Touch", widthMM: 200, heightMM: 120, direct: true),
    DeviceInfo(id: 3, kind: .pad, name: "Pad", widthMM: 224, heightMM: 140, direct: false),
]
private let header = InklogWriter().header(devices: devices)

private func document(_ lines: [String]) -> Data { Data(([header] + lines).joined(separator: "\n").utf8) }

private func read(_ data: Data, _ parsing: InklogReader.LineParsing) -> Result<Recording, InklogError> {
    do { return .success(try InklogReader(name: "fuzz.inklog", lineParsing: parsing).read(data)) } catch let e as InklogError {
        return .failure(e)
    } catch {
        return .failure(InklogError(file: "fuzz.inklog", line: -1, message: "\(error)"))
    }
}

/// The error the byte parser gives for one bad line between two good ones (it must be line 3).
private func failure(_ bad: Data) throws -> InklogError {
    let good = Data(#"{"t":0.5,"dev":1,"ev":"axis","x":0.5,"y":0.5}"#.utf8)
    var data = Data(header.utf8)
    for line in [good, bad, good] { data.append(0x0A); data.append(line) }
    guard case .failure(let e) = read(data, .bytes) else { throw InklogError(file: "", line: 0, message: "accepted: \(String(decoding: bad, as: UTF8.self))") }
    return e
}

/// Random events of every kind, in time order, with values inside and outside their ranges.
private func randomEvents(_ count: Int, _ rng: inout SplitMix64) -> [InkEvent] {
    func value(_ rng: inout SplitMix64) -> Double {
        switch Int.random(in: 0..<8, using: &rng) {
        case 0: return Double(Int.random(in: -3...3, using: &rng))                 // whole numbers
        case 1: return Double.random(in: -1e-6...1e-6, using: &rng)                // tiny: exponents
        case 2: return (Double.random(in: 0...1, using: &rng) * 1e5).rounded() / 1e5   // as a tablet's driver writes
        case 3: return Double.random(in: -200...500, using: &rng)                  // tilt and rotation, and out of range
        case 4: return Double.random(in: 1e12...1e17, using: &rng)                 // large: 17 digits
        default: return Double.random(in: 0...1, using: &rng)                      // full precision
        }
    }
    func axes(_ rng: inout SplitMix64) -> Axes {
        func maybe(_ rng: inout SplitMix64) -> Double? { Bool.random(using: &rng) ? value(&rng) : nil }
        return Axes(x: value(&rng), y: value(&rng), pressure: maybe(&rng), distance: maybe(&rng),
                    tiltX: maybe(&rng), tiltY: maybe(&rng), rotation: maybe(&rng), slider: maybe(&rng))
    }
    var t = Double.random(in: 0...1000, using: &rng)
    var events: [InkEvent] = []
    for _ in 0..<count {
        if Bool.random(using: &rng) { t += [0, 0.005, 1e-7, 0.0166666][Int.random(in: 0..<4, using: &rng)] }
        let slot = Int.random(in: 0...9, using: &rng)
        let event: InkEvent
        switch Int.random(in: 0..<10, using: &rng) {
        case 0:
            let serial: Int? = Bool.random(using: &rng) ? Int.random(in: 0...Int(Int32.max), using: &rng) : nil
            event = InkEvent(time: t, device: 1, kind: .proximity(isIn: Bool.random(using: &rng), tool: ToolType.allCases.randomElement(using: &rng)!,
                                                               serial: serial, axes: axes(&rng)))
        case 1: event = InkEvent(time: t, device: 1, kind: .tip(isDown: Bool.random(using: &rng), axes: axes(&rng)))
        case 2, 3: event = InkEvent(time: t, device: 1, kind: .axis(axes(&rng)))
        case 4: event = InkEvent(time: t, device: 1, kind: .button(code: Int.random(in: 256...400, using: &rng), isPressed: Bool.random(using: &rng)))
        case 5: event = InkEvent(time: t, device: 2, kind: .touchDown(slot: slot, x: value(&rng), y: value(&rng)))
        case 6: event = InkEvent(time: t, device: 2, kind: .touchMotion(slot: slot, x: value(&rng), y: value(&rng)))
        case 7: event = InkEvent(time: t, device: 2, kind: Bool.random(using: &rng) ? .touchUp(slot: slot) : .touchCancel(slot: slot))
        case 8: event = InkEvent(time: t, device: 2, kind: .touchFrame)
        default: event = InkEvent(time: t, device: 3, kind: .padButton(button: Int.random(in: 0...20, using: &rng), isPressed: Bool.random(using: &rng)))
        }
        events.append(event)
    }
    return events
}

/// A field's value, to be spelt in one of JSON's ways.
private enum Value { case number(Double), integer(Int), bool(Bool), string(String) }

/// An event's fields, as `InklogWriter` writes them.
private func fields(_ e: InkEvent) -> [(String, Value)] {
    var f: [(String, Value)] = [("t", .number(e.time)), ("dev", .integer(e.device))]
    func axes(_ a: Axes) {
        f += [("x", .number(a.x)), ("y", .number(a.y))]
        for case let (name, v?) in [("pressure", a.pressure), ("distance", a.distance), ("tiltX", a.tiltX),
                                    ("tiltY", a.tiltY), ("rotation", a.rotation), ("slider", a.slider)] {
            f.append((name, .number(v)))
        }
    }
    switch e.kind {
    case let .proximity(isIn, tool, serial, a):
        f += [("ev", .string("proximity")), ("in", .bool(isIn)), ("tool", .string(tool.rawValue))]
        if let serial { f.append(("serial", .integer(serial))) }
        axes(a)
    case let .tip(down, a): f += [("ev", .string("tip")), ("down", .bool(down))]; axes(a)
    case let .axis(a): f.append(("ev", .string("axis"))); axes(a)
    case let .button(code, pressed): f += [("ev", .string("button")), ("button", .integer(code)), ("pressed", .bool(pressed))]
    case let .touchDown(slot, x, y): f += [("ev", .string("touch-down")), ("slot", .integer(slot)), ("x", .number(x)), ("y", .number(y))]
    case let .touchMotion(slot, x, y): f += [("ev", .string("touch-motion")), ("slot", .integer(slot)), ("x", .number(x)), ("y", .number(y))]
    case let .touchUp(slot): f += [("ev", .string("touch-up")), ("slot", .integer(slot))]
    case let .touchCancel(slot): f += [("ev", .string("touch-cancel")), ("slot", .integer(slot))]
    case .touchFrame: f.append(("ev", .string("touch-frame")))
    case let .padButton(button, pressed): f += [("ev", .string("pad-button")), ("button", .integer(button)), ("pressed", .bool(pressed))]
    }
    return f
}

/// The event written another valid way: fields in another order, whitespace between tokens,
/// numbers in other notations, escapes in strings, `null` for absent axes.
private func respelt(_ e: InkEvent, _ rng: inout SplitMix64) -> String {
    func space(_ rng: inout SplitMix64) -> String { ["", "", " ", "\t", "  ", "\r"][Int.random(in: 0..<6, using: &rng)] }
    func string(_ s: String, _ rng: inout SplitMix64) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            out += Int.random(in: 0..<4, using: &rng) == 0 ? String(format: "\\u%04x", scalar.value) : String(scalar)
        }
        return out + "\""
    }
    func text(_ v: Value, exact: Bool, _ rng: inout SplitMix64) -> String {
        switch v {
        case .bool(let b): return b ? "true" : "false"
        case .string(let s): return string(s, &rng)
        case .integer(let n):
            switch Int.random(in: 0..<4, using: &rng) {
            case 0: return "\(n).0"
            case 1 where n >= 0 && n < 1_000_000: return "\(n)e0"
            default: return "\(n)"
            }
        case .number(let v):
            switch Int.random(in: 0..<5, using: &rng) {
            case 0: return String(format: "%.17g", v)          // exact, with an exponent when small or large
            case 1 where !exact: return String(format: "%.6E", v)   // another value: both must read the same one
            case 2 where v == 0: return "-0.0"
            case 3: return "\(v)"
            default: return String(format: "%.17e", v).replacingOccurrences(of: "e+", with: "e")
            }
        }
    }
    var parts = fields(e).map { key, value in
        space(&rng) + string(key, &rng) + space(&rng) + ":" + space(&rng) + text(value, exact: key == "t", &rng) + space(&rng)
    }
    let names = Set(fields(e).map(\.0))
    for absent in ["pressure", "distance", "tiltX", "tiltY", "rotation", "slider"] where names.contains("x") && !names.contains(absent) {
        if Int.random(in: 0..<4, using: &rng) == 0 { parts.append("\"\(absent)\":null") }
    }
    parts.shuffle(using: &rng)
    return space(&rng) + "{" + parts.joined(separator: ",") + "}" + space(&rng)
}

@Suite struct InklogLineParsing {
    @Test func everyFieldNameIsInTheTable() {
        for key in InklogLine.Key.allCases {
            var packed: UInt64 = 0
            for (n, b) in key.rawValue.utf8.enumerated() { packed |= UInt64(b) << (8 * UInt64(n)) }
            #expect(key.rawValue.utf8.count <= 8)
            #expect(InklogLineParser.key(packed: packed) == key, "\(key.rawValue)")
        }
    }

    @Test func writerLinesReadAsJSONDecoderReadsThem() throws {
        var rng = SplitMix64(seed: 20_240_611)
        let events = randomEvents(4000, &rng)
        let text = InklogWriter().document(devices: devices, events: events)
        let bytes = read(Data(text.utf8), .bytes), decoded = read(Data(text.utf8), .jsonDecoder)
        let b = try bytes.get(), d = try decoded.get()
        #expect(b == d)
        #expect(b.events.count == events.count)
        #expect(b.clampedValues > 0)
    }

    @Test func otherValidSpellingsReadAsJSONDecoderReadsThem() throws {
        var rng = SplitMix64(seed: 7)
        let events = randomEvents(3000, &rng)
        var lines: [String] = []
        for e in events { lines.append(respelt(e, &rng)) }
        let data = document(lines)
        let b = try read(data, .bytes).get(), d = try read(data, .jsonDecoder).get()
        #expect(b == d)
        // Line by line too, so that a difference names its line.
        for line in lines.prefix(300) {
            let one = document([line])
            #expect(try read(one, .bytes).get() == read(one, .jsonDecoder).get(), "\(line)")
        }
    }

    /// Lines broken at random (a byte dropped, inserted, changed, or the line cut short):
    /// whatever JSONDecoder rejects, the byte parser rejects, naming the line, and what it
    /// accepts, both read alike.
    @Test func brokenLinesAreRejectedAlike() throws {
        var rng = SplitMix64(seed: 99)
        let events = randomEvents(1500, &rng)
        let writer = InklogWriter()
        let noise: [UInt8] = Array("{}[]\":,.-+eE0123456789 tfnul\\x\u{7}".utf8) + [0xFF, 0xC3, 0x80]
        var rejected = 0
        for e in events {
            var line = Array(writer.line(e).utf8)
            let at = Int.random(in: 0..<line.count, using: &rng)
            switch Int.random(in: 0..<4, using: &rng) {
            case 0: line.remove(at: at)
            case 1: line.insert(noise.randomElement(using: &rng)!, at: at)
            case 2: line[at] = noise.randomElement(using: &rng)!
            default: line.removeSubrange(at...)
            }
            var data = Data(header.utf8)
            data.append(0x0A)
            data.append(contentsOf: line)
            let text = String(decoding: line, as: UTF8.self)
            switch (read(data, .bytes), read(data, .jsonDecoder)) {
            case (.success(let b), .success(let d)):
                #expect(b == d, "\(text)")
            case (.failure(let b), .failure):
                rejected += 1
                #expect(b.line == 2, "\(b)")
            case (.success, .failure(let d)):
                Issue.record("accepted what JSONDecoder rejects (\(d.message)): \(text)")
            case (.failure(let b), .success):
                // JSONDecoder tolerates a comma before the closing brace; JSON (and the line
                // format) has none there, and this reader says so.
                if text.replacingOccurrences(of: " ", with: "").contains(",}") { rejected += 1; continue }
                Issue.record("rejected what JSONDecoder accepts (\(b.message)): \(text)")
            }
        }
        #expect(rejected > 500)
    }

    @Test(arguments: [
        (#"{"t":1,"dev":1,"ev":"axis","x":0.5.1,"y":0.5}"#, "not valid JSON: expected ',' or '}' after a value at column 35, found '.'"),
        (#"{"t":1,"dev":1,"ev":"axis","x":-,"y":0.5}"#, "expected a digit after '-'"),
        (#"{"t":1,"dev":1,"ev":"axis","x":01,"y":0.5}"#, "a number may not start with 0"),
        (#"{"t":1,"dev":1,"ev":"axis","x":.5,"y":0.5}"#, "not valid JSON"),
        (#"{"t":1,"dev":1,"ev":"axis","x":1.,"y":0.5}"#, "expected a digit after '.'"),
        (#"{"t":1,"dev":1,"ev":"axis","x":1e,"y":0.5}"#, "expected a digit in the exponent"),
        (#"{"t":1,"dev":1,"ev":"axis","x":"0.5","y":0.5}"#, "field 'x': expected a number"),
        (#"{"t":1,"dev":1,"ev":"axis","x":1e-400,"y":0.5}"#, "field 'x': the number 1e-400 is not representable"),
        (#"{"t":1,"dev":1.5,"ev":"axis","x":0.5,"y":0.5}"#, "field 'dev': expected an integer, found 1.5"),
        (#"{"t":1,"dev":1,"ev":"tip","x":0.5,"y":0.5}"#, "field 'down' is missing"),
        (#"{"t":1,"ev":"axis","x":0.5,"y":0.5}"#, "field 'dev' is missing"),
        (#"{"t":null,"dev":1,"ev":"axis","x":0.5,"y":0.5}"#, "field 't' is missing"),
        (#"{"t":1,"dev":1,"ev":"axis","x":0.5,"y":0.5,"tiltz":3,"zzz":1}"#, "unknown field 'tiltz'"),
        (#"{"t":1,"dev":1,"ev":"axis","x":0.5,"y":0.5,"x":0.6}"#, "field 'x' appears twice"),
        (#"{"t":1,"dev":1,"ev":"axis","x":0.5,"y":0.5,"inklog":1}"#, "a header field in an event line"),
        (#"{"t":1,"dev":1,"ev":"axis","x":0.5,"y":0.5} {}"#, "unexpected text after the object"),
        (#"{"t":1,"dev":1,"ev":"axis","x":0.5,"y":0.5"#, "not valid JSON: Unexpected end of the line (column 43)"),
        (#"{"t":1,"dev":1,"ev":"axis","x":0.5,"y":tru"#, "Unexpected end of the line"),
        (#"{"t":1,"dev":1,"ev":"ax"#, "Unexpected end of the line"),
        (#"{"t":1,"dev":1,"ev":"axis","x":0.5,"y":0.5,}"#, "expected a field name in double quotes at column 44"),
        (#"{"t":1,"dev":1,"ev":"ax\is","x":0.5,"y":0.5}"#, "an unknown escape in a string"),
        (#"{"t":1,"dev":1,"ev":"\ud800","x":0.5,"y":0.5}"#, "a lone surrogate"),
        (#"["t",1]"#, "expected '{' at column 1"),
    ])
    func badLineNamesItsLineAndWhy(line: String, message: String) throws {
        let error = try failure(Data(line.utf8))
        #expect(error.line == 3, "\(error)")
        #expect(error.description.hasPrefix("fuzz.inklog:3: "), "\(error)")
        #expect(error.message.contains(message), "\(error)")
    }

    @Test func notUTF8IsNamed() throws {
        // A byte that cannot start a UTF-8 sequence, inside a string and outside one.
        var inString = Data(#"{"t":1,"dev":1,"ev":"axis"#.utf8)
        inString.append(0xFF)
        inString.append(contentsOf: Array(#"","x":0.5,"y":0.5}"#.utf8))
        let a = try failure(inString)
        #expect(a.line == 3 && a.message.contains("field 'ev': the string at column 22 is not valid UTF-8"), "\(a)")

        var outside = Data(#"{"t":1,"dev":1,"ev":"axis","x":"#.utf8)
        outside.append(contentsOf: [0xC3, 0x28])   // a lead byte without its continuation
        let b = try failure(outside)
        #expect(b.line == 3 && b.message.contains("not valid UTF-8 (byte 0xc3 at column 32)"), "\(b)")

        // Valid UTF-8 in an unknown field's value is fine for UTF-8, still an unknown field.
        let c = try failure(Data(#"{"t":1,"dev":1,"ev":"axis","x":0.5,"y":0.5,"note":"Grüße"}"#.utf8))
        #expect(c.message == "unknown field 'note'", "\(c)")
    }

    @Test func escapesAndWhitespaceAreJSON() throws {
        let r = try read(document([
            " { \"t\" : 1 , \"dev\":1,\"ev\":\"\\u0070roximity\",\"in\":true,\"tool\":\"p\\u0065n\",\"x\":5e-1,\"y\":0.5E0,\"pressure\":null}\r",
            "{\"t\":1.5,\"dev\":1,\"ev\":\"tip\",\"down\":false,\"x\":0.25,\"y\":-0.0,\"serial\":1e3,\"button\":2.0}",
        ]), .bytes).get()
        #expect(r.events[0].kind == .proximity(isIn: true, tool: .pen, serial: nil, axes: Axes(x: 0.5, y: 0.5)))
        #expect(r.events[1].kind == .tip(isDown: false, axes: Axes(x: 0.25, y: 0)))
    }
}
