// SPDX-License-Identifier: Apache-2.0
import Foundation
import InkCore
import InkRender

/// The screen size the recordings' tablet (224 × 140 mm) maps onto exactly.
public let screenSize = PixelSize(width: 1280, height: 800)

/// Where the tests find what they work with, and where they leave their files.
public enum Fixtures {
    public static let testsDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    public static let packageDirectory = testsDirectory.deletingLastPathComponent()
    /// The `inkkiosk` executable built with these tests: beside the test bundle, whatever the
    /// build directory (.build/debug, or .build-arm64/… for the cross-built tests).
    public static let inkkioskBinary = URL(fileURLWithPath: Swift.CommandLine.arguments[0]).deletingLastPathComponent()
        .appendingPathComponent("inkkiosk").path

    /// Run by qemu-aarch64 (the cross-built tests): no seccomp filters there (the emulator refuses them).
    public static let emulated = ProcessInfo.processInfo.environment["QEMU_LD_PREFIX"] != nil

    public static func recording(_ name: String) throws -> Recording {
        try InklogReader.read(contentsOf: testsDirectory.appendingPathComponent("Recordings/\(name).inklog"))
    }

    /// A fresh directory for files a test writes (kept for a person to look at).
    public static func outputDirectory(_ test: String) throws -> String {
        let dir = packageDirectory.appendingPathComponent(".build/test-output/\(test)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }
}

/// Pixel questions a person would ask of a screen: is there ink here?
public struct Screen {
    public let image: ImageSurface
    public init(_ image: ImageSurface) { self.image = image }

    /// How far a pixel is from the white paper, 0 (white) … 1 (black).
    public func darkness(_ x: Int, _ y: Int) -> Double {
        let p = image.pixel(x: x, y: y)
        let alpha = Double(p.a) / 255
        let lum = (Double(p.r) + Double(p.g) + Double(p.b)) / (3 * 255)
        return alpha * (1 - lum)
    }

    public func hasInk(_ x: Int, _ y: Int) -> Bool { darkness(x, y) > 0.25 }

    /// Ink anywhere within `r` pixels of (x, y).
    public func inkNear(_ x: Int, _ y: Int, radius r: Int = 2) -> Bool {
        for dy in -r...r { for dx in -r...r where hasInk(x + dx, y + dy) { return true } }
        return false
    }

    /// Rows of ink in column x around y (the stroke's thickness there).
    public func thickness(x: Int, around y: Int, span: Int = 40) -> Int {
        (y - span...y + span).filter { darkness(x, $0) > 0.5 }.count
    }

    /// Columns of ink in row y around x.
    public func width(y: Int, around x: Int, span: Int = 40) -> Int {
        (x - span...x + span).filter { darkness($0, y) > 0.5 }.count
    }

    /// Number of inked pixels in a rectangle.
    public func inkCount(x0: Int, y0: Int, x1: Int, y1: Int) -> Int {
        var n = 0
        for y in y0..<y1 { for x in x0..<x1 where hasInk(x, y) { n += 1 } }
        return n
    }

    /// Pixels visibly off white in any channel (also pale highlighter ink).
    public var markedTotal: Int {
        var n = 0
        for y in 0..<image.size.height { for x in 0..<image.size.width {
            let p = image.pixel(x: x, y: y)
            if min(p.r, p.g, p.b) < 225 { n += 1 }
        } }
        return n
    }

    /// The ink on the picture: every pixel's darkness summed (a pixel half covered counts half).
    public var inkMass: Double {
        var sum = 0.0
        for y in 0..<image.size.height { for x in 0..<image.size.width { sum += darkness(x, y) } }
        return sum
    }

    public var inkTotal: Int { inkCount(x0: 0, y0: 0, x1: image.size.width, y1: image.size.height) }
}

/// Tablet-normalised coordinates → screen pixels for the test recordings.
public func px(_ x: Double, _ y: Double) -> (Int, Int) {
    (Int((x * Double(screenSize.width)).rounded()), Int((y * Double(screenSize.height)).rounded()))
}
