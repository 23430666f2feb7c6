// SPDX-License-Identifier: Apache-2.0
import Glibc
import Testing
import InkCore
import InkLoop

/// The kiosk thread's waiting: what ends a wait, and which handler then runs.
@Suite struct EventLoopWaits {
    @Test func onlyTheReadyDescriptorsHandlerRuns() throws {
        let loop = try EventLoop()
        var a: [Int32] = [-1, -1], b: [Int32] = [-1, -1]
        #expect(pipe(&a) == 0 && pipe(&b) == 0)
        defer { for fd in a + b { close(fd) } }
        var ran: [String] = []
        try loop.watch(a[0]) { ran.append("a") }
        try loop.watch(b[0]) { ran.append("b") }
        #expect(try loop.runOnce(timeout: 0) == 0, "nothing written: nothing runs")
        var byte: UInt8 = 1
        #expect(write(b[1], &byte, 1) == 1)
        #expect(try loop.runOnce(timeout: 0) == 1)
        #expect(ran == ["b"])
    }

    @Test func aWakeFromAnotherThreadEndsTheWaitAndDrainingQuietsIt() throws {
        let loop = try EventLoop(), wake = try WakeSignal()
        var woken = 0
        try loop.watch(wake.fd) { wake.drain(); woken += 1 }
        #expect(startThread(name: "waker") { wake.signal() })
        // Blocks until the other thread's signal lands (the timeout only ends a test that failed).
        #expect(try loop.runOnce(timeout: 60_000) == 1)
        #expect(woken == 1)
        #expect(try loop.runOnce(timeout: 0) == 0, "drained: quiet until the next signal")
    }

    @Test func aSignalToTheThreadComesAsAnEventOfTheLoop() throws {
        let loop = try EventLoop()
        var received: [Int32] = []
        // SIGUSR2 stays blocked on this thread afterwards: unblocking it with one still pending
        // would end the test process.
        try loop.watch(signals: [SIGUSR2]) { received.append($0) }
        #expect(pthread_kill(pthread_self(), SIGUSR2) == 0)
        #expect(try loop.runOnce(timeout: 60_000) == 1)
        #expect(received == [SIGUSR2])
    }

    @Test func aDescriptorThatIsNotOpenIsRefusedWithItsReason() throws {
        let loop = try EventLoop()
        let error = #expect(throws: SystemCallError.self) { try loop.watch(-1) {} }
        #expect(error?.errno == EBADF)
        #expect(error?.operation == "watch fd -1 (epoll_ctl EPOLL_CTL_ADD)")
    }
}
