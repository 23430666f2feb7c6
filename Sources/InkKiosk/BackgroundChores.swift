// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import Glibc
import InkStorage
import InkLoop
import InkCore

/// Work the kiosk's thread must not wait for (writing a signature's files, rendering and saving
/// a notebook) runs here, one job after another on a thread of its own; each job's outcome
/// comes back to the kiosk's thread, which `deliver`s it when `wake` says so. `inline` runs
/// jobs at once, for tests and replay.
/// Thread safety: `jobs`, `finished`, `running` and `stopping` are used only under `condition`; `wake` is set in
/// init; `finished`'s closures (not Sendable) run only in `deliver`, on the kiosk's thread.
public final class BackgroundChores: @unchecked Sendable {
    private let wake: WakeSignal?
    private let condition = Condition()
    // Guarded by `condition`:
    private var jobs: [@Sendable () -> Void] = []
    private var finished: [() -> Void] = []
    private var running = 0
    private var stopping = false

    /// Runs jobs as they are given, on the caller's thread.
    public static func inline() -> BackgroundChores { BackgroundChores(wake: nil) }

    /// A worker thread (named `name`: ps -L, /proc/PID/task/TID/comm); `wakeFD` becomes
    /// readable when outcomes wait to be delivered.
    public static func onThread(name: String = "chores") throws -> BackgroundChores {
        BackgroundChores(wake: try WakeSignal(), name: name)
    }

    private init(wake: WakeSignal?, name: String = "chores") {
        self.wake = wake
        guard wake != nil else { return }
        startThread(name: name) { self.work() }   // alive until stop()
    }

    public var wakeFD: Int32? { wake?.fd }

    /// Whether a job is queued or running.
    public var busy: Bool {
        condition.lock(); defer { condition.unlock() }
        return running > 0
    }

    /// Runs `job` elsewhere; `then` gets its outcome on the kiosk's thread, at the next `deliver`.
    public func run<T: Sendable>(_ job: @escaping @Sendable () throws -> T, then: @escaping (Result<T, Error>) -> Void) {
        guard let wake else { then(Result { try job() }); return }
        nonisolated(unsafe) let then = then   // called on the kiosk's thread only, in deliver()
        condition.lock()
        running += 1
        jobs.append { [unowned self] in
            let outcome = Result { try job() }
            condition.lock()
            finished.append { then(outcome) }
            running -= 1
            condition.broadcast()
            condition.unlock()
            wake.signal()
        }
        condition.signal()
        condition.unlock()
    }

    /// Hands finished jobs' outcomes over (on the kiosk's thread).
    public func deliver() {
        wake?.drain()
        condition.lock()
        let ready = finished
        finished.removeAll()
        condition.unlock()
        for f in ready { f() }
    }

    /// Lets queued jobs finish (at most `timeout` seconds), then ends the thread.
    @discardableResult
    public func stop(timeout: Double) -> Bool {
        condition.lock(); defer { condition.unlock() }
        let deadline = Date(timeIntervalSinceNow: timeout)
        while running > 0 { if !condition.wait(until: deadline) { break } }
        stopping = true
        condition.broadcast()
        return running == 0
    }

    private func work() {
        runInBackgroundPriority()
        condition.lock()
        while true {
            while jobs.isEmpty && !stopping { condition.wait() }
            if jobs.isEmpty { break }
            let job = jobs.removeFirst()
            condition.unlock()
            job()
            condition.lock()
        }
        condition.unlock()
    }
}
