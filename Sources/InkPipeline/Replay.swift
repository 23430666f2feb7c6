import FoundationEssentials
import Glibc
import InkCore
import InkRender
import InkDisplay

public struct ReplayOptions: Sendable {
    public var pipeline = PipelineOptions()
    /// Write every `frameStep`-th rendered frame as a PNG into this directory.
    public var framesDirectory: String? = nil
    public var frameStep = 1
    /// Record the per-frame cost grouped by stroke (the benchmark's flatness figure).
    public var perStrokeCost = false
    /// Draw only the last frame: every event still goes through the engine on the frame
    /// clock (each frame's samples are marked as a drawn frame marks them), but the screen is
    /// drawn once, at the end. The picture is the frame-by-frame replay's last frame, pixel for
    /// pixel (`ReplayFinalPictureTests`); the frame figures (`ReplayStats`) then describe one frame.
    /// Ignored with `framesDirectory` or `perStrokeCost`.
    public var finalPictureOnly = false
    /// With `finalPictureOnly`: whether the screen is wanted at all. Without it (only the
    /// finished ink is written, as SVG, PDF or a capture) no frame is drawn.
    public var drawsScreen = true
    public init() {}
}

/// Plays a recording through the same pipeline as the kiosk, on a frame clock.
public struct Replay {
    public let recording: Recording
    public let settings: InteractionSettings
    public var options: ReplayOptions

    public init(recording: Recording, settings: InteractionSettings, options: ReplayOptions = ReplayOptions()) {
        self.recording = recording; self.settings = settings; self.options = options
    }

    /// Runs to the end of the recording and returns the pipeline (its display holds the screen).
    /// `beforeEachFrame` is where a mode's screen acts on the recording's taps and draws its
    /// controls; with `finalPictureOnly` it runs once, before the only frame drawn.
    public func run(on display: Display, beforeEachFrame: (FramePipeline) throws -> Void = { _ in })
        throws -> (pipeline: FramePipeline, stats: ReplayStats) {
        let pipeline = try FramePipeline(settings: settings, devices: recording.devices, display: display, options: options.pipeline)
        let clock = FrameClock(start: recording.events.first?.time ?? 0, fps: options.pipeline.fps)
        var reports: [FrameReport] = []
        var strokeCost: [Int: [Double]] = [:]
        var frameIndex = 0

        func frame() throws {
            try beforeEachFrame(pipeline)
            let report = try pipeline.renderFrame()
            reports.append(report)
            if options.perStrokeCost, let id = pipeline.document.active.values.map(\.id).max() {
                strokeCost[id, default: []].append(report.renderSeconds * 1000)
            }
            if let dir = options.framesDirectory, frameIndex % max(options.frameStep, 1) == 0 {
                try pipeline.renderer.frame.writePNG(to: "\(dir)/frame-\(String(cFormat: "%05d", frameIndex)).png")
            }
            frameIndex += 1
        }

        let onlyLast = options.finalPictureOnly && options.framesDirectory == nil && !options.perStrokeCost
        var i = 0
        let events = recording.events
        while i < events.count {
            let deadline = clock.deadline(after: events[i].time)
            while i < events.count, events[i].time <= deadline {
                pipeline.handle(events[i])
                i += 1
            }
            if onlyLast && (i < events.count || !options.drawsScreen) {
                pipeline.skipFrame(drawAhead: options.drawsScreen)
            } else {
                try frame()
            }
        }
        if (pipeline.needsFrame || reports.isEmpty) && !(onlyLast && !options.drawsScreen) { try frame() }

        let strokeMs = options.perStrokeCost ? strokeCost.keys.sorted().compactMap { id -> Double? in
            guard let costs = strokeCost[id] else { return nil }
            return Summary(costs).median
        } : nil
        let stats = ReplayStats(
            events: events.count, samples: pipeline.samplesReceived, strokes: pipeline.document.strokes.count,
            frames: reports.count, clampedValues: recording.clampedValues,
            renderMs: Summary(reports.map { $0.renderSeconds * 1000 }),
            damagedPixels: Summary(reports.map { Double($0.damagedPixels) }),
            strokeFrameMs: strokeMs)
        return (pipeline, stats)
    }
}
