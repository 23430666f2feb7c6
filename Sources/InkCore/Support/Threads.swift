// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import Glibc

// Locks and a condition variable over pthreads: Foundation's NSLock and NSCondition (and
// Thread: InkLoop's startThread) are in Foundation proper (which links ICU); the kiosk links
// FoundationEssentials only.

/// A mutex (as NSLock). Shareable: the pthread mutex is the synchronisation, at a fixed heap address
/// (`mutex`, set once in init), as pthreads requires.
public final class Lock: @unchecked Sendable {
    fileprivate let mutex: UnsafeMutablePointer<pthread_mutex_t>

    public init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    public func lock() { pthread_mutex_lock(mutex) }
    public func unlock() { pthread_mutex_unlock(mutex) }

    public func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock(); defer { unlock() }
        return try body()
    }
}

/// A mutex with a condition variable (as NSCondition). Timed waits run on the monotonic
/// clock: a board without a clock battery boots in 1970 and has its wall clock set later,
/// which must not stretch or cut a wait.
/// Shareable: `cond` is allocated once in init at a fixed address, and every wait passes `mutex`, the
/// lock its caller holds.
public final class Condition: @unchecked Sendable {
    private let mutex = Lock()
    private let cond: UnsafeMutablePointer<pthread_cond_t>

    public init() {
        cond = .allocate(capacity: 1)
        cond.initialize(to: pthread_cond_t())
        var attr = pthread_condattr_t()
        pthread_condattr_init(&attr)
        pthread_condattr_setclock(&attr, CLOCK_MONOTONIC)
        pthread_cond_init(cond, &attr)
        pthread_condattr_destroy(&attr)
    }

    deinit {
        pthread_cond_destroy(cond)
        cond.deallocate()
    }

    public func lock() { mutex.lock() }
    public func unlock() { mutex.unlock() }
    public func wait() { pthread_cond_wait(cond, mutex.mutex) }
    public func signal() { pthread_cond_signal(cond) }
    public func broadcast() { pthread_cond_broadcast(cond) }

    /// Waits until signalled or `limit` has passed; false when the time ran out.
    public func wait(until limit: Date) -> Bool {
        wait(seconds: limit.timeIntervalSinceNow)
    }

    /// Waits until signalled or `seconds` have passed; false when the time ran out.
    public func wait(seconds: Double) -> Bool {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let wait = max(0, min(seconds, 1e9))
        var whole = Int(wait)
        var nanos = Int(now.tv_nsec) + Int((wait - Double(whole)) * 1e9)
        if nanos >= 1_000_000_000 { nanos -= 1_000_000_000; whole += 1 }
        var deadline = timespec(tv_sec: now.tv_sec + whole, tv_nsec: nanos)
        return pthread_cond_timedwait(cond, mutex.mutex, &deadline) != ETIMEDOUT
    }
}
