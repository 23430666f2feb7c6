import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
import InkCore
import InkStorage
import InkRender
@testable import InkKiosk

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
                         started: Date(timeIntervalSince1970: 1_790_000_000), ended: Date(timeIntervalSince1970: 1_790_000_004))
    }

    @Test func anAcceptedSignatureLandsWholeInTheOutbox() throws {
        let r = try replay("zigzag")
        let strokes = r.pipeline.document.strokes
        let outbox = try Fixtures.outputDirectory("outbox-\(UUID().uuidString.prefix(8))")
        let paths = try capture("sig-0001", strokes: strokes).write(to: outbox)
        #expect(paths.map { URL(fileURLWithPath: $0).lastPathComponent } == ["sig-0001.png", "sig-0001.svg", "sig-0001.inkml", "sig-0001.json"])
        for path in paths {
            let mode = (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? 0
            #expect(mode == 0o600, "\(path) has mode \(String(mode, radix: 8))")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: outbox).sorted() == paths.map { URL(fileURLWithPath: $0).lastPathComponent }.sorted(),
                "no temporary files left behind")

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
        let whole = try capture("sig-whole", strokes: r.pipeline.document.strokes).write(to: outbox)
        // What a cut during a second capture can leave: two files renamed into place, one still
        // under its temporary name, no JSON. And a file that is no capture's.
        for name in ["sig-half.png", "sig-half.svg", ".sig-half.inkml.tmp", "README.txt"] {
            try Data("x".utf8).write(to: URL(fileURLWithPath: "\(outbox)/\(name)"))
        }
        let removed = try SignatureCapture.sweep(outbox: outbox)
        #expect(removed == [".sig-half.inkml.tmp", "sig-half.png", "sig-half.svg"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: outbox).sorted()
                == (whole.map { URL(fileURLWithPath: $0).lastPathComponent } + ["README.txt"]).sorted())
        #expect(try SignatureCapture.sweep(outbox: outbox).isEmpty)
        #expect(try SignatureCapture.sweep(outbox: "\(outbox)/missing").isEmpty)
    }

    @Test func aNameThatCouldLeaveTheOutboxIsRefused() throws {
        let r = try replay("pressure")
        let outbox = try Fixtures.outputDirectory("outbox-names")
        #expect(throws: StorageError.self) { try capture("../evil", strokes: r.pipeline.document.strokes).write(to: outbox) }
    }
}
