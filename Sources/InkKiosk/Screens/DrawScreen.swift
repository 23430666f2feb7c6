// SPDX-License-Identifier: Apache-2.0
import InkConfig
import InkCore
import InkRender

/// Draw mode: ink only, no controls; the screen shows nothing but the ink, and a warning when
/// the disk refuses it.
public final class DrawScreen: KioskScreen {
    private let style: ScreenStyle
    private let text: UIText
    public var storageWarning: String?
    public var wakeFDs: [Int32] { [] }

    public init(text: UIText, buttonMM: Double, metrics: ScreenMetrics) {
        self.text = text
        style = ScreenStyle(metrics: metrics, buttonMM: buttonMM)
    }

    public func update(_ context: ScreenContext) throws {
        _ = context.pipeline.takePresses()   // there are no controls to press
        var chrome: [UIElement] = []
        if let storageWarning {
            let y = Double(style.metrics.size.height) - style.target - style.gap * 2
            chrome = style.banner(UIText.format(text.storageWarning, storageWarning), y: y, warning: true)
        }
        try context.pipeline.show(backdrop: [], chrome: chrome, controlAreas: [], modal: false)
    }
}
