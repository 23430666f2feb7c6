// SPDX-License-Identifier: Apache-2.0
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Glibc
import Testing
import InkCore
@testable import InkStorage
import InkRender
import InkAPI
@testable import InkKiosk
import InkTestSupport

/// Counts InkML traces and their points, independently of our writer.
private final class InkMLCounter: NSObject, XMLParserDelegate {
    var traces = 0, points = 0, channels: [String] = []
    private var text = ""
    func parser(_ p: XMLParser, didStartElement e: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String]) {
        if e == "trace" { traces += 1; text = "" }
        if e == "channel", let n = attributes["name"] { channels.append(n) }
    }
    func parser(_ p: XMLParser, foundCharacters s: String) { text += s }
    func parser(_ p: XMLParser, didEndElement e: String, namespaceURI: String?, qualifiedName: String?) {
        if e == "trace" {
            let pts = text.split(separator: ",")
            points += pts.count
            #expect(pts.allSatisfy { $0.split(separator: " ").count == channels.count })
        }
    }
}

@Suite struct SignatureCaptures {
    func capture(_ name: String, strokes: [Stroke]) -> SignatureCapture {
        SignatureCapture(name: name, strokes: strokes, screen: screenSize, dpi: 96, device: "Wacom Intuos5 touch M Pen",
                         started: Date(timeIntervalSince1970: 1_790_000_000), ended: Date(timeIntervalSince1970: 1_790_000_004),
                         exporter: CairoCaptureExporter())
    }

    @Test func anAcceptedSignatureLandsWholeInTheOutbox() throws {
        let r = try replay("zigzag")
        let strokes = r.pipeline.document.strokes
        let outbox = try Fixtures.outputDirectory("outbox-\(UUID().uuidString.prefix(8))")
        let paths = try capture("sig-0001", strokes: strokes).write(to: outbox)
        #expect(paths == ["png", "svg", "inkml", "json"].map { "\(outbox)/sig-0001/sig-0001.\($0)" })
        for path in paths {
            #expect(mode(path) == 0o600, "\(path) has mode \(String(mode(path), radix: 8))")
        }
        #expect(mode("\(outbox)/sig-0001") == 0o700)
        #expect(try FileManager.default.contentsOfDirectory(atPath: outbox) == ["sig-0001"], "no temporary files left behind")
        #expect(try FileManager.default.contentsOfDirectory(atPath: "\(outbox)/sig-0001").sorted()
                == paths.map { URL(fileURLWithPath: $0).lastPathComponent }.sorted())
        #expect(throws: StorageError.self, "a capture is written once") { try capture("sig-0001", strokes: strokes).write(to: outbox) }

        // The metadata's checksums are those an independent tool computes.
        let meta = try JSONDecoder().decode(SignatureCapture.Metadata.self, from: Data(contentsOf: URL(fileURLWithPath: paths[3])))
        let sums = try run("/usr/bin/sha256sum", Array(paths.prefix(3)))
        for line in sums.stdout.split(separator: "\n") {
            let parts = line.split(separator: " ", omittingEmptySubsequences: true)
            let file = URL(fileURLWithPath: String(parts[1])).lastPathComponent
            #expect(meta.sha256[file] == String(parts[0]), "\(file)")
        }
        #expect(meta.samples == strokes.reduce(0) { $0 + $1.samples.count } && meta.strokes == 2)
        #expect(meta.started == "2026-09-21T14:13:20.000Z" && meta.screen.width == 1280)

