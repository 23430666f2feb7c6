// SPDX-License-Identifier: Apache-2.0
import CLinux
import Glibc
import InkCore

/// epoll over file descriptors, with signals delivered as readable events (signalfd).
/// Waiting blocks in the kernel: an idle kiosk uses no CPU.
public final class EventLoop {
    private let epoll: Int32
    private var handlers: [Int32: () -> Void] = [:]
    private var signalFD: Int32 = -1

    public init() throws {
        epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epoll >= 0 else { throw SystemCallError("epoll_create1") }
    }

    deinit {
        if signalFD >= 0 { close(signalFD) }
        close(epoll)
    }

    public func watch(_ fd: Int32, _ handler: @escaping () -> Void) throws {
        var ev = epoll_event()
        ev.events = EPOLLIN.rawValue
        ev.data.fd = fd
        guard epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &ev) == 0 else { throw SystemCallError("watch fd \(fd) (epoll_ctl EPOLL_CTL_ADD)") }
        handlers[fd] = handler
    }

    /// Blocks `signals` for normal delivery and reports them through the loop instead.
    public func watch(signals: [Int32], _ handler: @escaping (Int32) -> Void) throws {
        var mask = sigset_t()
        sigemptyset(&mask)
        for s in signals { sigaddset(&mask, s) }
        guard sigprocmask(SIG_BLOCK, &mask, nil) == 0 else { throw SystemCallError("sigprocmask") }
        signalFD = signalfd(-1, &mask, Int32(SFD_CLOEXEC | SFD_NONBLOCK))
        guard signalFD >= 0 else { throw SystemCallError("signalfd") }
        let fd = signalFD
        try watch(fd) {
            var info = signalfd_siginfo()
            while read(fd, &info, MemoryLayout<signalfd_siginfo>.size) == MemoryLayout<signalfd_siginfo>.size {
                handler(Int32(info.ssi_signo))
            }
        }
    }

    /// Waits for and runs ready handlers once; `timeout` in ms (-1: forever). Returns how many ran.
    @discardableResult
    public func runOnce(timeout: Int32 = -1) throws -> Int {
        var events = [epoll_event](repeating: epoll_event(), count: 8)
        let n = epoll_wait(epoll, &events, Int32(events.count), timeout)
        if n < 0 {
            if errno == EINTR { return 0 }
            throw SystemCallError("epoll_wait")
        }
        for i in 0..<Int(n) { handlers[events[i].data.fd]?() }
        return Int(n)
    }
}
