import CLibCrypto
import Foundation
import Glibc
import InkCore
import InkRender

/// One accepted signature, written to an outbox directory for the host system:
/// `NAME.png` (transparent, cropped to the ink with a margin), `NAME.svg`, `NAME.inkml` (every
/// sample, for verifying the dynamics) and, last, `NAME.json` (metadata with the SHA-256 of
/// the other three). Each file is written to a temporary name, synced, renamed, with mode 0600,
/// then the directory is synced: a host that sees `NAME.json` finds the whole capture.
public struct SignatureCapture: Sendable {
    public struct Metadata: Codable, Sendable, Equatable {
        public var captureId: String
        public var started: String
        public var ended: String
        public var device: String
        public var screen: Screen
        public var strokes: Int
        public var samples: Int
        public var sha256: [String: String]

        public struct Screen: Codable, Sendable, Equatable {
            public var width: Int, height: Int, dpi: Double
        }
    }

    public var name: String
    public var strokes: [Stroke]
    public var screen: PixelSize
    public var dpi: Double
    public var device: String
    public var started: Date
    public var ended: Date
    /// Around the ink in the cropped PNG and SVG, in pixels.
    public var margin = 16.0

    public init(name: String, strokes: [Stroke], screen: PixelSize, dpi: Double, device: String, started: Date, ended: Date) {
        self.name = name; self.strokes = strokes; self.screen = screen; self.dpi = dpi
        self.device = device; self.started = started; self.ended = ended
    }

    /// Writes the capture into `outbox`; returns the four paths. An empty signature is refused.
    @discardableResult
    public func write(to outbox: String) throws -> [String] {
        guard name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }), !name.isEmpty else {
            throw StorageError(description: "capture name '\(name)' must be letters, digits, '-' or '_'")
        }
        let page = Exporter(size: screen, background: .transparent)
        guard let crop = page.inkBounds(strokes, margin: margin) else {
            throw StorageError(description: "an empty signature is not accepted")
        }
        try DurableFile.prepareDirectory(outbox)
        let exporter = page.cropped(to: crop)
        let base = "\(outbox)/\(name)"
        var hashes: [String: String] = [:]
        var paths: [String] = []

        func publish(_ ext: String, _ produce: (String) throws -> Void) throws {
            let final = "\(base).\(ext)"
            hashes["\(name).\(ext)"] = Self.sha256(try DurableFile.publish(final, produce))
            paths.append(final)
        }

        try publish("png") { try exporter.png(strokes, to: $0) }
        try publish("svg") { try exporter.svg(strokes, to: $0) }
        try publish("inkml") { try DurableFile.create($0, Data(InkMLWriter(dpi: dpi, deviceName: device).document(strokes).utf8)) }
        let iso = ISO8601DateFormatter()
        iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let meta = Metadata(captureId: name, started: iso.string(from: started), ended: iso.string(from: ended), device: device,
                            screen: .init(width: screen.width, height: screen.height, dpi: dpi), strokes: strokes.count,
                            samples: strokes.reduce(0) { $0 + $1.samples.count }, sha256: hashes)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try publish("json") { try DurableFile.create($0, try encoder.encode(meta)) }
        try DurableFile.sync(outbox)   // the renames themselves survive a power cut
        return paths
    }

    /// The files of one capture, in the order `write` publishes them (the JSON last).
    static let extensions = ["png", "svg", "inkml", "json"]

    /// Removes what a crash or power cut in the middle of `write` left in `outbox`: hidden
    /// temporary files, and the files of a capture whose JSON never landed (`write` renames the
    /// JSON into place last, so a capture without it is half written; the ink is still in the
    /// journal and a new Accept writes it whole, under a new name). Returns what it removed.
    /// Only for start-up: a `write` running meanwhile would lose its files.
    @discardableResult
    public static func sweep(outbox: String) throws -> [String] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: outbox) else { return [] }
        let present = Set(names)
        var removed: [String] = []
        for name in names.sorted() {
            let url = URL(fileURLWithPath: name)
            let ext = url.pathExtension, base = url.deletingPathExtension().lastPathComponent
            let temporary = name.hasPrefix(".") && name.hasSuffix(".tmp")
            let orphan = !name.hasPrefix(".") && extensions.dropLast().contains(ext) && !present.contains("\(base).json")
            guard temporary || orphan else { continue }
            guard unlink("\(outbox)/\(name)") == 0 else { throw StorageError.errno("cannot remove \(outbox)/\(name)") }
            removed.append(name)
        }
        if !removed.isEmpty { try DurableFile.sync(outbox) }
        return removed
    }

    static func sha256(_ data: Data) -> String {
        var digest = [UInt8](repeating: 0, count: 32)
        let ok = data.withUnsafeBytes { ik_sha256($0.baseAddress, $0.count, &digest) }
        return ok == 1 ? digest.map { String(format: "%02x", $0) }.joined() : ""
    }

}
