// SPDX-License-Identifier: Apache-2.0
import Testing
import CCairo
import InkCore
import InkDisplay
import InkPipeline
@testable import InkRender
import InkTestSupport

/// Strokes keep their samples in single precision (`StoredSample`): the ink of every bundled
/// recording, painted from the samples a stroke keeps, matches the same ink painted from the
/// samples the pen gave (full precision) within the tolerance docs/RECORDINGS.md states:
/// no channel off by more than 3, at most 200 pixels differing at all.
@Suite struct CompactInkPictureTests {
    static let recordings = ["buttons", "eraser", "finger-after-pen", "finger", "hover", "pad", "pressure",
                             "signatures", "stray", "tilt", "tipup-glitch", "zigzag"]
    static let maxChannelDifference = 3
    static let maxDifferingPixels = 200

    @Test(arguments: recordings) func keptInkLooksAsTheFullPrecisionInk(_ name: String) throws {
        let recording = try Fixtures.recording(name)
        var settings = InteractionSettings(screen: screenSize)
        settings.tool = name == "tilt" ? .calligraphy : .pen
        let display = try OffscreenDisplay(size: screenSize)
        let (pipeline, _) = try Replay(recording: recording, settings: settings).run(on: display)
        let strokes = pipeline.document.strokes
        #expect(!strokes.isEmpty || name == "hover", "only the hover recording draws no ink")
        let given = Self.strokesAsGiven(recording, settings: settings)

        let kept = try Self.blankPage(), full = try Self.blankPage()
        for stroke in strokes {
            let original = try #require(given[stroke.samples[0].time], "stroke \(stroke.id) was drawn")
            #expect(original.count == stroke.samples.count)
            var angles: [Double] = []
            for s in original { angles.append(stroke.brush.nibAngle(for: s, previous: angles.last)) }
            Self.paint(stroke.brush, original, angles, on: full)
            Self.paint(stroke.brush, Array(stroke.samples), Array(stroke.nibAngles), on: kept)
        }
        let (differing, largest) = Self.difference(kept, full)
        #expect(largest <= Self.maxChannelDifference, "\(name): a channel differs by \(largest)")
        #expect(differing <= Self.maxDifferingPixels, "\(name): \(differing) pixels differ")
    }

    /// The recording's strokes as the interaction made them (before any stroke kept them), by
    /// their first sample's time (which a stroke keeps exactly).
    static func strokesAsGiven(_ recording: Recording, settings: InteractionSettings) -> [Double: [Sample]] {
        var interaction = Interaction(settings: settings, devices: recording.devices)
        var active: [StrokeSource: [Sample]] = [:]
        var done: [Double: [Sample]] = [:]
        func finish(_ source: StrokeSource) {
            if let samples = active.removeValue(forKey: source), let first = samples.first { done[first.time] = samples }
        }
        for event in recording.events {
            for intent in interaction.handle(event) {
                switch intent {
                case let .beginStroke(source, _, sample):
                    finish(source)
                    active[source] = [sample]
                case let .appendSample(source, sample):
                    active[source]?.append(sample)
                case let .updateSample(source, index, real):
                    guard var samples = active[source],
                          let i = samples.lastIndex(where: { $0.updateIndex == index && !$0.estimatesExpectingUpdate.isEmpty })
                    else { break }
                    samples[i].applyUpdate(from: real)
                    active[source] = samples
                case let .endStroke(source):
                    finish(source)
                case let .cancelStroke(source):
                    active.removeValue(forKey: source)
                case .press:
                    break
                }
            }
        }
        return done
    }

    static func blankPage() throws -> ImageSurface {
        let page = try ImageSurface(size: screenSize, format: .xrgb)
        let cr = cairo_create(page.surface)!
        cairo_set_source_rgb(cr, 1, 1, 1)
        cairo_paint(cr)
        cairo_destroy(cr)
        return page
    }

    /// A stroke as the canvas paints it: its pieces in one layer, at the brush's opacity.
    static func paint(_ brush: Brush, _ samples: [Sample], _ angles: [Double], on page: ImageSurface) {
        let cr = cairo_create(page.surface)!
        cairo_push_group(cr)
        let shaper = StrokeShaper(brush: brush)
        for k in samples.indices {
            ShapePainter.draw(shaper.piece(k, samples: samples, nibAngles: angles).shapes, in: cr)
        }
        cairo_pop_group_to_source(cr)
        cairo_paint_with_alpha(cr, brush.opacity)
        cairo_destroy(cr)
    }

    /// How many pixels differ, and the largest difference in any channel.
    static func difference(_ a: ImageSurface, _ b: ImageSurface) -> (pixels: Int, largest: Int) {
        var pixels = 0, largest = 0
        for y in 0..<a.size.height {
            for x in 0..<a.size.width {
                let p = a.pixel(x: x, y: y), q = b.pixel(x: x, y: y)
                let d = max(abs(Int(p.r) - Int(q.r)), abs(Int(p.g) - Int(q.g)), abs(Int(p.b) - Int(q.b)))
                if d > 0 { pixels += 1 }
                largest = max(largest, d)
            }
        }
        return (pixels, largest)
    }
}
