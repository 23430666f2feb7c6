// SPDX-License-Identifier: Apache-2.0
import Testing
import InkCore
@testable import InkRender

@Suite struct PageSnapshotTests {
    /// Paper, solid ink, anti-aliased edges: the snapshot gives back every pixel as it was,
    /// deflated (a page kept off screen) or not (paper).
    @Test(arguments: [false, true]) func givesBackEveryPixel(deflated: Bool) throws {
        let size = PixelSize(width: 321, height: 97)
        let page = try ImageSurface(size: size, format: .xrgb)
        let ctx = CairoContext(page)
        ctx.fill(Rect(x: 0, y: 0, width: 321, height: 97), with: .white)
        ctx.fill(Rect(x: 10.5, y: 3.25, width: 100.3, height: 40.7), with: RGBA(0.1, 0.2, 0.7, 1))
        ctx.fill(Rect(x: 200, y: 50, width: 1, height: 1), with: RGBA(1, 0, 0, 1))
        let snapshot = PageSnapshot(of: page, backdrop: 0, deflated: deflated)
        #expect(snapshot.bytes < size.width * size.height * 4 / 4, "mostly runs: \(snapshot.bytes) bytes")
        let back = try ImageSurface(size: size, format: .xrgb)
        snapshot.restore(into: back)
        for y in 0..<size.height { for x in 0..<size.width { #expect(back.pixel(x: x, y: y) == page.pixel(x: x, y: y)) } }
    }

    @Test(arguments: [false, true]) func noiseComesBackToo(deflated: Bool) throws {
        let size = PixelSize(width: 64, height: 8)
        let page = try ImageSurface(size: size, format: .xrgb)
        let ctx = CairoContext(page)
        var seed: UInt32 = 7
        for y in 0..<8 {
            for x in 0..<64 {
                seed = seed &* 1_103_515_245 &+ 12345
                let v = Double(seed >> 16 & 0xff) / 255
                // Runs of 1, 2 and 3 equal pixels between random ones.
                ctx.fill(Rect(x: Double(x), y: Double(y), width: 1, height: 1), with: x % 5 < 3 ? RGBA(0, 0, 0, 1) : RGBA(v, v, v, 1))
            }
        }
        let back = try ImageSurface(size: size, format: .xrgb)
        PageSnapshot(of: page, backdrop: 0, deflated: deflated).restore(into: back)
        for y in 0..<8 { for x in 0..<64 { #expect(back.pixel(x: x, y: y) == page.pixel(x: x, y: y)) } }
    }

    /// Anti-aliased edges are literal words in the runs; deflated, a page of them takes far less.
    @Test func aDeflatedPageOfEdgesIsSmaller() throws {
        let size = PixelSize(width: 400, height: 300)
        let page = try ImageSurface(size: size, format: .xrgb)
        let ctx = CairoContext(page)
        ctx.fill(Rect(x: 0, y: 0, width: 400, height: 300), with: .white)
        for i in 0..<60 {
            let x = Double(i * 6) + 0.37 * Double(i % 3), y = Double(i * 4 % 250) + 0.61
            ctx.fill(Rect(x: x, y: y, width: 3.3, height: 40.2), with: RGBA(0.1, 0.1, 0.4, 1))
        }
        let plain = PageSnapshot(of: page, backdrop: 0), deflated = PageSnapshot(of: page, backdrop: 0, deflated: true)
        #expect(deflated.bytes * 2 < plain.bytes, "deflated \(deflated.bytes) bytes, plain \(plain.bytes)")
    }

    @Test func theCacheKeepsItsBudgetAndForgetsThePageLeftLongestAgo() throws {
        let page = try ImageSurface(size: PixelSize(width: 100, height: 10), format: .xrgb)
        let one = PageSnapshot(of: page, backdrop: 0)
        var cache = PageSnapshots(budget: one.bytes * 2)
        cache.keep(one, page: 0, revision: 1)
        cache.keep(one, page: 1, revision: 1)
        cache.keep(one, page: 2, revision: 1)
        #expect(!cache.has(0) && cache.has(1) && cache.has(2))
        #expect(cache.bytes <= cache.budget)
        #expect(cache.take(1, revision: 2) == nil, "a page changed since is painted again")
        #expect(!cache.has(1))
        #expect(cache.take(2, revision: 1) != nil)
    }
}

@Suite struct PageSnapshotPartTests {
    /// Part of a picture written back: exactly its pixels inside the rectangle (grown to whole
    /// pixels), nothing outside it.
    @Test(arguments: [false, true]) func restoresOnlyInsideTheRectangle(deflated: Bool) throws {
        let size = PixelSize(width: 120, height: 40)
        let page = try ImageSurface(size: size, format: .xrgb)
        let ctx = CairoContext(page)
        ctx.fill(Rect(x: 0, y: 0, width: 120, height: 40), with: .white)
        for i in 0..<30 { ctx.fill(Rect(x: Double(i * 4) + 0.3, y: Double(i % 9) * 4, width: 2.5, height: 7.2), with: RGBA(Double(i) / 30, 0.2, 0.5, 1)) }
        let snapshot = PageSnapshot(of: page, backdrop: 0, deflated: deflated)
        let target = try ImageSurface(size: size, format: .xrgb)
        CairoContext(target).fill(Rect(x: 0, y: 0, width: 120, height: 40), with: RGBA(1, 0, 0, 1))
        snapshot.restore(into: target, in: Rect(x: 10.5, y: 3.2, width: 61, height: 20))   // x 10..<72, y 3..<24
        for y in 0..<40 {
            for x in 0..<120 {
                let inside = (10..<72).contains(x) && (3..<24).contains(y)
                let expected = inside ? page.pixel(x: x, y: y) : (r: UInt8(255), g: UInt8(0), b: UInt8(0), a: UInt8(255))
                #expect(target.pixel(x: x, y: y) == expected, "(\(x), \(y)) inside \(inside)")
            }
        }
    }

    @Test func aPlainPictureIsItsColour() throws {
        let size = PixelSize(width: 9, height: 4)
        let page = try ImageSurface(size: size, format: .xrgb)
        CairoContext(page).fill(Rect(x: 0, y: 0, width: 9, height: 4), with: RGBA(0.2, 0.4, 0.6, 1))
        let word = page.withPixels { data, _ in data.load(as: UInt32.self) } ?? 0
        let back = try ImageSurface(size: size, format: .xrgb)
        PageSnapshot(size: size, pixel: word, backdrop: 0).restore(into: back, in: Rect(x: 0, y: 0, width: 9, height: 4))
        for y in 0..<4 { for x in 0..<9 { #expect(back.pixel(x: x, y: y) == page.pixel(x: x, y: y)) } }
    }
}
