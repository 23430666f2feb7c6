// SPDX-License-Identifier: Apache-2.0
import InkConfig
import InkDisplay
import InkPipeline

extension Replay {
    /// Replays with a mode's screen around the ink, as the kiosk shows it: its buttons work on
    /// the recording's taps.
    public func run(on display: Display, screen settings: ScreenSettings) throws -> (pipeline: FramePipeline, stats: ReplayStats) {
        var withScreen = self
        withScreen.options.pipeline = settings.pipelineOptions(options.pipeline)
        // A screen with controls acts on taps frame by frame: it needs every frame.
        if settings.mode != .draw { withScreen.options.finalPictureOnly = false }
        let screen = settings.makeScreen(metrics: settings.metrics(size: display.size, widthMM: 0))
        var context: ScreenContext?
        return try withScreen.run(on: display) { pipeline in
            if context == nil { context = ScreenContext(pipeline: pipeline) }
            try screen.update(context!)
        }
    }
}
