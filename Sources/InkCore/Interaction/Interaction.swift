// SPDX-License-Identifier: Apache-2.0
/// Pen and finger input → intents. Pen and touch take separate paths, as on the iPad:
/// the pen draws with the selected tool (its eraser end erases), its buttons switch tools;
/// a finger draws only while no pen has been used recently ("pencil mode").
public struct Interaction: Sendable {
    public private(set) var settings: InteractionSettings
    public private(set) var tools: ToolSelection
    /// The colour palette asked for by a `show-palette` action.
    public private(set) var paletteVisible = false
    /// Per tablet device: the hover preview while the pen hovers, else nil.
    public private(set) var hover: [Int: HoverState] = [:]

    private var devices: [Int: DeviceInfo] = [:]
    private var mappers: [Int: ScreenMapper] = [:]
    private var pressureCurves: [Int: PressureCurve] = [:]
    private var pens: [Int: PenState] = [:]
    private var fingers: [Int: FingerState] = [:]
    private var padClicks: [Int: ButtonClicks] = [:]
    private var lastPenTime = -Double.infinity
    /// Screen areas that belong to on-screen controls: a pen or finger that lands there
    /// presses, it does not draw. Fingers press controls even in pencil mode.
    public private(set) var controlAreas: [Rect] = []
    /// A dialog is up: every contact is a press, nothing draws.
    public private(set) var modal = false

    struct PenState: Sendable {
        var tool: ToolType = .pen
        var inProximity = false
        var tipDown = false
        var axes: Axes?
        var clicks = ButtonClicks()
        var strokeSamples = 0
        /// The stroke's last sample: its axes and kernel time (a tip-up is judged against it).
        var lastSample: (axes: Axes, time: Double)?
        /// The tip went down on a control: it presses until it lifts.
        var pressing = false
        /// Index of a stroke sample whose pressure is still an estimate.
        var pendingPressureIndex: Int?
    }

    struct FingerState: Sendable {
        /// Slot → when it went down and whether it draws.
        var slots: [Int: (down: Double, draws: Bool)] = [:]
        /// Slots that went down on a control, and where they are now (a touch-up has no position).
        var pressing: [Int: Point] = [:]
    }

    public init(settings: InteractionSettings, devices: [DeviceInfo]) {
        self.settings = settings
        self.tools = ToolSelection(current: settings.tool)
        for d in devices { addDevice(d) }
    }

    public mutating func addDevice(_ d: DeviceInfo) {
        devices[d.id] = d
        let own = settings.device(named: d.name)
        mappers[d.id] = ScreenMapper(device: d, screen: settings.screen, rotation: own?.rotation ?? settings.rotation,
                                     leftHanded: own?.leftHanded ?? settings.leftHanded)
        pressureCurves[d.id] = own?.pressureCurve
    }

    /// A device went away: its stroke ends cleanly where it was, its hover disappears.
    public mutating func removeDevice(_ id: Int) -> [Intent] {
        var intents: [Intent] = []
        if pens[id]?.pressing == true {
            intents.append(.press(Press(.cancelled, .pen(device: id), at: .zero)))
        } else if pens[id]?.tipDown == true {
            intents.append(.endStroke(.pen(device: id)))
        }
        for slot in fingers[id]?.pressing.keys.sorted() ?? [] { intents.append(.press(Press(.cancelled, .finger(device: id, slot: slot), at: .zero))) }
        for (slot, s) in fingers[id]?.slots ?? [:] where s.draws { intents.append(.endStroke(.finger(device: id, slot: slot))) }
        pens[id] = nil; fingers[id] = nil; hover[id] = nil; padClicks[id] = nil
        devices[id] = nil; mappers[id] = nil; pressureCurves[id] = nil
        return intents
    }

    public var currentTool: ToolKind { tools.current }

    /// Where the on-screen controls are (the screen's layout changed).
    public mutating func setControlAreas(_ areas: [Rect], modal: Bool) {
        controlAreas = areas
        self.modal = modal
    }

    private func onControl(_ p: Point) -> Bool { modal || controlAreas.contains { $0.contains(p) } }

