// SPDX-License-Identifier: Apache-2.0
import InkConfig
import ArgumentParser
import InkCore
import InkKiosk
import InkPipeline

extension ToolKind: ExpressibleByArgument {}
extension PreferredAction: ExpressibleByArgument {}
extension HoldEraser: ExpressibleByArgument {}

/// How input becomes ink: the same flags for the kiosk (`run`, `record`) and for `replay`.
/// A flag given on the command line wins over the config file; one not given leaves it be.
struct InkOptions: ParsableArguments {
    @Option(help: "Tool the pen starts with (default: pen).")
    var tool: ToolKind?

    @Option(name: .customLong("button-action"), help: "What a BTN_STYLUS click does, the iPad's double-tap on the pencil (default: switch-previous).")
    var buttonAction: PreferredAction?

    @Option(name: .customLong("button2-action"), help: "What a BTN_STYLUS2 click does (default: ignore).")
    var button2Action: PreferredAction?

    @Option(name: .customLong("hold-eraser"), help: "Button that erases while held: stylus, stylus2 or none (default: stylus2).")
    var holdEraser: HoldEraser?

    @Option(name: .customLong("pad-action"), help: "What a tablet-pad button click does (default: switch-previous).")
    var padAction: PreferredAction?

    @Option(name: .customLong("pressure-curve"), help: "Pressure curve points for every brush, e.g. \"0,0 0.5,0.3 1,1\".")
    var pressureCurve: String?

    @Option(help: "Device rotation in degrees: 0, 90, 180 or 270 (default: 0).")
    var rotation: Int?

    @Flag(name: .customLong("left-handed"), help: "Turn tablets by half a turn.")
    var leftHanded = false

    @Option(name: .customLong("pen-only-after-pen"), help: "Seconds that fingers stop drawing after a pen was used; 0: fingers always draw (default: 300).")
    var penOnlyAfterPen: Double?

    @Option(help: "Frame rate of replay's frame clock and its prediction horizon (1/fps); the kiosk uses the display's refresh rate.")
    var fps = InkOptions.defaultFPS

    static let defaultFPS = 60.0

    func validate() throws {
        guard fps > 0, fps <= 1000 else { throw ValidationError("--fps must be between 0 and 1000") }
        if let rotation, Rotation(rawValue: rotation) == nil { throw ValidationError("--rotation must be 0, 90, 180 or 270") }
        if let penOnlyAfterPen, penOnlyAfterPen < 0 { throw ValidationError("--pen-only-after-pen must not be negative") }
        if let pressureCurve {
            do { _ = try PressureCurve(parsing: pressureCurve) } catch { throw ValidationError("--pressure-curve: \(error)") }
        }
    }

    /// The flags that were given, as changes over `base` (validated already, so nothing fails).
    func patch(over base: InkSettingsPatch = InkSettingsPatch()) -> InkSettingsPatch {
        var p = base
        if let tool { p.tool = tool }
        if let rotation { p.rotation = Rotation(rawValue: rotation) }
        if leftHanded { p.leftHanded = true }
        if let penOnlyAfterPen { p.penOnlyAfterPen = penOnlyAfterPen }
        if let padAction { p.pad = padAction }
        if let buttonAction { p.stylus = buttonAction }
        if let button2Action { p.stylus2 = button2Action }
        if let holdEraser { p.holdEraser = holdEraser }
        if let text = pressureCurve, let curve = try? PressureCurve(parsing: text) { p.pressureCurve = curve }
        return p
    }

    func settings(screen: PixelSize) -> InteractionSettings {
        var s = InteractionSettings(screen: screen)
        patch().apply(to: &s)
        return s
    }

    func pipelineOptions(prediction: Bool) -> PipelineOptions {
        Self.pipelineOptions(prediction: prediction, fps: fps)
    }

    /// Without any of these flags (the appliance's short command line): --fps's default.
    static func pipelineOptions(prediction: Bool, fps: Double = defaultFPS) -> PipelineOptions {
        var o = PipelineOptions()
        o.prediction = prediction
        o.fps = fps
        return o
    }
}
