// SPDX-License-Identifier: Apache-2.0
import CLinux
import Glibc
import InkCore

/// Gives the memory malloc holds free back to the kernel (`malloc_trim`), on a thread of its
/// own. A day of strokes, page pictures and journal buffers leaves free chunks scattered through
/// the heap: glibc returns only the top of it by itself, so the resident size crept up by a
/// fifth over a soak's day with nothing more in use. Trimming at each page turn keeps it flat.
/// The trim walks every arena (a few milliseconds on a large heap): never on the frame's path.
public enum FreeMemory {
    /// Asks for a trim soon; asks while one is waiting or running fold into it.
    public static func returnSoon() { Trimmer.shared?.ask() }

    /// Trims now, on the caller's thread; true if malloc gave memory back.
    @discardableResult
    public static func returnNow() -> Bool { malloc_trim(0) != 0 }
}

/// `asked`, its only mutable state, is read and written under `condition`; the trim thread and
/// the threads that ask share nothing else.
private final class Trimmer: @unchecked Sendable {
    static let shared: Trimmer? = {
        let trimmer = Trimmer()
        return startThread(name: "malloc-trim", stackSize: 256 << 10) { trimmer.run() } ? trimmer : nil
    }()

    private let condition = Condition()
    /// Guarded by `condition`.
    private var asked = false

    func ask() {
        condition.lock()
        asked = true
        condition.signal()
        condition.unlock()
    }

    private func run() {
        runInBackgroundPriority()
        while true {
            condition.lock()
            while !asked { condition.wait() }
            asked = false
            condition.unlock()
            FreeMemory.returnNow()
        }
    }
}
