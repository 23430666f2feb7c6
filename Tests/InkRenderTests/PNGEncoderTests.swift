// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import CCairo
import InkCore
@testable import InkRender

/// `PNGEncoder` writes the pixels cairo's own PNG writer writes: both files read back (by cairo)
/// to the same image.
@Suite struct PNGEncoderTests {
    /// Ink-like content and noise: paper, antialiased shapes in colours and half transparent,
    /// random pixels, fully transparent areas.
    static func picture(_ size: PixelSize, _ format: PixelFormat, seed: UInt64) throws -> ImageSurface {
        let image = try ImageSurface(size: size, format: format)
        let ctx = CairoContext(image)
        if format == .xrgb { ctx.fill(Rect(x: 0, y: 0, width: Double(size.width), height: Double(size.height)), with: .white) }
        var rng = SplitMix64(seed: seed)
        for _ in 0..<60 {
            let c = RGBA(Double.random(in: 0...1, using: &rng), Double.random(in: 0...1, using: &rng),
                         Double.random(in: 0...1, using: &rng), [1, 0.4, 0.02][Int.random(in: 0..<3, using: &rng)])
            let r = Rect(x: Double.random(in: -20...Double(size.width), using: &rng), y: Double.random(in: -20...Double(size.height), using: &rng),
                         width: Double.random(in: 0.3...80, using: &rng), height: Double.random(in: 0.3...40, using: &rng))
            ctx.fill(r, with: c, operator: CAIRO_OPERATOR_OVER)
        }
        for _ in 0..<200 {
            let x = Double(Int.random(in: 0..<size.width, using: &rng)), y = Double(Int.random(in: 0..<size.height, using: &rng))
            ctx.fill(Rect(x: x, y: y, width: 1, height: 1),
                     with: RGBA(Double.random(in: 0...1, using: &rng), 0.5, 0.25, Double.random(in: 0...1, using: &rng)))
        }
        cairo_surface_flush(image.surface)
        return image
    }

    static func readBack(_ data: Data, _ name: String) throws -> ImageSurface {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("inkkiosk-png-tests")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let path = dir.appendingPathComponent(name).path
        try data.write(to: URL(fileURLWithPath: path))
        return try ImageSurface.readPNG(path)
    }

    @Test(arguments: [(PixelSize(width: 1, height: 1), PixelFormat.xrgb), (PixelSize(width: 333, height: 517), .xrgb),
                      (PixelSize(width: 333, height: 517), .argb), (PixelSize(width: 1920, height: 1080), .xrgb),
                      (PixelSize(width: 97, height: 130), .argb)])
    func sameImageAsCairosWriter(size: PixelSize, format: PixelFormat) throws {
        let image = try Self.picture(size, format, seed: UInt64(size.width * 7 + size.height))
        let ours = try image.pngData(), cairos = try image.cairoPNGData()
        let name = "\(size.width)x\(size.height)-\(format)"
        let a = try Self.readBack(ours, "\(name)-ours.png"), b = try Self.readBack(cairos, "\(name)-cairo.png")
        #expect(a.size == size && a.format == format)
        var differing = 0
        for y in 0..<size.height { for x in 0..<size.width where a.pixel(x: x, y: y) != b.pixel(x: x, y: y) { differing += 1 } }
        #expect(differing == 0, "\(name): \(differing) pixels differ")
        // Colour type: RGB for a screen, RGBA for a transparent picture.
        #expect(ours[25] == (format == .xrgb ? 2 : 6))
    }
}
