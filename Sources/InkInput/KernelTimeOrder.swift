// SPDX-License-Identifier: Apache-2.0
import InkCore

extension Array where Element == SeatEvent {
    /// The batch in the order things happened. libinput hands events over device by device as
    /// it reads them, so a finger's tap on a button and a pen stroke that began a moment later
    /// can come swapped; their kernel times tell the true order. Events with equal times keep
    /// their order (a device's own events are already in order), and a device arriving or
    /// leaving stays where it was: nothing moves across it.
    public func inKernelTimeOrder() -> [SeatEvent] {
        var out: [SeatEvent] = []
        out.reserveCapacity(count)
        var run: [(time: Double, index: Int, event: SeatEvent)] = []
        func flush() {
            out += run.sorted { ($0.time, $0.index) < ($1.time, $1.index) }.map(\.event)
            run.removeAll(keepingCapacity: true)
        }
        for (index, event) in enumerated() {
            if let time = event.time {
                run.append((time, index, event))
            } else {
                flush()
                out.append(event)
            }
        }
        flush()
        return out
    }
}

extension SeatEvent {
    /// The kernel time of an input event or key; nil for a device arriving or leaving.
    public var time: Double? {
        switch self {
        case .input(let e): return e.time
        case .key(_, _, let t): return t
        case .added, .removed: return nil
        }
    }
}
