import ArgumentParser
import InkCore
import InkKiosk

extension PixelSize: ExpressibleByArgument {
    public init?(argument: String) { self.init(parsing: argument) }
}
extension ToolKind: ExpressibleByArgument {}
extension PreferredAction: ExpressibleByArgument {}

/// How input becomes ink: the same flags for the kiosk (`run`, `record`) and for `replay`.
struct InkOptions: ParsableArguments {
    @Option(help: "Tool the pen starts with.")
    var tool: ToolKind = .pen

    @Option(name: .customLong("button-action"), help: "What a BTN_STYLUS click does (the iPad's double-tap on the pencil).")
    var buttonAction: PreferredAction = .switchPrevious

    @Option(name: .customLong("button2-action"), help: "What a BTN_STYLUS2 click does.")
    var button2Action: PreferredAction = .ignore

    @Option(name: .customLong("hold-eraser"), help: "Button that erases while held: stylus, stylus2 or none.")
    var holdEraser: HoldEraserChoice = .stylus2

    @Option(name: .customLong("pad-action"), help: "What a tablet-pad button click does.")
    var padAction: PreferredAction = .switchPrevious

    @Option(name: .customLong("pressure-curve"), help: "Pressure curve points, e.g. \"0,0 0.5,0.3 1,1\".")
    var pressureCurve: String?

    @Option(help: "Device rotation in degrees: 0, 90, 180 or 270.")
    var rotation = 0

    @Flag(name: .customLong("left-handed"), help: "Turn tablets by half a turn.")
    var leftHanded = false

    @Option(name: .customLong("pen-only-after-pen"), help: "Seconds that fingers stop drawing after a pen was used (0: fingers always draw).")
    var penOnlyAfterPen = 300.0

    @Option(help: "Frame rate of replay's frame clock and its prediction horizon (1/fps); the kiosk uses the display's refresh rate.")
    var fps = 60.0

    enum HoldEraserChoice: String, ExpressibleByArgument { case stylus, stylus2, none }

    func validate() throws {
        guard fps > 0, fps <= 1000 else { throw ValidationError("--fps must be between 0 and 1000") }
        guard Rotation(rawValue: rotation) != nil else { throw ValidationError("--rotation must be 0, 90, 180 or 270") }
        guard penOnlyAfterPen >= 0 else { throw ValidationError("--pen-only-after-pen must not be negative") }
        if let pressureCurve {
            do { _ = try PressureCurve(parsing: pressureCurve) } catch { throw ValidationError("--pressure-curve: \(error)") }
        }
    }

    /// Applies the flags to `s` (validated already, so nothing here fails).
    func apply(to s: inout InteractionSettings) {
        s.tool = tool
        s.rotation = Rotation(rawValue: rotation) ?? .none
        s.leftHanded = leftHanded
        s.penOnlyAfterPen = penOnlyAfterPen
        s.padButtonAction = padAction
        s.buttons[ButtonCode.stylus] = ButtonBinding(click: buttonAction, holdErases: holdEraser == .stylus)
        s.buttons[ButtonCode.stylus2] = ButtonBinding(click: button2Action, holdErases: holdEraser == .stylus2)
        if let text = pressureCurve, let curve = try? PressureCurve(parsing: text) {
            for (tool, brush) in s.brushes { var b = brush; b.pressureCurve = curve; s.brushes[tool] = b }
        }
    }

    func settings(screen: PixelSize) -> InteractionSettings {
        var s = InteractionSettings(screen: screen)
        apply(to: &s)
        return s
    }

    func pipelineOptions(prediction: Bool) -> PipelineOptions {
        var o = PipelineOptions()
        o.prediction = prediction
        o.fps = fps
        return o
    }
}
