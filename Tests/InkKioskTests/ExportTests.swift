// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import InkCore
import InkRender
import InkKiosk
import InkTestSupport

@Suite struct Exports {
    /// SVG and PDF, drawn back by independent renderers (librsvg, poppler), match the screen.
    @Test(arguments: [("pressure", ToolKind.pen), ("tilt", .calligraphy), ("zigzag", .highlighter)])
    func svgAndPdfMatchTheScreen(name: String, tool: ToolKind) throws {
        let rsvg = try #require(which("rsvg-convert"), "rsvg-convert (librsvg2-bin) is needed: run make deps")
        let pdftoppm = try #require(which("pdftoppm"), "pdftoppm (poppler-utils) is needed: run make deps")
        let r = try replay(name, tool: tool)
        let dir = try Fixtures.outputDirectory("exports")
        let base = "\(dir)/\(name)-\(tool.rawValue)"
        let exporter = Exporter(size: screenSize, background: .color(.white))
        try exporter.svg(r.pipeline.document.strokes, to: "\(base).svg")
        try exporter.pdf(r.pipeline.document.strokes, to: "\(base).pdf")

        let svgRun = try run(rsvg, ["-w", "\(screenSize.width)", "-h", "\(screenSize.height)", "-b", "white",
                                    "-o", "\(base).svg.png", "\(base).svg"])
        #expect(svgRun.status == 0, "rsvg-convert: \(svgRun.stderr)")
        // A page of 1280 × 800 pt at 72 dpi is 1280 × 800 pixels.
        let pdfRun = try run(pdftoppm, ["-png", "-r", "72", "-singlefile", "\(base).pdf", "\(base).pdf"])
        #expect(pdfRun.status == 0, "pdftoppm: \(pdfRun.stderr)")

        for path in ["\(base).svg.png", "\(base).pdf.png"] {
            let other = Screen(try ImageSurface.readPNG(path))
            #expect(other.image.size == screenSize, "\(path) is \(other.image.size)")
            guard other.image.size == screenSize else { continue }
            let diff = compare(r.screen, other)
            // The same ink: viewers antialias a stroked curve each their own way (poppler draws
            // a thin line onto whole pixels), so the pixels merely tinted differ in number while
            // the ink, each pixel's darkness summed, stays the screen's.
            let inkHere = r.screen.inkMass, inkThere = other.inkMass
            #expect(r.screen.markedTotal > 1000)
            #expect(diff.meanDelta < 0.5, "\(path): mean difference \(diff.meanDelta)")
            #expect(abs(inkHere - inkThere) * 50 < inkHere, "\(path): ink \(inkThere) vs \(inkHere) on screen")
        }
    }

    @Test func transparentPNGHasInkOnlyWhereThePenWent() throws {
        let r = try replay("pressure")
        let path = try Fixtures.outputDirectory("exports") + "/pressure-transparent.png"
        try Exporter(size: screenSize, background: .transparent).png(r.pipeline.document.strokes, to: path)
        let image = try ImageSurface.readPNG(path)
        #expect(image.pixel(x: 10, y: 10).a == 0)
        #expect(image.pixel(x: 640, y: 400).a == 255)
    }
}

@Suite struct CommandLine {
    var binary: String { Fixtures.inkkioskBinary }

    @Test func replayWritesFilesAndStatistics() throws {
        let dir = try Fixtures.outputDirectory("cli")
        let result = try run(binary, ["replay", Fixtures.testsDirectory.appendingPathComponent("Recordings/zigzag.inklog").path,
                                      "--size", "1280x800", "--png", "\(dir)/z.png", "--svg", "\(dir)/z.svg",
                                      "--pdf", "\(dir)/z.pdf", "--stats", "--frames", "\(dir)/frames", "--frame-step", "5"])
        #expect(result.status == 0, "\(result.stderr)")
        let stats = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        #expect(stats?["strokes"] as? Int == 2)
        #expect(stats?["samples"] as? Int == 102)
        #expect((stats?["renderMs"] as? [String: Any])?["p99"] != nil)
        for f in ["z.png", "z.svg", "z.pdf"] { #expect(FileManager.default.fileExists(atPath: "\(dir)/\(f)")) }
        let frames = try FileManager.default.contentsOfDirectory(atPath: "\(dir)/frames")
        #expect(frames.count >= 5)
    }

    @Test func aBadRecordingFailsWithItsLineNumber() throws {
        let dir = try Fixtures.outputDirectory("cli")
        let path = "\(dir)/bad.inklog"
        let header = #"{"inklog":1,"devices":[{"id":1,"kind":"tablet","name":"P","widthMM":224,"heightMM":140,"direct":false}]}"#
        try [header, #"{"t":1,"dev":1,"ev":"axis","x":0.5,"y":0.5}"#, #"{"t":1.1,"dev":1,"ev":"axis","x":0.5}"#]
            .joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        let result = try run(binary, ["replay", path, "--png", "\(dir)/bad.png"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("\(path):3: field 'y' is missing"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: "\(dir)/bad.png"))
    }

    @Test func badOptionsAreRefused() throws {
        let file = Fixtures.testsDirectory.appendingPathComponent("Recordings/zigzag.inklog").path
        for args in [["--size", "12x"], ["--tool", "crayon"], ["--rotation", "45"], ["--pressure-curve", "0,0 2,1"]] {
            let result = try run(binary, ["replay", file] + args)
            #expect(result.status != 0, "\(args) accepted")
            #expect(!result.stderr.isEmpty)
        }
    }
}
