import Foundation
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

    public func record(_ e: InkEvent) {
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
        let text = InklogWriter().document(devices: devices, events: events)
        let tmp = path + ".tmp"
        let fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw KioskError.errno("cannot create \(tmp)") }
        defer { close(fd) }
        let ok = Data(text.utf8).withUnsafeBytes { bytes -> Bool in
            guard let base = bytes.baseAddress else { return true }
            var done = 0
            while done < bytes.count {
                let n = Glibc.write(fd, base + done, bytes.count - done)
                if n <= 0 { return false }
                done += n
            }
            return true
        }
        guard ok, fsync(fd) == 0 else { throw KioskError.errno("cannot write \(tmp)") }
        guard rename(tmp, path) == 0 else { throw KioskError.errno("cannot rename \(tmp) to \(path)") }
    }
}
