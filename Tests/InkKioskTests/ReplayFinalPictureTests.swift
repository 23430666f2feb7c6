import InkConfig
import Foundation
import Testing
import InkCore
import InkRender
import InkDisplay
import InkKiosk
@testable import InkPipeline
import InkTestSupport

/// `replay` without `--stats` or `--frames` draws only its final picture: every event still
/// goes through the engine on the frame clock, but the screen is drawn once, with the strokes
/// drawn on every core. It must be the frame-by-frame replay's last screen, pixel for pixel,
/// from the same document (the samples marked coalesced alike).
@Suite struct ReplayFinalPictureTests {
    static let recordings = ["pressure", "tilt", "hover", "zigzag", "eraser", "buttons", "finger",
                             "finger-after-pen", "stray", "pad", "tipup-glitch", "signatures"]

    struct Run {
        let display: OffscreenDisplay
        let pipeline: FramePipeline
        let stats: ReplayStats
    }

    static func run(_ recording: Recording, tool: ToolKind, finalOnly: Bool, screen: ScreenSettings = ScreenSettings()) throws -> Run {
        var settings = InteractionSettings(screen: screenSize)
        settings.tool = tool
        var options = ReplayOptions()
        options.finalPictureOnly = finalOnly
        let display = try OffscreenDisplay(size: screenSize)
        let (pipeline, stats) = try Replay(recording: recording, settings: settings, options: options).run(on: display, screen: screen)
        return Run(display: display, pipeline: pipeline, stats: stats)
    }

    /// Pixels that differ between two same-size images: how many, and the first.
    static func difference(_ a: ImageSurface, _ b: ImageSurface) -> (count: Int, first: (x: Int, y: Int)?) {
        var count = 0
        var first: (x: Int, y: Int)?
        _ = a.withPixels { pa, strideA in
            b.withPixels { pb, strideB in
                for y in 0..<a.size.height {
                    let ra = pa.advanced(by: y * strideA).assumingMemoryBound(to: UInt32.self)
                    let rb = pb.advanced(by: y * strideB).assumingMemoryBound(to: UInt32.self)
                    // XRGB: the X byte is undefined.
                    let mask: UInt32 = a.format == .xrgb ? 0x00FF_FFFF : 0xFFFF_FFFF
                    for x in 0..<a.size.width where ra[x] & mask != rb[x] & mask {
                        count += 1
                        if first == nil { first = (x, y) }
                    }
                }
            }
        }
        return (count, first)
    }

    @Test(arguments: recordings.map { ($0, ToolKind.pen) } + [("tilt", .calligraphy), ("signatures", .calligraphy),
          ("zigzag", .highlighter), ("pressure", .debug), ("signatures", .highlighter)])
    func finalPictureIsTheLastFrame(name: String, tool: ToolKind) throws {
        let recording = try Fixtures.recording(name)
        let frames = try Self.run(recording, tool: tool, finalOnly: false)
        let final = try Self.run(recording, tool: tool, finalOnly: true)
        #expect(final.stats.frames == 1)
        #expect(frames.stats.frames > 10)
        #expect(final.stats.strokes == frames.stats.strokes && final.stats.samples == frames.stats.samples)
        // The same ink, down to which samples were coalesced into a frame.
        #expect(final.pipeline.document.strokes == frames.pipeline.document.strokes)
        #expect(final.pipeline.document.strokes.map { $0.samples.map(\.isCoalesced) }
                == frames.pipeline.document.strokes.map { $0.samples.map(\.isCoalesced) })
        let diff = Self.difference(final.display.screen, frames.display.screen)
        #expect(diff.count == 0, "\(name) with \(tool): \(diff.count) pixels differ, the first at \(String(describing: diff.first))")

        // And the PNG holds exactly those pixels (read back by cairo's own reader).
        let dir = try Fixtures.outputDirectory("final-picture")
        let path = "\(dir)/\(name)-\(tool.rawValue).png"
        try final.display.writePNG(to: path)
        let back = try ImageSurface.readPNG(path)
        #expect(Self.difference(back, frames.display.screen).count == 0)
    }

    @Test func aScreenWithControlsStillPlaysEveryFrame() throws {
        var screen = ScreenSettings()
        screen.mode = .signature
        screen.capture.outbox = try Fixtures.outputDirectory("final-picture-outbox")
        let run = try Self.run(try Fixtures.recording("zigzag"), tool: .pen, finalOnly: true, screen: screen)
        #expect(run.stats.frames > 10)
    }

    @Test(arguments: [false, true])
    func aRecordingReadAsItPlaysDrawsTheSame(finalOnly: Bool) throws {
        // `bench` and `replay` read the file as they play it instead of holding its events.
        let path = Fixtures.testsDirectory.appendingPathComponent("Recordings/signatures.inklog").path
        var options = ReplayOptions()
        options.finalPictureOnly = finalOnly
        let settings = InteractionSettings(screen: screenSize)
        let streamed = try OffscreenDisplay(size: screenSize)
        let (_, stats) = try Replay(stream: InklogStream(path: path), settings: settings, options: options).run(on: streamed)
        let held = try OffscreenDisplay(size: screenSize)
        let recording = try Fixtures.recording("signatures")
        let (_, heldStats) = try Replay(recording: recording, settings: settings, options: options).run(on: held)
        #expect(stats.events == recording.events.count && stats.frames == heldStats.frames && stats.samples == heldStats.samples)
        #expect(Self.difference(streamed.screen, held.screen).count == 0)
    }

    @Test func manyStrokesEndingInOneFrameAreDrawnAsTheirLayersWouldBe() throws {
        // The renderer's batch path (strokes drawn on several threads) against one stroke at a
        // time: a page of signatures, its strokes ended all at once or frame by frame.
        let recording = try Fixtures.recording("signatures")
        var settings = InteractionSettings(screen: screenSize)
        settings.tool = .pen
        let one = try OffscreenDisplay(size: screenSize)
        let pipeline = try FramePipeline(settings: settings, devices: recording.devices, display: one)
        for e in recording.events { pipeline.handle(e) }   // no frame until the end, nothing drawn ahead
        try pipeline.renderFrame()
        let frames = try Self.run(recording, tool: .pen, finalOnly: false)
        #expect(Self.difference(one.screen, frames.display.screen).count == 0)
    }
}
