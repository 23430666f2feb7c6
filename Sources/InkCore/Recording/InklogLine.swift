// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import Glibc

/// The JSON shape of one `.inklog` line, before validation. Every field is optional here;
/// `InklogReader` decides which ones each `ev` needs. Unknown keys are collected so that a
/// typo ("presure") is an error instead of a silently missing axis.
struct InklogLine: Decodable {
    enum Key: String, CodingKey, CaseIterable {
        case inklog, devices
        case t, dev, ev
        case isIn = "in", down, tool, serial, button, pressed, slot
        case x, y, pressure, distance, tiltX, tiltY, rotation, slider
    }
    struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    var inklog: Int?
    var devices: [DeviceInfo]?
    var t: Double?
    var dev: Int?
    var ev: String?
    var isIn: Bool?
    var down: Bool?
    var tool: String?
    var serial: Int?
    var button: Int?
    var pressed: Bool?
    var slot: Int?
    var x: Double?, y: Double?, pressure: Double?, distance: Double?
    var tiltX: Double?, tiltY: Double?, rotation: Double?, slider: Double?
    var unknownKeys: [String] = []

    /// No fields (the hand-written parser fills them in).
    init() {}

    init(from decoder: Decoder) throws {
        let all = try decoder.container(keyedBy: AnyKey.self)
        let known = Set(Key.allCases.map(\.rawValue))
        unknownKeys = all.allKeys.map(\.stringValue).filter { !known.contains($0) }.sorted()
        let c = try decoder.container(keyedBy: Key.self)
        inklog = try c.decodeIfPresent(Int.self, forKey: .inklog)
        devices = try c.decodeIfPresent([DeviceInfo].self, forKey: .devices)
        t = try c.decodeIfPresent(Double.self, forKey: .t)
        dev = try c.decodeIfPresent(Int.self, forKey: .dev)
        ev = try c.decodeIfPresent(String.self, forKey: .ev)
        isIn = try c.decodeIfPresent(Bool.self, forKey: .isIn)
        down = try c.decodeIfPresent(Bool.self, forKey: .down)
        tool = try c.decodeIfPresent(String.self, forKey: .tool)
        serial = try c.decodeIfPresent(Int.self, forKey: .serial)
        button = try c.decodeIfPresent(Int.self, forKey: .button)
        pressed = try c.decodeIfPresent(Bool.self, forKey: .pressed)
        slot = try c.decodeIfPresent(Int.self, forKey: .slot)
        x = try c.decodeIfPresent(Double.self, forKey: .x)
        y = try c.decodeIfPresent(Double.self, forKey: .y)
        pressure = try c.decodeIfPresent(Double.self, forKey: .pressure)
        distance = try c.decodeIfPresent(Double.self, forKey: .distance)
        tiltX = try c.decodeIfPresent(Double.self, forKey: .tiltX)
        tiltY = try c.decodeIfPresent(Double.self, forKey: .tiltY)
        rotation = try c.decodeIfPresent(Double.self, forKey: .rotation)
        slider = try c.decodeIfPresent(Double.self, forKey: .slider)
    }

    /// A decoding error as a sentence a person can act on. JSONDecoder says only "not valid
    /// JSON"; the event lines' own parser says where and why (its message starts with "not
    /// valid JSON: " for a syntax error), so ask it for the detail.
    static func explain(_ error: Error, in data: Data) -> String {
        let message = explain(error)
        guard message == "not valid JSON" else { return message }
        let detail = data.withUnsafeBytes { InklogLineParser.syntaxProblem($0.bindMemory(to: UInt8.self)) }
        guard let detail else { return message }
        return detail.hasPrefix("not valid JSON") ? detail : "not valid JSON: \(detail)"
    }

    static func explain(_ error: Error) -> String {
        func path(_ p: [CodingKey]) -> String {
            p.isEmpty ? "the line" : "field '" + p.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".") + "'"
        }
        switch error {
        case DecodingError.typeMismatch(let type, let ctx):
            return "\(path(ctx.codingPath)): expected \(describe(type))"
        case DecodingError.valueNotFound(let type, let ctx):
            return "\(path(ctx.codingPath)): expected \(describe(type)), found null"
        case DecodingError.keyNotFound(let key, let ctx):
            return "\(path(ctx.codingPath + [key])) is missing"
        case DecodingError.dataCorrupted(let ctx):
            if ctx.codingPath.isEmpty { return "not valid JSON" }
            return "\(path(ctx.codingPath)): \(ctx.debugDescription)"
        default:
            return "\(error)"
        }
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is Bool.Type: return "true or false"
        case is Int.Type: return "an integer"
        case is Double.Type: return "a number"
        case is String.Type: return "a string"
        default: return "\(type)"
        }
    }
}