        // The PNG: transparent, cropped to the ink with a margin, ink inside.
        let png = try ImageSurface.readPNG(paths[0])
        let ink = strokes.reduce(Rect.empty) { $0.union($1.bounds) }
        #expect(abs(Double(png.size.width) - (ink.width + 32)) <= 2 && abs(Double(png.size.height) - (ink.height + 32)) <= 2,
                "\(png.size) for ink \(ink)")
        #expect(png.pixel(x: 0, y: 0).a == 0)
        #expect(Screen(png).markedTotal > 1000)

        // The SVG draws the same ink (librsvg), the InkML holds every sample (Foundation's parser).
        let svgPNG = paths[1] + ".png"
        let rsvg = try run(try #require(which("rsvg-convert")), ["-o", svgPNG, paths[1]])
        #expect(rsvg.status == 0)
        let drawn = try ImageSurface.readPNG(svgPNG)
        #expect(drawn.size == png.size)
        let counter = InkMLCounter()
        let parser = try #require(XMLParser(contentsOf: URL(fileURLWithPath: paths[2])))
        parser.delegate = counter
        #expect(parser.parse(), "\(parser.parserError.map { "\($0)" } ?? "")")
        #expect(counter.traces == 2 && counter.points == meta.samples)
        #expect(counter.channels == ["X", "Y", "F", "OA", "OE", "T"])
    }

    @Test func anEmptySignatureIsRefusedAndWritesNothing() throws {
        let outbox = try Fixtures.outputDirectory("outbox-empty-\(UUID().uuidString.prefix(8))")
        #expect(throws: StorageError.self) { try capture("sig-empty", strokes: []).write(to: outbox) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: outbox).isEmpty)
    }

    @Test func theSweepRemovesWhatAPowerCutLeftOfACaptureAndNothingElse() throws {
        let r = try replay("pressure")
        let outbox = try Fixtures.outputDirectory("outbox-sweep-\(UUID().uuidString.prefix(8))")
        try capture("sig-whole", strokes: r.pipeline.document.strokes).write(to: outbox)
        // A cut during a second capture leaves its hidden directory; the flat layout of earlier
        // versions could leave files without their JSON, or a temporary file. And a file that is no capture's.
        try FileManager.default.createDirectory(atPath: "\(outbox)/.sig-cut.partial", withIntermediateDirectories: false)
        try Data("x".utf8).write(to: URL(fileURLWithPath: "\(outbox)/.sig-cut.partial/sig-cut.png"))
        for name in ["sig-half.png", "sig-half.svg", ".sig-half.inkml.tmp", "README.txt"] {
            try Data("x".utf8).write(to: URL(fileURLWithPath: "\(outbox)/\(name)"))
        }
        let removed = try SignatureCapture.sweep(outbox: outbox)
        #expect(removed == [".sig-cut.partial/", ".sig-half.inkml.tmp", "sig-half.png", "sig-half.svg"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: outbox).sorted() == ["README.txt", "sig-whole"])
        #expect(SignatureCapture.stored(outbox: outbox).captures.keys.sorted() == ["sig-whole"])
        #expect(try SignatureCapture.sweep(outbox: outbox).isEmpty)
        #expect(try SignatureCapture.sweep(outbox: "\(outbox)/missing").isEmpty)
    }

    /// Every file and directory under `dir` (itself included) with its mode.
    func modes(under dir: String) throws -> [String: Int] {
        var out = [dir: mode(dir)]
        for name in try FileManager.default.subpathsOfDirectory(atPath: dir) { out["\(dir)/\(name)"] = mode("\(dir)/\(name)") }
        return out
    }

    /// A crash at each step of the write: what a host polling the outbox sees, what the next
    /// start makes of it, and that nothing was ever readable by others.
    @Test(arguments: [SignatureCapture.Step.written(files: 1), .written(files: 2), .written(files: 3), .written(files: 4), .renamed])
    func aCrashAtAnyStepLeavesAllOrNothing(_ step: SignatureCapture.Step) throws {
        let strokes = try replay("pressure").pipeline.document.strokes
        let outbox = try Fixtures.outputDirectory("outbox-crash-\(UUID().uuidString.prefix(8))")
        let id = "20260314T101502Z-3fa91c"
        // The host was given the id before the signer pressed Accept.
        try RequestLog(outbox: outbox).append(.init(id: id, event: .started, at: "2026-03-14T10:15:02.000Z", prompt: "Sign", timeout: 60),
                                              durable: true)
        #expect(throws: SignatureCapture.Stopped.self) { try capture(id, strokes: strokes).write(to: outbox, stoppingAt: step) }

        let visible = try FileManager.default.contentsOfDirectory(atPath: outbox).filter { !$0.hasPrefix(".") }
        let left = try modes(under: outbox).filter { $0.key != outbox && !$0.key.hasSuffix("/.requests") }
        #expect(!left.isEmpty)
        for (path, m) in left {
            var isDir: ObjCBool = false
            #expect(FileManager.default.fileExists(atPath: path, isDirectory: &isDir))
            #expect(m == (isDir.boolValue ? 0o700 : 0o600), "\(step): \(path) has mode \(String(m, radix: 8))")
        }
        #expect(mode("\(outbox)/.requests") == 0o600)

        let removed = try SignatureCapture.sweep(outbox: outbox)
        let archive = OutboxArchive(outbox: outbox, retention: Retention(keep: 10, maxAgeDays: 0))
        let status = try #require(archive.restored.first { $0.id == id })
        if step == .renamed {
            #expect(visible == [id], "the whole capture is visible once renamed")
            #expect(removed.isEmpty)
            #expect(status.state == .accepted && status.prompt == "Sign" && status.timeout == 60, "\(status)")
            #expect(status.files?.json == "\(outbox)/\(id)/\(id).json" && status.files?.samples == strokes.reduce(0) { $0 + $1.samples.count })
        } else {
            #expect(visible.isEmpty, "\(step): a host polling the outbox sees nothing of a half capture")
            #expect(removed == [".\(id).partial/"])
            #expect(try FileManager.default.contentsOfDirectory(atPath: outbox) == [".requests"])
            #expect(status.state == .interrupted && status.files == nil && status.reason == CaptureReason.interrupted, "\(status)")
            // The outcome is written down: the next start says the same, and the same time.
            let again = OutboxArchive(outbox: outbox, retention: Retention(keep: 10, maxAgeDays: 0))
            #expect(again.restored == archive.restored)
        }
    }

    @Test func retentionRemovesWholeCaptureDirectoriesAndTheirRecord() throws {
        let strokes = try replay("pressure").pipeline.document.strokes
        let outbox = try Fixtures.outputDirectory("outbox-retention-\(UUID().uuidString.prefix(8))")
        let log = RequestLog(outbox: outbox)
        for (i, id) in ["c1", "c2", "c3"].enumerated() {
            try log.append(.init(id: id, event: .started, at: "2026-03-14T10:15:0\(i).000Z"), durable: true)
            try capture(id, strokes: strokes).write(to: outbox)
            // Modification times one minute apart, oldest first.
            let time = Date(timeIntervalSinceNow: Double(i - 3) * 60)
            try FileManager.default.setAttributes([.modificationDate: time], ofItemAtPath: "\(outbox)/\(id)")
        }
        let archive = OutboxArchive(outbox: outbox, retention: Retention(keep: 2, maxAgeDays: 0))
        #expect(try FileManager.default.contentsOfDirectory(atPath: outbox).sorted() == [".requests", "c2", "c3"])
        #expect(archive.restored.map(\.id) == ["c2", "c3"] && archive.restored.allSatisfy { $0.state == .accepted })
        #expect(log.read().entries.map(\.id) == ["c2", "c3"], "the record keeps what the outbox keeps")
        #expect(mode(log.path) == 0o600)
    }

    @Test func aNameThatCouldLeaveTheOutboxIsRefused() throws {
        let r = try replay("pressure")
        let outbox = try Fixtures.outputDirectory("outbox-names")
        #expect(throws: StorageError.self) { try capture("../evil", strokes: r.pipeline.document.strokes).write(to: outbox) }
    }
}
