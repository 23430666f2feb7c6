// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import InkCore
@testable import InkRender

/// A renderer on one surface (the canvas is the frame: a replay that writes only its final
/// picture) must show what a renderer with a canvas of its own shows, also in a frame after one
/// that composed a stroke being drawn over the ink.
@Suite struct OneSurfaceRendererTests {
    static let screen = PixelSize(width: 320, height: 200)

    /// Pixels that differ between two XRGB frames (the X byte is undefined).
    static func differing(_ a: ImageSurface, _ b: ImageSurface) -> Int {
        var count = 0
        _ = a.withPixels { pa, strideA in
            b.withPixels { pb, strideB in
                for y in 0..<a.size.height {
                    let ra = pa.advanced(by: y * strideA).assumingMemoryBound(to: UInt32.self)
                    let rb = pb.advanced(by: y * strideB).assumingMemoryBound(to: UInt32.self)
                    for x in 0..<a.size.width where ra[x] & 0x00FF_FFFF != rb[x] & 0x00FF_FFFF { count += 1 }
                }
            }
        }
        return count
    }

    /// Pixels of a frame darker than the paper.
    static func inked(_ frame: ImageSurface) -> Int {
        var count = 0
        for y in 0..<frame.size.height {
            for x in 0..<frame.size.width where frame.pixel(x: x, y: y).r < 200 { count += 1 }
        }
        return count
    }

    static func sample(_ x: Double, _ y: Double, _ t: Double) -> Sample {
        Sample(location: Point(x, y), pressure: 0.6, time: t)
    }

    @Test func framesMatchARendererWithItsOwnCanvas() throws {
        let own = try FrameRenderer(size: Self.screen)
        let one = try FrameRenderer(size: Self.screen, oneSurface: true)
        var document = Document()
        let pen = StrokeSource.pen(device: 1)
        func frame() throws -> (own: Int, inked: Int) {
            document.finishFrame()
            let changes = document.takeChanges()
            _ = try own.render(document: document, changes: changes, overlay: OverlayScene())
            _ = try one.render(document: document, changes: changes, overlay: OverlayScene())
            return (Self.differing(own.frame, one.frame), Self.inked(one.frame))
        }

        // A finished stroke, and a second one still being drawn (composed over the ink).
        document.apply(.beginStroke(pen, .standard(.pen), Self.sample(20, 20, 0)))
        for i in 1...20 { document.apply(.appendSample(pen, Self.sample(20 + Double(i) * 12, 20 + Double(i) * 7, Double(i) / 100))) }
        document.apply(.endStroke(pen))
        document.apply(.beginStroke(pen, .standard(.pen), Self.sample(300, 30, 1)))
        for i in 1...15 { document.apply(.appendSample(pen, Self.sample(300 - Double(i) * 15, 30 + Double(i) * 9, 1 + Double(i) / 100))) }
        let first = try frame()
        #expect(first.own == 0)
        #expect(first.inked > 100)

        // The second stroke ends (its ink painted once, not over its own composed copy), then is
        // undone: the frame must not keep its ink.
        document.apply(.endStroke(pen))
        let ended = try frame()
        #expect(ended.own == 0)
        document.undo()
        let second = try frame()
        #expect(second.own == 0)
        #expect(second.inked < first.inked)
    }

    /// Strokes handed to a worker before the frame (`drawAhead`: a replay that draws only its
    /// final picture) are painted onto the one surface as they are drawn, in order: crossing
    /// strokes of different colours, a translucent highlighter among them, give the picture of
    /// a renderer that paints them all in the frame, to the pixel; also when the screen changes
    /// the canvas meanwhile (another page shown), and drawn whole, to within antialiasing.
    @Test(arguments: [(false, false), (true, false), (false, true)])
    func strokesDrawnAheadAreOnThePictureInOrder(otherPageMeanwhile: Bool, whole: Bool) throws {
        let own = try FrameRenderer(size: Self.screen)
        let one = try FrameRenderer(size: Self.screen, oneSurface: true, wholeStrokes: whole)
        var document = Document()
        let pen = StrokeSource.pen(device: 1)
        let brushes = [Brush.standard(.pen), Brush(tool: .pen, color: RGBA(0.8, 0.1, 0.1), width: 9),
                       Brush.standard(.highlighter), Brush(tool: .pen, color: RGBA(0.1, 0.35, 0.85), width: 5),
                       Brush(tool: .calligraphy, color: RGBA(0.1, 0.55, 0.2), width: 12), Brush(tool: .pen, color: .ink, width: 3)]
        var t = 0.0
        for (n, brush) in brushes.enumerated() {
            let y0 = 30 + Double(n) * 25
            t += 1
            document.apply(.beginStroke(pen, brush, Self.sample(20, y0, t)))
            for i in 1...24 {
                let x = 20 + Double(i) * 12, y = y0 + 60 * sin(Double(i + n) * 0.4)
                document.apply(.appendSample(pen, Self.sample(x, min(max(y, 5), 195), t + Double(i) / 100)))
            }
            document.apply(.endStroke(pen))
            document.finishFrame()
        }
        one.drawAhead(document.endedSinceTaken)
        if otherPageMeanwhile {
            own.showAnotherDocument()
            one.showAnotherDocument()
        }
        document.finishFrame()
        let changes = document.takeChanges()
        _ = try own.render(document: document, changes: changes, overlay: OverlayScene())
        _ = try one.render(document: document, changes: changes, overlay: OverlayScene())
        #expect(Self.inked(one.frame) > 2000)
        let differing = Self.differing(own.frame, one.frame)
        if whole {
            #expect(differing > 0 && differing < Self.inked(own.frame) / 4, "\(differing) pixels differ")
        } else {
            #expect(differing == 0, "\(differing) pixels differ")
        }
    }
}
