// SPDX-License-Identifier: Apache-2.0
import Glibc

/// Log lines for failing system calls that a kiosk can live with, at 60 Hz without a flood:
/// the first failure of each distinct errno in a run of failures, a count every `interval`
/// seconds while it goes on, and one line when the call works again. Pure: returns the lines.
public struct FailureLog: Sendable {
    private struct Run: Sendable { var since: Double; var count: Int; var errnos: Set<Int32>; var reported: Double; var reportedCount: Int }
    private var runs: [String: Run] = [:]
    public let interval: Double

    public init(interval: Double = 10) { self.interval = interval }

    /// `what` failed with `code`: the line to log, if any.
    public mutating func failed(_ what: String, errno code: Int32, now: Double) -> String? {
        var run = runs[what] ?? Run(since: now, count: 0, errnos: [], reported: now, reportedCount: 0)
        run.count += 1
        defer { runs[what] = run }
        if run.errnos.insert(code).inserted {
            run.reported = now; run.reportedCount = run.count
            return "\(what) failed: \(Errno.describe(code))" + (run.count > 1 ? " (failure \(run.count) in a row)" : "")
        }
        guard now - run.reported >= interval else { return nil }
        defer { run.reported = now; run.reportedCount = run.count }
        return "\(what) still failing: \(run.count - run.reportedCount) more failures in \(Int((now - run.reported).rounded())) s, \(run.count) since \(Int((now - run.since).rounded())) s ago (\(Errno.describe(code)))"
    }

    /// `what` failed with `error`: keyed on the errno the error captured at the failing call
    /// (0 for an error that is not a system call's).
    public mutating func failed(_ what: String, error: any Error, now: Double) -> String? {
        failed(what, errno: (error as? SystemCallError)?.errno ?? 0, now: now)
    }

    /// `what` worked: a line if it had been failing.
    public mutating func succeeded(_ what: String, now: Double) -> String? {
        guard let run = runs.removeValue(forKey: what) else { return nil }
        return "\(what) works again after \(run.count) failures over " + String(cFormat: "%.2f s", now - run.since)
    }

    public func isFailing(_ what: String) -> Bool { runs[what] != nil }
}
