// SPDX-License-Identifier: Apache-2.0
/// The tool in use and the one before it, for "switch to previous tool".
public struct ToolSelection: Sendable, Equatable {
    public private(set) var current: ToolKind
    public private(set) var previous: ToolKind

    /// With no earlier tool, "previous" is the eraser, as on an iPad.
    public init(current: ToolKind, previous: ToolKind? = nil) {
        self.current = current
        self.previous = previous ?? (current == .eraser ? .pen : .eraser)
    }

    public mutating func select(_ tool: ToolKind) {
        guard tool != current else { return }
        previous = current
        current = tool
    }

    public mutating func switchToPrevious() { swap(&current, &previous) }

    /// Back and forth between the current tool and `tool`.
    public mutating func toggle(_ tool: ToolKind) {
        if current == tool { switchToPrevious() } else { select(tool) }
    }
}

/// What a side-button click (the iPad's double-tap on the pencil) does.
public enum PreferredAction: String, Sendable, Equatable, CaseIterable {
    case switchPrevious = "switch-previous"
    case switchEraser = "switch-eraser"
    case showPalette = "show-palette"
    case toggleDebug = "toggle-debug"
    case ignore
}

/// How one pen button behaves: what a click does, and whether holding it makes the pen erase.
public struct ButtonBinding: Sendable, Equatable {
    public var click: PreferredAction
    public var holdErases: Bool
    public init(click: PreferredAction, holdErases: Bool = false) {
        self.click = click; self.holdErases = holdErases
    }
}
