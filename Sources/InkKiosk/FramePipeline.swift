import InkCore
import InkRender
import InkDisplay

/// One frame's cost, for statistics and latency figures.
public struct FrameReport: Sendable {
    public var renderSeconds: Double
    public var damagedPixels: Int
    public var damageRects: Int
}

public struct PipelineOptions: Sendable {
    public var prediction = true
    public var fps = 60.0
    public var background = RGBA.white
    public init() {}
}

/// The flow from input to screen: Interaction → Document → FrameRenderer → Display.
/// The kiosk and replay both drive it; only who calls `handle` and `renderFrame` differs.
public final class FramePipeline {
    public private(set) var interaction: Interaction
    public private(set) var document = Document()
    public let renderer: FrameRenderer
    public let display: Display
    public let options: PipelineOptions
    private let predictor: Predictor
    /// Input arrived (or state changed) since the last frame.
    public private(set) var needsFrame = true
    public private(set) var samplesReceived = 0

    public init(settings: InteractionSettings, devices: [DeviceInfo], display: Display, options: PipelineOptions = PipelineOptions()) throws {
        interaction = Interaction(settings: settings, devices: devices)
        renderer = try FrameRenderer(size: display.size, background: options.background)
        self.display = display
        self.options = options
        predictor = Predictor(horizon: options.prediction ? 1 / options.fps : 0)
    }

    public func handle(_ event: InkEvent) {
        for intent in interaction.handle(event) { apply(intent) }
        needsFrame = true
    }

    public func apply(_ intent: Intent) {
        switch intent {
        case .beginStroke, .appendSample: samplesReceived += 1
        default: break
        }
        document.apply(intent)
    }

    /// A device was plugged in.
    public func addDevice(_ device: DeviceInfo) { interaction.addDevice(device) }

    /// A device went away: its strokes end where they were.
    public func removeDevice(_ id: Int) {
        for intent in interaction.removeDevice(id) { apply(intent) }
        needsFrame = true
    }

    /// The next frame repaints the whole screen (after the display was away).
    public func redrawAll() { renderer.invalidateAll(); needsFrame = true }

    public func perform(_ action: PreferredAction) { interaction.perform(action); needsFrame = true }
    public func undo() { document.undo(); needsFrame = true }
    public func redo() { document.redo(); needsFrame = true }
    public func clear() { document.clear(); needsFrame = true }

    /// Draws everything that arrived since the last frame and presents it.
    @discardableResult
    public func renderFrame() throws -> FrameReport {
        let start = ContinuousClock.now
        document.finishFrame()
        let changes = document.takeChanges()
        let damage = try renderer.render(document: document, changes: changes, overlay: overlayScene())
        try display.present(renderer.frame, damage: damage)
        needsFrame = false
        return FrameReport(renderSeconds: (ContinuousClock.now - start).inSeconds, damagedPixels: damage.pixelCount, damageRects: damage.rects.count)
    }

    private func overlayScene() -> OverlayScene {
        var scene = OverlayScene()
        for (source, stroke) in document.active where stroke.brush.tool != .eraser {
            let predicted = predictor.predict(from: stroke.samples)
            if !predicted.isEmpty { scene.predictions[source] = predicted }
        }
        scene.hovers = interaction.hover.keys.sorted().compactMap { interaction.hover[$0] }
        if interaction.paletteVisible { scene.palette = renderer.palette }
        if interaction.currentTool == .debug {
            scene.debugDiagrams = scene.hovers.map(\.sample)
                + document.active.values.filter { if case .pen = $0.source { return true } else { return false } }
                    .compactMap(\.samples.last)
        }
        return scene
    }
}
