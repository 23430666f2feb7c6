// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import Glibc

/// A W3C InkML document of strokes with every sample, so that a signature's dynamics (speed,
/// pressure, pen angle over time) can be verified later, not only its shape.
/// Channels: X, Y (pixels), F (force, 0…1), OA (azimuth, degrees), OE (elevation = altitude,
/// degrees), T (milliseconds since the first sample).
public struct InkMLWriter {
    public var dpi: Double
    public var deviceName: String

    public init(dpi: Double, deviceName: String) { self.dpi = dpi; self.deviceName = deviceName }

    public func document(_ strokes: [Stroke]) -> String {
        let start = strokes.first?.samples.first?.time ?? 0
        var out = """
        <?xml version="1.0" encoding="UTF-8"?>
        <ink xmlns="http://www.w3.org/2003/InkML">
          <definitions>
            <context xml:id="ctx0">
              <inkSource xml:id="src0" description="\(escape(deviceName))">
                <traceFormat xml:id="fmt0">
                  <channel name="X" type="decimal" units="dev"/>
                  <channel name="Y" type="decimal" units="dev"/>
                  <channel name="F" type="decimal" min="0" max="1"/>
                  <channel name="OA" type="decimal" units="deg"/>
                  <channel name="OE" type="decimal" units="deg"/>
                  <channel name="T" type="decimal" units="ms"/>
                </traceFormat>
                <channelProperties>
                  <channelProperty channel="X" name="resolution" value="\(number(dpi))" units="1/in"/>
                  <channelProperty channel="Y" name="resolution" value="\(number(dpi))" units="1/in"/>
                </channelProperties>
              </inkSource>
            </context>
          </definitions>

        """
        for stroke in strokes {
            let points = stroke.samples.map { s in
                [s.location.x, s.location.y, s.pressure, s.azimuth * 180 / .pi, s.altitude * 180 / .pi,
                 (s.time - start) * 1000].map(number).joined(separator: " ")
            }
            out += "  <trace contextRef=\"#ctx0\" xml:id=\"t\(stroke.id)\">\(points.joined(separator: ", "))</trace>\n"
        }
        return out + "</ink>\n"
    }

    private func number(_ v: Double) -> String {
        let r = (v * 1000).rounded() / 1000
        return r == r.rounded() ? String(Int(r)) : String(r)
    }

    private func escape(_ s: String) -> String {
        s.replacing("&", with: "&amp;").replacing("<", with: "&lt;")
            .replacing(">", with: "&gt;").replacing("\"", with: "&quot;")
    }
}
