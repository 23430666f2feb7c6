// SPDX-License-Identifier: Apache-2.0
import InkConfig
import InkCore
import InkDisplay
import InkKiosk
import InkTestSupport
@testable import InkPipeline

/// A replayed recording: the offscreen screen after the last frame, and the pipeline.
struct Replayed {
    let screen: Screen
    let pipeline: FramePipeline
    let stats: ReplayStats
}

/// A recording replayed with the draw mode's screen around the ink, as the kiosk shows it.
func replay(_ name: String, tool: ToolKind = .pen, prediction: Bool = true, label: String = "",
            screen: ScreenSettings = ScreenSettings(),
            configure: (inout InteractionSettings) -> Void = { _ in }) throws -> Replayed {
    var settings = InteractionSettings(screen: screenSize)
    settings.tool = tool
    configure(&settings)
    var options = ReplayOptions()
    options.pipeline.prediction = prediction
    let display = try OffscreenDisplay(size: screenSize)
    let (pipeline, stats) = try Replay(recording: try Fixtures.recording(name), settings: settings, options: options).run(on: display, screen: screen)
    let dir = try Fixtures.outputDirectory("replay")
    try display.writePNG(to: "\(dir)/\(name)-\(tool.rawValue)\(prediction ? "" : "-noprediction")\(label).png")
    return Replayed(screen: Screen(display.screen), pipeline: pipeline, stats: stats)
}
