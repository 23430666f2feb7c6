// SPDX-License-Identifier: Apache-2.0
/// The rules for keeping a screen alive when the kernel refuses it: what to try next after a
/// failed page flip, a failed mode set or a flip that never completes, and when. Pure: the
/// display asks it and does the system calls; tests drive it with made-up times.
///
/// - A failed flip drops that frame (the display keeps what it did not show) and is retried
///   one refresh later; after `flipFailuresBeforeModeSet` in a row, a full mode set is tried.
/// - A failed mode set is retried after a delay that doubles up to `maxBackoff`.
/// - A flip whose completion event has not come after `flipTimeout` is given up: the next
///   frame is a mode set, so the loop never waits for an event that will not come.
public struct ScanoutRecovery: Sendable {
    public struct Settings: Sendable {
        public var flipFailuresBeforeModeSet = 3
        public var flipRetryDelay = 1.0 / 60
        public var firstBackoff = 0.1
        public var maxBackoff = 5.0
        public var flipTimeout = 0.5
        public init() {}
    }

    public enum Step: Sendable, Equatable { case wait, modeSet, flip }

    public let settings: Settings
    public private(set) var needsModeSet = true
    public private(set) var consecutiveFlipFailures = 0
    public private(set) var modeSetFailures = 0
    /// No system call before this time (a retry's delay).
    public private(set) var notBefore = 0.0
    /// When the flip in flight was requested; nil when none is.
    public private(set) var flipRequestedAt: Double?
    /// The last attempt failed: the screen is behind even if no new input comes.
    public private(set) var behind = false

    public init(settings: Settings = Settings()) { self.settings = settings }

    public var flipPending: Bool { flipRequestedAt != nil }

    /// What the next present should do at `now`.
    public func step(now: Double) -> Step {
        if now < notBefore { return .wait }
        return needsModeSet ? .modeSet : .flip
    }

    /// Whether a frame is due for the display's own sake (a retry), without new input.
    public func retryDue(now: Double) -> Bool { behind && !flipPending && now >= notBefore }

    /// When the loop must wake up for a retry or a flip timeout; nil when nothing is waiting.
    public func deadline() -> Double? {
        if let t = flipRequestedAt { return t + settings.flipTimeout }
        return behind ? notBefore : nil
    }

    public mutating func flipRequested(at now: Double) { flipRequestedAt = now; behind = false; consecutiveFlipFailures = 0 }
    public mutating func flipCompleted() { flipRequestedAt = nil }

    /// A flip was refused: true when the next attempt is a mode set.
    public mutating func flipFailed(at now: Double) -> Bool {
        behind = true
        consecutiveFlipFailures += 1
        notBefore = now + settings.flipRetryDelay
        guard consecutiveFlipFailures >= settings.flipFailuresBeforeModeSet else { return false }
        consecutiveFlipFailures = 0
        needsModeSet = true
        return true
    }

    /// True when the flip in flight has waited too long: it is forgotten, a mode set is next.
    public mutating func flipTimedOut(at now: Double) -> Bool {
        guard let t = flipRequestedAt, now - t >= settings.flipTimeout else { return false }
        flipRequestedAt = nil
        needsModeSet = true
        behind = true
        notBefore = now
        return true
    }

    public mutating func modeSetSucceeded() {
        needsModeSet = false; modeSetFailures = 0; behind = false; consecutiveFlipFailures = 0
    }

    /// A mode set was refused: returns the delay before the next try.
    public mutating func modeSetFailed(at now: Double) -> Double {
        modeSetFailures += 1
        behind = true
        let delay = min(settings.maxBackoff, settings.firstBackoff * Double(1 << min(modeSetFailures - 1, 20)))
        notBefore = now + delay
        return delay
    }

    /// Something outside changed the screen (plugged back, another mode, the VT back): a mode
    /// set at once, whatever the backoff said.
    public mutating func requireModeSet(now: Double) {
        needsModeSet = true; behind = true; notBefore = now; modeSetFailures = 0; flipRequestedAt = nil
        consecutiveFlipFailures = 0
    }

    /// The screen went away: nothing is pending any more, nothing is retried until it is back.
    public mutating func screenGone() { flipRequestedAt = nil; behind = false }
}
