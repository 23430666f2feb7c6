// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import Glibc
import InkConfig
import InkCore
import InkRender
import Logging
import InkPipeline

/// What a screen works with: the drawing, a way to forget what was saved (a signature that
/// was handed over or abandoned must not come back after a restart), where slow work goes
/// (files: never on the kiosk's thread), and the status log.
public struct ScreenContext {
    public let pipeline: FramePipeline
    public let forgetSaved: () throws -> Void
    /// The same, from a chore, returning once that is on disk (false: not within a few
    /// seconds): a signature handed over must not come back after a power cut either.
    public let forgetSavedDurably: @Sendable () -> Bool
    public let chores: BackgroundChores
    public let log: Logger
    public init(pipeline: FramePipeline, forgetSaved: @escaping () throws -> Void = {},
                forgetSavedDurably: @escaping @Sendable () -> Bool = { true }, chores: BackgroundChores = .inline(),
                log: Logger = Logger(label: "inkkiosk.screen")) {
        self.pipeline = pipeline; self.forgetSaved = forgetSaved; self.forgetSavedDurably = forgetSavedDurably
        self.chores = chores; self.log = log
    }
}

/// One of the kiosk's modes: what is drawn around the ink, and what its controls do.
public protocol KioskScreen: AnyObject {
    /// Acts on presses (and host requests) since the last call and shows the current layout.
    func update(_ context: ScreenContext) throws
    /// Why ink cannot be saved right now (disk full, read-only), shown until it can again.
    var storageWarning: String? { get set }
    /// File descriptors that become readable when the screen has work from elsewhere (the
    /// signature API, pages drawn on the sheets' thread); the kiosk watches them and calls `update`.
    var wakeFDs: [Int32] { get }
    /// What the status line adds about this screen (systemd's STATUS=), if anything.
    func status(_ pipeline: FramePipeline) -> String?
    /// Why no update may install or reboot now (a session a restart would cut), if anything:
    /// the kiosk keeps `[update] busy_file` present, holding this, while it is not nil.
    func busy(_ pipeline: FramePipeline) -> String?
}

extension KioskScreen {
    public func status(_ pipeline: FramePipeline) -> String? { nil }
    /// Ink alone has no session: its journal keeps every finished stroke.
    public func busy(_ pipeline: FramePipeline) -> String? { nil }
}

/// Shared look: fonts and sizes in millimetres.
struct ScreenStyle {
    let metrics: ScreenMetrics
    /// A control's height (at least 9 mm, so a child's finger hits it).
    let target: Double
    let fontSize: Double
    let gap: Double

    init(metrics: ScreenMetrics, buttonMM: Double) {
        self.metrics = metrics
        target = metrics.mm(max(buttonMM, 9))
        fontSize = (target * 0.36).rounded()
        gap = metrics.mm(2)
    }

    /// A button just wide enough for its label, never narrower than it is tall.
    func width(_ label: String) -> Double { max(target, labelWidth(label, fontSize: fontSize) + target * 0.6).rounded() }

    /// A banner across the screen (a message or a warning), centred at `y`.
    func banner(_ text: String, y: Double, warning: Bool) -> [UIElement] {
        let w = min(Double(metrics.size.width) - 2 * gap, labelWidth(text, fontSize: fontSize) + 2 * target)
        let r = Rect(x: (Double(metrics.size.width) - w) / 2, y: y, width: w, height: target)
        return [.box(r, fill: warning ? RGBA(0.75, 0.1, 0.1) : RGBA(0.15, 0.2, 0.3, 0.92), radius: target * 0.2),
                .text(text, in: r.outset(by: -gap), size: fontSize, color: .white, bold: warning)]
    }
}

/// A line of text over the screen: information, or a warning (red).
struct Notice: Equatable {
    var text: String
    var warning = false
    init(_ text: String, warning: Bool = false) { self.text = text; self.warning = warning }
}
