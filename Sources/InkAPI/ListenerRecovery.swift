import FlyingSocks
import Glibc

/// Why the server's listener ended: its `accept` failed (EMFILE when the process is out of file
/// descriptors, ENFILE, ENOBUFS, ECONNABORTED…), or listening again failed.
struct ListenerFailure: Equatable {
    enum Stage: String { case accept, listen }
    var stage: Stage
    var errno: Int32?
    var text: String

    init(stage: Stage, errno: Int32?, text: String) {
        self.stage = stage; self.errno = errno; self.text = text
    }

    init(stage: Stage, _ error: any Error) {
        switch error as? SocketError {
        case .failed(_, let code, let message)?:
            self.init(stage: stage, errno: code, text: "\(message) (errno \(code))")
        case .disconnected?:   // FlyingFox's word for a listening socket that hung up or was closed
            self.init(stage: stage, errno: nil, text: "the listening socket was shut down")
        default:
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

/// What the server does after its listener failed: listen again after a pause that doubles
/// from 10 ms to 1 s while failures follow each other, or give up for good. Each distinct
/// error is logged the first time, then at its 10th, 100th, 1000th… time with the count, so a
/// storm of EMFILE cannot flood the journal.
struct ListenerRecovery {
    static let firstPause: Duration = .milliseconds(10)
    static let longestPause: Duration = .seconds(1)
    /// A listener that ran this long (seconds) without failing counts as recovered: the next
    /// pause is short again.
    static let steadyAfter = 10.0

    enum Step: Equatable {
        case listenAgain(after: Duration, log: String?)
        case giveUp(String)
    }

    private let shortest: Duration
    private(set) var pause: Duration
    private(set) var counts: [String: Int] = [:]
    private var listeningSince: Double?

    init(firstPause: Duration = Self.firstPause) {
        shortest = firstPause
        pause = firstPause
    }

    /// The listener is up (again) at `now` (seconds on a monotonic clock).
    mutating func listening(at now: Double) { listeningSince = now }

    mutating func failed(_ failure: ListenerFailure, at now: Double) -> Step {
        if failure.isPermanent { return .giveUp("cannot listen again: \(failure.text)") }
        if let since = listeningSince, now - since >= Self.steadyAfter { pause = shortest }
        listeningSince = nil
        let key = "\(failure.stage.rawValue): \(failure.text)"
        let count = counts[key, default: 0] + 1
        counts[key] = count
        let wait = pause
        pause = min(pause * 2, Self.longestPause)
        let log: String? = Self.isPowerOfTen(count)
            ? "\(failure.stage.rawValue) failed: \(failure.text)\(count > 1 ? " (\(count) times so far)" : ""); listening again in \(Self.show(wait))"
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
