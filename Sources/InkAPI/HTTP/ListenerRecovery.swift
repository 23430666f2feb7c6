// SPDX-License-Identifier: Apache-2.0
import Glibc
import InkCore
import NIOCore

/// Why the server could not take a connection: its `accept` failed (EMFILE when the process is
/// out of file descriptors, ENFILE, ENOBUFS, ECONNABORTED…), the listening socket closed under
/// it, or listening again failed.
struct ListenerFailure: Equatable {
    /// `closed`: the listening socket itself closed (an error the event loop could not pass).
    enum Stage: String { case accept, closed, listen }
    var stage: Stage
    var errno: Int32?
    var text: String

    init(stage: Stage, errno: Int32?, text: String) {
        self.stage = stage; self.errno = errno; self.text = text
    }

    init(stage: Stage, _ error: any Error) {
        if let io = error as? IOError {
            self.init(stage: stage, errno: io.errnoCode, text: Errno.describe(io.errnoCode))
        } else {
            self.init(stage: stage, errno: nil, text: "\(error)")
        }
    }

    /// A shortage that passes once connections close; worth trying to listen again.
    var isShortage: Bool { errno.map([EMFILE, ENFILE, ENOBUFS, ENOMEM, EINTR, EAGAIN].contains) ?? false }

    /// Errors `listen` meets again however long it waits (the port taken, no permission, the
    /// socket's directory gone): the kiosk must exit so that its supervisor can act. An accept
    /// error never is: the listening socket itself is fine.
    var isPermanent: Bool { stage == .listen && !isShortage }
}

/// What the server does after accepting or listening failed: try again after a pause that
/// doubles from 10 ms to 1 s while failures follow each other, or give up for good. Each distinct
/// error is logged the first time, then at its 10th, 100th, 1000th… time with the count, so a
/// storm of EMFILE cannot flood the journal.
struct ListenerRecovery {
    static let firstPause: Duration = .milliseconds(10)
    static let longestPause: Duration = .seconds(1)
    /// After this long (seconds) without a failure the listener counts as recovered: the next
    /// pause is short again.
    static let steadyAfter = 10.0

    enum Step: Equatable {
        case listenAgain(after: Duration, log: String?)
        case giveUp(String)
    }

    private let shortest: Duration
    private(set) var pause: Duration
    private(set) var counts: [String: Int] = [:]
    private var lastFailure: Double?

    init(firstPause: Duration = Self.firstPause) {
        shortest = firstPause
        pause = firstPause
    }

    mutating func failed(_ failure: ListenerFailure, at now: Double) -> Step {
        if failure.isPermanent { return .giveUp("cannot listen again: \(failure.text)") }
        if let last = lastFailure, now - last >= Self.steadyAfter { pause = shortest }
        lastFailure = now
        let key = "\(failure.stage.rawValue): \(failure.text)"
        let count = counts[key, default: 0] + 1
        counts[key] = count
        let wait = pause
        pause = min(pause * 2, Self.longestPause)
        let log: String? = Self.isPowerOfTen(count)
            ? "\(failure.stage == .closed ? failure.text : "\(failure.stage.rawValue) failed: \(failure.text)")\(count > 1 ? " (\(count) times so far)" : ""); \(failure.stage == .accept ? "accepting" : "listening") again in \(Self.show(wait))"
            : nil
        return .listenAgain(after: wait, log: log)
    }

    private static func isPowerOfTen(_ n: Int) -> Bool {
        var n = n
        while n % 10 == 0 { n /= 10 }
        return n == 1
    }

    private static func show(_ d: Duration) -> String {
        d >= .seconds(1) ? "\(d.components.seconds) s" : "\(d.components.attoseconds / 1_000_000_000_000_000) ms"
    }
}
