// SPDX-License-Identifier: Apache-2.0
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
    /// With `finalPictureOnly`: each finished pen or highlighter stroke is drawn as one path,
    /// filled once, not piece by piece as the live screen draws it (`FrameRenderer(wholeStrokes:)`):
    /// the picture is then the last frame's within the tolerance `ReplayFinalPictureTests` states.
    public var wholeStrokes = false
    /// Runs on the new pipeline before the first event (a benchmark puts a worksheet's page under the ink).
    public var prepare: (@Sendable (FramePipeline) -> Void)? = nil
    public init() {}
}

/// Plays a recording through the same pipeline as the kiosk, on a frame clock.
public struct Replay {
    /// Where the events come from: a recording in memory, or its file read as it plays (a long
    /// recording then costs no memory for its events).
    public enum Events {
        case recording(Recording)
        case stream(InklogStream)
    }
    public let events: Events
    public let settings: InteractionSettings
    public var options: ReplayOptions

    public init(recording: Recording, settings: InteractionSettings, options: ReplayOptions = ReplayOptions()) {
        events = .recording(recording); self.settings = settings; self.options = options
    }

    /// Plays `stream` (once: a stream is read as it plays).
    public init(stream: InklogStream, settings: InteractionSettings, options: ReplayOptions = ReplayOptions()) {
        events = .stream(stream); self.settings = settings; self.options = options
    }

    var devices: [DeviceInfo] {
        switch events { case .recording(let r): return r.devices; case .stream(let s): return s.devices }
    }

    /// Runs to the end of the recording and returns the pipeline (its display holds the screen).
    /// `beforeEachFrame` is where a mode's screen acts on the recording's taps and draws its
    /// controls; with `finalPictureOnly` it runs once, before the only frame drawn.
    public func run(on display: Display, beforeEachFrame: (FramePipeline) throws -> Void = { _ in })
        throws -> (pipeline: FramePipeline, stats: ReplayStats) {
        let onlyLast = options.finalPictureOnly && options.framesDirectory == nil && !options.perStrokeCost
        var pipelineOptions = options.pipeline
        pipelineOptions.oneFrame = onlyLast
        pipelineOptions.wholeStrokes = onlyLast && options.wholeStrokes
        let pipeline = try FramePipeline(settings: settings, devices: devices, display: display, options: pipelineOptions)
        options.prepare?(pipeline)
        var events = EventCursor(self.events)
        let clock = FrameClock(start: try events.peek()?.time ?? 0, fps: options.pipeline.fps)
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

        while let next = try events.peek() {
            let deadline = clock.deadline(after: next.time)
            while let event = try events.peek(), event.time <= deadline {
                pipeline.handle(event)
                events.advance()
            }
            let more = try events.peek() != nil
            if onlyLast && (more || !options.drawsScreen) {
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
            events: events.played, samples: pipeline.samplesReceived, strokes: pipeline.document.strokes.count,
            frames: reports.count, clampedValues: events.clampedValues,
            renderMs: Summary(reports.map { $0.renderSeconds * 1000 }),
            damagedPixels: Summary(reports.map { Double($0.damagedPixels) }),
            strokeFrameMs: strokeMs)
        return (pipeline, stats)
    }
}

/// The replay's events one at a time, with a look at the next one (a frame takes every event
/// up to its deadline).
private struct EventCursor {
    private let events: Replay.Events
    private var index = 0
    private var peeked: InkEvent?
    private(set) var played = 0

    init(_ events: Replay.Events) { self.events = events }

    mutating func peek() throws -> InkEvent? {
        if let peeked { return peeked }
        switch events {
        case .recording(let r): peeked = index < r.events.count ? r.events[index] : nil
        case .stream(let s): peeked = try s.next()
        }
        return peeked
    }

    mutating func advance() {
        guard peeked != nil else { return }
        peeked = nil
        index += 1
        played += 1
    }

    var clampedValues: Int {
        switch events { case .recording(let r): return r.clampedValues; case .stream(let s): return s.clampedValues }
    }
}
