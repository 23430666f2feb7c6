// SPDX-License-Identifier: Apache-2.0
import Foundation
import Glibc
import Testing
@testable import InkKiosk
import InkTestSupport

/// systemd's side of the notify protocol: a datagram socket that reads what the kiosk says.
private final class FakeManager {
    let path: String
    let fd: Int32

    init() throws {
        path = try Fixtures.outputDirectory("notify") + "/notify-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock"
        unlink(path)
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, b) in path.utf8.enumerated() { raw[i] = b }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        #expect(bound == 0)
        var timeout = timeval(tv_sec: 2, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(fd); unlink(path) }

    func receive() -> String? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = recv(fd, &buffer, buffer.count, 0)
        return n > 0 ? String(decoding: buffer[0..<n], as: UTF8.self) : nil
    }
}

@Suite struct NotifyProtocol {
    @Test func readyAndStatusArriveAsOneDatagram() throws {
        let manager = try FakeManager()
        let notifier = try #require(ServiceNotifier(environment: ["NOTIFY_SOCKET": manager.path]))
        notifier.send(["READY=1", "STATUS=Ready: 0 strokes"])
        #expect(manager.receive() == "READY=1\nSTATUS=Ready: 0 strokes")
        #expect(notifier.watchdogInterval == nil)
    }

    @Test func theWatchdogIsPingedFromTheLoopEveryQuarterInterval() throws {
        let manager = try FakeManager()
        let env = ["NOTIFY_SOCKET": manager.path, "WATCHDOG_USEC": "2000000", "WATCHDOG_PID": "\(getpid())"]
        let notifier = try #require(ServiceNotifier(environment: env))
        #expect(notifier.watchdogInterval == 2)
        notifier.pingIfDue(now: 100)
        #expect(manager.receive() == "WATCHDOG=1")
        #expect(abs((notifier.untilPing(now: 100.1) ?? 0) - 0.4) < 1e-9)
        notifier.pingIfDue(now: 100.2)           // too soon: nothing sent
        notifier.pingIfDue(now: 100.5)
        #expect(manager.receive() == "WATCHDOG=1")
    }

    @Test func aWatchdogForAnotherProcessIsNotOurs() throws {
        let manager = try FakeManager()
        let env = ["NOTIFY_SOCKET": manager.path, "WATCHDOG_USEC": "2000000", "WATCHDOG_PID": "1"]
        #expect(try #require(ServiceNotifier(environment: env)).watchdogInterval == nil)
        #expect(ServiceNotifier(environment: [:]) == nil, "not under systemd: nothing to say")
    }

    @Test func theIdleStatusWaitsForAQuietMoment() {
        var idle = IdleStatus(quiet: 0.05)
        #expect(idle.until(now: 0) == nil)
        idle.activity(at: 1.0)
        var due = idle.takeDue(now: 1.02)
        #expect(!due)
        idle.activity(at: 1.03)                  // more work: the moment moves on
        due = idle.takeDue(now: 1.06)
        #expect(!due)
        due = idle.takeDue(now: 1.08)
        #expect(due)
        due = idle.takeDue(now: 1.2)
        #expect(!due, "once per burst")
    }
}