    public mutating func handle(_ event: InkEvent) -> [Intent] {
        guard let device = devices[event.device] else { return [] }
        switch (device.kind, event.kind) {
        case (.tablet, .proximity(let isIn, let tool, _, let axes)):
            return penProximity(event.device, isIn: isIn, tool: tool, axes: axes, time: event.time)
        case (.tablet, .tip(let isDown, let axes)):
            return penTip(event.device, isDown: isDown, axes: axes, time: event.time)
        case (.tablet, .axis(let axes)):
            return penAxis(event.device, axes: axes, time: event.time)
        case (.tablet, .button(let code, let isPressed)):
            penButton(event.device, code: code, isPressed: isPressed, time: event.time)
            return []
        case (.touch, .touchDown(let slot, let x, let y)):
            return fingerDown(event.device, slot: slot, x: x, y: y, time: event.time)
        case (.touch, .touchMotion(let slot, let x, let y)) where fingers[event.device]?.pressing[slot] != nil:
            guard let s = fingerSample(event.device, x, y, event.time) else { return [] }
            fingers[event.device]?.pressing[slot] = s.location
            return [.press(Press(.moved, .finger(device: event.device, slot: slot), at: s.location))]
        case (.touch, .touchMotion(let slot, let x, let y)):
            guard fingers[event.device]?.slots[slot]?.draws == true, let s = fingerSample(event.device, x, y, event.time) else { return [] }
            return [.appendSample(.finger(device: event.device, slot: slot), s)]
        case (.touch, .touchUp(let slot)):
            return fingerUp(event.device, slot: slot, cancelled: false)
        case (.touch, .touchCancel(let slot)):
            return fingerUp(event.device, slot: slot, cancelled: true)
        case (.pad, .padButton(let button, let isPressed)):
            var clicks = padClicks[event.device] ?? ButtonClicks()
            if isPressed {
                clicks.press(button, at: event.time)
            } else if clicks.release(button, at: event.time, maxDuration: settings.clickMaxDuration) {
                perform(settings.padButtonAction)
            }
            padClicks[event.device] = clicks
            return []
        default:
            return []   // touch-frame, and events a device kind cannot send
        }
    }

    // MARK: pen

    private mutating func penProximity(_ id: Int, isIn: Bool, tool: ToolType, axes: Axes, time: Double) -> [Intent] {
        var pen = pens[id] ?? PenState()
        var intents: [Intent] = []
        lastPenTime = time
        if isIn {
            pen.tool = tool
            pen.inProximity = true
            pen.axes = axes
        } else {
            // Some tablets never lift the tip before leaving; end the stroke where it was.
            // The proximity-out position is not trusted (drivers report 0,0 or stale values).
            if pen.pressing {
                intents.append(.press(Press(.cancelled, .pen(device: id), at: .zero)))
            } else if pen.tipDown {
                intents.append(.endStroke(.pen(device: id)))
            }
            pen = PenState()
        }
        pens[id] = pen
        updateHover(id)
        return intents
    }

    private mutating func penTip(_ id: Int, isDown: Bool, axes: Axes, time: Double) -> [Intent] {
        var pen = pens[id] ?? PenState()
        lastPenTime = time
        pen.inProximity = true
        var intents: [Intent] = []
        if isDown && !pen.tipDown, let at = sample(id, axes, time)?.location, onControl(at) {
            pen.axes = axes
            pen.tipDown = true
            pen.pressing = true
            pens[id] = pen
            updateHover(id)
            return [.press(Press(.began, .pen(device: id), at: at))]
        } else if !isDown && pen.pressing {
            pen.tipDown = false
            pen.pressing = false
            pen.axes = axes
            pens[id] = pen
            updateHover(id)
            return [.press(Press(.ended, .pen(device: id), at: sample(id, axes, time)?.location ?? .zero))]
        } else if isDown && !pen.tipDown {
            pen.axes = axes
            pen.tipDown = true
            pen.clicks.spoilHeldButtons()
            pen.strokeSamples = 0
            pen.pendingPressureIndex = nil
            pen.lastSample = nil
            let brush = settings.brush(effectiveTool(pen))
            if let s = penSample(id, &pen, axes, time) {
                intents.append(.beginStroke(.pen(device: id), brush, s))
            }
            pens[id] = pen
        } else if !isDown && pen.tipDown {
            // The tip-up may carry where the pen left the surface; the stroke reaches it, at the
            // last pressure (the tip-up's pressure of 0 is the lift, not ink), only if the pen
            // could have got there: controllers report 0,0 or the axis maximum on release.
            if let last = pen.lastSample, reachable(id, from: last, to: axes, at: time),
               var s = sample(id, axes, time), let previous = sample(id, last.axes, last.time),
               s.location.distance(to: previous.location) > 0.5 {
                s.pressure = previous.pressure
                intents.append(.appendSample(.pen(device: id), s))
            }
            pen.tipDown = false
            pen.axes = axes
            pens[id] = pen
            intents.append(.endStroke(.pen(device: id)))
        } else {
            pen.axes = axes
            pens[id] = pen
        }
        updateHover(id)
        return intents
    }

