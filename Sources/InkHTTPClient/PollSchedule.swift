// SPDX-License-Identifier: Apache-2.0
/// When the agent asks the server again. After an answer: the server's `sleep` when it sends
/// one, else `pollInterval`, held within `sleepBounds`. After a failure (no answer, a 5xx): a
/// wait that doubles from `firstBackoff` up to `backoffMax`. Every wait is spread by jitter, so
/// that a fleet that lost its server does not come back in step.
public struct PollSchedule: Equatable, Sendable {
    public var pollInterval: Int
    public var backoffMax: Int
    /// The server's sleep is taken within these seconds: a server that says 0 cannot make a
    /// fleet hammer it, and one that says a week cannot make it deaf.
    public static let sleepBounds = 5...86_400
    /// The first wait after a failure, in seconds.
    public static let firstBackoff = 15
    /// A wait after an answer is spread by ±10 %, one after a failure by -50 %…0 % ("equal jitter").
    public static let pollJitter = 0.1

    public init(pollInterval: Int, backoffMax: Int) {
        self.pollInterval = pollInterval; self.backoffMax = backoffMax
    }

    /// Seconds until the next poll after an answer. `random` is uniform in 0..<1.
    public func afterAnswer(serverSleep: Int?, random: Double) -> Double {
        let base = Double(min(max(serverSleep ?? pollInterval, Self.sleepBounds.lowerBound), Self.sleepBounds.upperBound))
        return base * (1 - Self.pollJitter + 2 * Self.pollJitter * random)
    }

    /// Seconds until the next try after `failures` failures in a row (1: the first).
    public func afterFailure(_ failures: Int, random: Double) -> Double {
        let doublings = min(max(failures - 1, 0), 30)
        let wait = Double(min(Self.firstBackoff << doublings, backoffMax))
        return wait * (0.5 + 0.5 * random)
    }
}
