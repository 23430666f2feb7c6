import ArgumentParser
import Foundation
import InkCore
import InkRender
import InkDisplay
import InkKiosk

extension PixelSize: ExpressibleByArgument {
    public init?(argument: String) { self.init(parsing: argument) }
}
extension ToolKind: ExpressibleByArgument {}
extension PreferredAction: ExpressibleByArgument {}

struct ReplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Play an .inklog recording through the ink engine and write what the screen shows.")

    @OptionGroup var input: RecordingArguments

    @Option(help: "Screen size, WIDTHxHEIGHT.")
    var size = PixelSize(width: 1280, height: 800)

    @Option(help: "Write the final screen as PNG.")
    var png: String?

    @Option(help: "Write the finished ink as SVG.")
    var svg: String?

    @Option(help: "Write the finished ink as PDF.")
    var pdf: String?

    @Option(help: "Background of the PNG: white (the screen) or transparent (the ink only).")
    var background: BackgroundChoice = .white

    @Option(help: "Tool the pen starts with.")
    var tool: ToolKind = .pen

    @Option(name: .customLong("button-action"),
            help: "What a BTN_STYLUS click does (the iPad's double-tap on the pencil).")
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

    @Option(help: "Frame rate of the frame clock.")
    var fps = 60.0

    @Option(help: "Also write rendered frames as PNG into this directory.")
    var frames: String?

    @Option(name: .customLong("frame-step"), help: "With --frames, write every Nth frame.")
    var frameStep = 1

    @Flag(help: "Print statistics as one JSON object.")
    var stats = false

    enum BackgroundChoice: String, ExpressibleByArgument { case white, transparent }
    enum HoldEraserChoice: String, ExpressibleByArgument { case stylus, stylus2, none }

    func validate() throws {
        guard fps > 0, fps <= 1000 else { throw ValidationError("--fps must be between 0 and 1000") }
        guard Rotation(rawValue: rotation) != nil else { throw ValidationError("--rotation must be 0, 90, 180 or 270") }
        guard frameStep >= 1 else { throw ValidationError("--frame-step must be at least 1") }
        guard penOnlyAfterPen >= 0 else { throw ValidationError("--pen-only-after-pen must not be negative") }
        if let pressureCurve {
            do { _ = try PressureCurve(parsing: pressureCurve) } catch { throw ValidationError("--pressure-curve: \(error)") }
        }
    }

    func settings() throws -> InteractionSettings {
        var s = InteractionSettings(screen: size)
        s.tool = tool
        s.rotation = Rotation(rawValue: rotation) ?? .none
        s.leftHanded = leftHanded
        s.penOnlyAfterPen = penOnlyAfterPen
        s.padButtonAction = padAction
        s.buttons[ButtonCode.stylus] = ButtonBinding(click: buttonAction, holdErases: holdEraser == .stylus)
        s.buttons[ButtonCode.stylus2] = ButtonBinding(click: button2Action, holdErases: holdEraser == .stylus2)
        if let pressureCurve {
            let curve = try PressureCurve(parsing: pressureCurve)
            for (tool, brush) in s.brushes { var b = brush; b.pressureCurve = curve; s.brushes[tool] = b }
        }
        return s
    }

    func run() throws {
        let recording = try input.load()
        if let frames { try FileManager.default.createDirectory(atPath: frames, withIntermediateDirectories: true) }
        var options = ReplayOptions()
        options.pipeline.prediction = !input.noPrediction
        options.pipeline.fps = fps
        options.framesDirectory = frames
        options.frameStep = frameStep

        let display = try OffscreenDisplay(size: size)
        let (pipeline, result) = try Replay(recording: recording, settings: try settings(), options: options).run(on: display)
        let exporter = { (bg: Exporter.Background) in Exporter(size: size, background: bg) }
        var written: [String] = []
        if let png {
            switch background {
            case .white: try display.writePNG(to: png)
            case .transparent: try exporter(.transparent).png(pipeline.document.strokes, to: png)
            }
            written.append(png)
        }
        if let svg { try exporter(.color(.white)).svg(pipeline.document.strokes, to: svg); written.append(svg) }
        if let pdf { try exporter(.color(.white)).pdf(pipeline.document.strokes, to: pdf); written.append(pdf) }

        if stats {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            print(String(decoding: try encoder.encode(result), as: UTF8.self))
        }
        for path in written { FileHandle.standardError.write(Data("wrote \(path)\n".utf8)) }
    }
}

extension CleanExit {
    /// An error message on stderr with a non-zero exit status.
    static func message(_ text: String, code: Int32) -> ExitCode {
        FileHandle.standardError.write(Data("inkkiosk: error: \(text)\n".utf8))
        return ExitCode(code)
    }
}