    private mutating func penAxis(_ id: Int, axes: Axes, time: Double) -> [Intent] {
        guard var pen = pens[id] else { return [] }
        lastPenTime = time
        pen.axes = axes
        if pen.pressing {
            pens[id] = pen
            guard let at = sample(id, axes, time)?.location else { return [] }
            return [.press(Press(.moved, .pen(device: id), at: at))]
        }
        guard pen.tipDown else { pens[id] = pen; updateHover(id); return [] }
        var intents: [Intent] = []
        if let pending = pen.pendingPressureIndex, let p = axes.pressure, p > 0, let real = sample(id, axes, time) {
            intents.append(.updateSample(.pen(device: id), index: pending, real))
            pen.pendingPressureIndex = nil
        }
        if let s = penSample(id, &pen, axes, time) { intents.append(.appendSample(.pen(device: id), s)) }
        pens[id] = pen
        return intents
    }

    private mutating func penButton(_ id: Int, code: Int, isPressed: Bool, time: Double) {
        guard var pen = pens[id] else { return }
        if isPressed {
            pen.clicks.press(code, at: time)
            if pen.tipDown && !settings.clickWhileDrawing { pen.clicks.spoilHeldButtons() }
            pens[id] = pen
        } else {
            let click = pen.clicks.release(code, at: time, maxDuration: settings.clickMaxDuration)
            pens[id] = pen
            if click { perform(settings.binding(code).click) }
        }
        updateHover(id)
    }

    /// The tool a new pen stroke uses: the eraser end, a held erase button, or the selection.
    private func effectiveTool(_ pen: PenState) -> ToolKind {
        if pen.tool == .eraser { return .eraser }
        if pen.clicks.held.contains(where: { settings.binding($0).holdErases }) { return .eraser }
        return tools.current
    }

    public mutating func perform(_ action: PreferredAction) {
        switch action {
        case .switchPrevious: tools.switchToPrevious()
        case .switchEraser: tools.toggle(.eraser)
        case .toggleDebug: tools.toggle(.debug)
        case .showPalette: paletteVisible.toggle()
        case .ignore: break
        }
        for id in hover.keys { updateHover(id) }
    }

    public mutating func select(_ tool: ToolKind) {
        tools.select(tool)
        for id in hover.keys { updateHover(id) }
    }

    /// Changes a tool's brush (colour, width) from now on; strokes already drawn keep theirs.
    public mutating func setBrush(_ brush: Brush) {
        settings.brushes[brush.tool] = brush
        for id in hover.keys { updateHover(id) }
    }

    public mutating func setPaletteVisible(_ visible: Bool) { paletteVisible = visible }

    private mutating func updateHover(_ id: Int) {
        guard settings.hover.enabled, let pen = pens[id], pen.inProximity, !pen.tipDown, let axes = pen.axes,
              let s = sample(id, axes, 0) else {
            hover[id] = nil
            return
        }
        let brush = settings.brush(effectiveTool(pen))
        let alpha = settings.hover.alpha(distance: axes.distance)
        hover[id] = alpha > 0 ? HoverState(location: s.location, alpha: alpha, brush: brush, sample: s,
                                           nibAngle: brush.nibAngle(for: s, previous: nil)) : nil
    }

    /// A stroke sample; a tip-down pressure of 0 (reported a frame late by some pens) is an
    /// estimate that the next real pressure replaces.
    private func penSample(_ id: Int, _ pen: inout PenState, _ axes: Axes, _ time: Double) -> Sample? {
        guard var s = sample(id, axes, time) else { return nil }
        pen.lastSample = (axes, time)
        if let p = axes.pressure, p == 0 {
            s.pressure = Self.fallbackPressure
            s.estimated.insert(.pressure)
            s.estimatesExpectingUpdate.insert(.pressure)
            s.updateIndex = pen.strokeSamples
            if pen.pendingPressureIndex == nil { pen.pendingPressureIndex = pen.strokeSamples }
        }
        pen.strokeSamples += 1
        return s
    }

