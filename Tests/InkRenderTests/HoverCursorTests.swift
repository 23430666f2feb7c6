// SPDX-License-Identifier: Apache-2.0
import Testing
import InkCore
@testable import InkRender

@Suite struct CursorImage {
    func hover(_ tool: ToolKind, alpha: Double) -> HoverState {
        let s = Sample(location: Point(500, 300), pressure: 0.5, altitude: 0.8, azimuth: 0, time: 0)
        return HoverState(location: s.location, alpha: alpha, brush: .standard(tool), sample: s, nibAngle: .pi / 2)
    }

    @Test func thePreviewSitsOnTheHotspotWithItsFade() throws {
        let image = try HoverCursor.image(for: hover(.pen, alpha: 0.5), size: 64)
        let centre = image.pixel(x: 32, y: 32)
        #expect(abs(Double(centre.a) / 255 - 0.5) < 0.02, "alpha \(centre.a)")
        #expect(image.pixel(x: 2, y: 2).a == 0)
        #expect(image.pixel(x: 61, y: 61).a == 0)
    }

    @Test func everyToolsPreviewFitsACursorPlane() {
        for tool in ToolKind.allCases { #expect(HoverCursor.fits(hover(tool, alpha: 1), size: 64), "\(tool)") }
    }
}
