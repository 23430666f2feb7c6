// SPDX-License-Identifier: Apache-2.0
import Testing
import InkCore
@testable import InkInput

@Suite struct KernelTimeOrder {
    private func pen(_ t: Double, _ x: Double = 0.5) -> SeatEvent {
        .input(InkEvent(time: t, device: 1, kind: .axis(Axes(x: x, y: 0.5, pressure: 0.5))))
    }
    private func tap(_ t: Double, slot: Int = 0) -> SeatEvent {
        .input(InkEvent(time: t, device: 2, kind: .touchDown(slot: slot, x: 0.1, y: 0.1)))
    }

    /// libinput read the pen's node first, then the touchscreen's: the tap came first in time.
    @Test func aTapReadAfterAPenStrokeThatFollowedItComesFirst() {
        let batch = [pen(1.010), pen(1.020), tap(1.005), .input(InkEvent(time: 1.006, device: 2, kind: .touchUp(slot: 0))), pen(1.030)]
        let ordered = batch.inKernelTimeOrder()
        #expect(ordered.compactMap(\.time) == [1.005, 1.006, 1.010, 1.020, 1.030])
    }

    @Test func equalTimesKeepTheirOrder() {
        // One evdev frame: a tip and an axis event of one device share a time.
        let batch = [pen(2.0, 0.1), pen(2.0, 0.2), tap(1.0), pen(2.0, 0.3)]
        let xs = batch.inKernelTimeOrder().compactMap { e -> Double? in
            if case .input(let i) = e, case .axis(let a) = i.kind { return a.x }
            return nil
        }
        #expect(xs == [0.1, 0.2, 0.3])
        #expect(batch.inKernelTimeOrder().first == tap(1.0))
    }

    @Test func nothingMovesAcrossADeviceArrivingOrLeaving() {
        let device = DeviceInfo(id: 3, kind: .tablet, name: "pen", widthMM: 100, heightMM: 60, direct: false)
        let batch: [SeatEvent] = [pen(5.0), .added(device), pen(4.0), .removed(device: 3), pen(3.0), tap(2.0)]
        #expect(batch.inKernelTimeOrder() == [pen(5.0), .added(device), pen(4.0), .removed(device: 3), tap(2.0), pen(3.0)])
    }

    @Test func keysAreOrderedWithTheInk() {
        let batch: [SeatEvent] = [pen(1.2), .key(code: 30, pressed: true, time: 1.1)]
        #expect(batch.inKernelTimeOrder() == [.key(code: 30, pressed: true, time: 1.1), pen(1.2)])
    }
}