    static let fallbackPressure = 0.5

    /// Whether the pen could have moved from its last sample to `axes` by `time` (device millimetres).
    private func reachable(_ id: Int, from last: (axes: Axes, time: Double), to axes: Axes, at time: Double) -> Bool {
        guard let d = devices[id] else { return false }
        let mm = Point((axes.x - last.axes.x) * d.widthMM, (axes.y - last.axes.y) * d.heightMM).distance(to: .zero)
        return settings.tipUp.reaches(distanceMM: mm, elapsed: time - last.time)
    }

    /// A sample from a tablet tool's axes; axes the tool lacks become marked estimates.
    private func sample(_ id: Int, _ axes: Axes, _ time: Double) -> Sample? {
        guard let mapper = mappers[id] else { return nil }
        var estimated: EstimatedProperties = []
        var pressure = axes.pressure ?? { estimated.insert(.pressure); return Self.fallbackPressure }()
        if let curve = pressureCurves[id], axes.pressure != nil, pressure > 0 { pressure = curve(pressure) }
        var orientation = PenOrientation.upright
        if let tx = axes.tiltX, let ty = axes.tiltY {
            orientation = PenOrientation(tiltXDegrees: tx, tiltYDegrees: ty)
            orientation.azimuth = mapper.mapAzimuth(orientation.azimuth)
        } else {
            estimated.formUnion([.altitude, .azimuth])
        }
        if axes.distance == nil { estimated.insert(.distance) }
        return Sample(location: mapper.map(x: axes.x, y: axes.y), pressure: pressure,
                      altitude: orientation.altitude, azimuth: orientation.azimuth,
                      distance: axes.distance, time: time, estimated: estimated)
    }

    // MARK: touch

    private var pencilMode: Bool { settings.penOnlyAfterPen > 0 && lastPenTime > -Double.infinity }

    private func fingerSample(_ id: Int, _ x: Double, _ y: Double, _ time: Double) -> Sample? {
        guard let mapper = mappers[id] else { return nil }
        return Sample(location: mapper.map(x: x, y: y), pressure: Self.fallbackPressure, time: time,
                      estimated: [.pressure, .altitude, .azimuth, .distance])
    }

    private mutating func fingerDown(_ id: Int, slot: Int, x: Double, y: Double, time: Double) -> [Intent] {
        var state = fingers[id] ?? FingerState()
        if let at = fingerSample(id, x, y, time)?.location, onControl(at) {
            state.slots[slot] = (time, false)
            state.pressing[slot] = at
            fingers[id] = state
            return [.press(Press(.began, .finger(device: id, slot: slot), at: at))]
        }
        var intents: [Intent] = []
        let penRecent = pencilMode && time - lastPenTime < settings.penOnlyAfterPen
        var draws = !penRecent
        for (other, s) in state.slots where state.pressing[other] == nil {
            draws = false   // one finger draws; more fingers are a gesture
            if s.draws && time - s.down <= settings.secondFingerCancelWindow {
                intents.append(.cancelStroke(.finger(device: id, slot: other)))
                state.slots[other] = (s.down, false)
            }
        }
        state.slots[slot] = (time, draws)
        fingers[id] = state
        if draws, let s = fingerSample(id, x, y, time) {
            intents.append(.beginStroke(.finger(device: id, slot: slot), settings.brush(tools.current), s))
        }
        return intents
    }

    private mutating func fingerUp(_ id: Int, slot: Int, cancelled: Bool) -> [Intent] {
        if let at = fingers[id]?.pressing.removeValue(forKey: slot) {
            fingers[id]?.slots[slot] = nil
            return [.press(Press(cancelled ? .cancelled : .ended, .finger(device: id, slot: slot), at: at))]
        }
        guard let s = fingers[id]?.slots.removeValue(forKey: slot), s.draws else { return [] }
        let source = StrokeSource.finger(device: id, slot: slot)
        return [cancelled ? .cancelStroke(source) : .endStroke(source)]
    }
}
