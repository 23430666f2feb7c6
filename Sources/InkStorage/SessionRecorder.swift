// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import Glibc
import InkCore

/// Records what the kiosk receives as an `.inklog`, so that `inkkiosk replay` reproduces the
/// screen. A device unplugged mid-stroke is written as the proximity-out and touch-ups that end
/// its strokes, exactly as the kiosk ended them.
public final class SessionRecorder {
    public let path: String
    private var devices: [DeviceInfo] = []
    private var events: [InkEvent] = []
    private var lastAxes: [Int: (ToolType, Axes)] = [:]
    private var inProximity: Set<Int> = []
    private var touching: [Int: Set<Int>] = [:]

    public init(path: String) { self.path = path }

    public func added(_ device: DeviceInfo) {
        if !devices.contains(where: { $0.id == device.id }) { devices.append(device) }
    }

    public func record(_ event: InkEvent) {
        // Each device's kernel timestamps rise, but libinput may hand over two devices' events
        // a fraction of a millisecond out of order; the recording keeps the order the kiosk
        // processed them in, and time never goes backwards in an .inklog.
        var e = event
        if let last = events.last, e.time < last.time { e.time = last.time }
        events.append(e)
        switch e.kind {
        case let .proximity(isIn, tool, _, axes):
            if isIn { inProximity.insert(e.device); lastAxes[e.device] = (tool, axes) } else { inProximity.remove(e.device) }
        case let .tip(_, axes), let .axis(axes):
            if let tool = lastAxes[e.device]?.0 { lastAxes[e.device] = (tool, axes) }
        case let .touchDown(slot, _, _): touching[e.device, default: []].insert(slot)
        case let .touchUp(slot), let .touchCancel(slot): touching[e.device]?.remove(slot)
        default: break
        }
    }

    public func removed(_ id: Int, at time: Double) {
        if inProximity.contains(id), let (tool, axes) = lastAxes[id] {
            record(InkEvent(time: time, device: id, kind: .proximity(isIn: false, tool: tool, serial: nil, axes: axes)))
        }
        for slot in (touching[id] ?? []).sorted() { record(InkEvent(time: time, device: id, kind: .touchUp(slot: slot))) }
    }

    /// Writes the recording: a temporary file, synced, then renamed over the target, so a
    /// reader never sees half of it and a crash leaves the previous file intact.
    public func write() throws {
        try DurableFile.replace(path, with: Data(InklogWriter().document(devices: devices, events: events).utf8))
    }
}
