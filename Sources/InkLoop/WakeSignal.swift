// SPDX-License-Identifier: Apache-2.0
import CLinux
import Glibc
import InkCore

/// An eventfd that one side signals and the kiosk's epoll sees as readable: the way
/// threads outside the loop knock on it without the loop ever polling.
public final class WakeSignal: Sendable {
    public let fd: Int32

    public init() throws {
        fd = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        guard fd >= 0 else { throw SystemCallError("eventfd") }
    }

    deinit { close(fd) }

    /// Makes `fd` readable until the next `drain`; never blocks (the counter saturating is
    /// the only failure, and a saturated counter is readable anyway).
    public func signal() {
        var one: UInt64 = 1
        _ = write(fd, &one, MemoryLayout<UInt64>.size)
    }

    /// Resets the counter: `fd` is quiet until the next `signal`.
    public func drain() {
        var count: UInt64 = 0
        _ = read(fd, &count, MemoryLayout<UInt64>.size)
    }
}
