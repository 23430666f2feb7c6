// SPDX-License-Identifier: Apache-2.0
import InkCore
import InkRender

/// What pressing a control asks for.
public enum ScreenAction: Hashable, Sendable {
    // signature
    case clear, accept, cancel
    // signature on a document: from its pages to the signing view (pages turn with previous / next page)
    case sign
    // classroom
    case tool(ToolKind), palette, color(Int), width(Int), undo, redo
    case askClear, confirmClear, keepPage, previousPage, nextPage, addPage, save
    // classroom with the school's cloud: save, then put the notebook in the outbox
    case handIn
    // classroom worksheets: the list, a row of it (its index), the list's previous / next screenful
    case openWorksheets, closeWorksheets, chooseWorksheet(Int), worksheetRows(forward: Bool)
}

/// An on-screen button: where it is, what it says, what it does.
public struct Control: Sendable, Equatable {
    public enum Style: Sendable, Equatable { case normal, primary, danger, selected, disabled }
    public var action: ScreenAction
    public var rect: Rect
    public var label: String
    public var style: Style = .normal
    /// A colour swatch or a width dot drawn instead of a label.
    public var swatch: (color: RGBA, radius: Double)? = nil

    public init(_ action: ScreenAction, _ rect: Rect, _ label: String, style: Style = .normal,
                swatch: (color: RGBA, radius: Double)? = nil) {
        self.action = action; self.rect = rect; self.label = label; self.style = style; self.swatch = swatch
    }

    public static func == (a: Control, b: Control) -> Bool {
        a.action == b.action && a.rect == b.rect && a.label == b.label && a.style == b.style
            && a.swatch?.color == b.swatch?.color && a.swatch?.radius == b.swatch?.radius
    }

    /// How it looks; `pressed` while a finger or pen is on it.
    public func elements(pressed: Bool, fontSize: Double) -> [UIElement] {
        let fill: RGBA, text: RGBA, border: RGBA
        switch style {
        case .normal: fill = RGBA(0.96, 0.96, 0.97); text = RGBA(0.1, 0.1, 0.15); border = RGBA(0.55, 0.56, 0.6)
        case .primary: fill = RGBA(0.1, 0.45, 0.25); text = .white; border = RGBA(0.05, 0.3, 0.15)
        case .danger: fill = RGBA(0.75, 0.12, 0.1); text = .white; border = RGBA(0.5, 0.05, 0.05)
        case .selected: fill = RGBA(0.78, 0.86, 1.0); text = RGBA(0.05, 0.1, 0.3); border = RGBA(0.1, 0.3, 0.8)
        case .disabled: fill = RGBA(0.93, 0.93, 0.93); text = RGBA(0.65, 0.65, 0.65); border = RGBA(0.8, 0.8, 0.8)
        }
        var out: [UIElement] = [.box(rect, fill: pressed && style != .disabled ? RGBA(0.6, 0.7, 0.9) : fill,
                                     border: border, radius: rect.height * 0.18, borderWidth: style == .selected ? 3 : 2)]
        if let swatch {
            out.append(.dot(center: Point(rect.minX + rect.width / 2, rect.minY + rect.height / 2),
                            radius: swatch.radius, color: swatch.color))
        }
        if !label.isEmpty {
            out.append(.text(label, in: rect.outset(by: -rect.height * 0.15), size: fontSize, color: text, bold: style == .primary || style == .danger))
        }
        return out
    }
}

/// Which control each pen or finger is pressing. A control fires when the contact lifts
/// inside it (a little slack for fingers), as buttons do, so sliding off cancels.
public struct ControlPresses: Sendable {
    public private(set) var pressed: [StrokeSource: ScreenAction] = [:]
    public var slack = 12.0
    public init() {}

    public var pressedActions: Set<ScreenAction> { Set(pressed.values) }

    /// The action to perform, if this press completes a tap on an enabled control.
    public mutating func handle(_ press: Press, controls: [Control]) -> ScreenAction? {
        func hit(_ p: Point, slack: Double) -> Control? {
            controls.last { $0.style != .disabled && $0.rect.outset(by: slack).contains(p) }
        }
        switch press.phase {
        case .began:
            pressed[press.source] = hit(press.location, slack: 0)?.action
        case .moved:
            if let a = pressed[press.source], hit(press.location, slack: slack)?.action != a { pressed[press.source] = nil }
        case .ended:
            guard let a = pressed.removeValue(forKey: press.source) else { return nil }
            return hit(press.location, slack: slack)?.action == a ? a : nil
        case .cancelled:
            pressed[press.source] = nil
        }
        return nil
    }
}

/// Lays controls out left to right in rows, wrapping when a row is full.
struct RowLayout {
    let origin: Point
    let width: Double
    let height: Double
    let gap: Double
    private(set) var cursor: Point
    private(set) var rows = 1

    init(origin: Point, width: Double, height: Double, gap: Double) {
        self.origin = origin; self.width = width; self.height = height; self.gap = gap
        cursor = Point(origin.x + gap, origin.y + gap)
    }

    /// The rectangle for the next control of `w` pixels.
    mutating func next(_ w: Double) -> Rect {
        if cursor.x + w > origin.x + width - gap, cursor.x > origin.x + gap {
            cursor = Point(origin.x + gap, cursor.y + height + gap)
            rows += 1
        }
        let r = Rect(x: cursor.x, y: cursor.y, width: w, height: height)
        cursor.x += w + gap
        return r
    }

    /// A wider gap between groups of controls.
    mutating func space(_ w: Double) { cursor.x += w }

    var bottom: Double { cursor.y + height + gap }
}

/// A label's width estimate for layout (DejaVu Sans averages ~0.6 em per character).
func labelWidth(_ text: String, fontSize: Double) -> Double { Double(text.count) * fontSize * 0.62 }
