// SPDX-License-Identifier: Apache-2.0
import Glibc

/// CLOCK_MONOTONIC in seconds: the clock of libinput's event times and DRM's flip times, and
/// of the samples a journal stores.
public func monotonicNow() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// Sleeps `seconds` (fractions too), the rest again after a signal: the agents' waits between polls.
public func sleepSeconds(_ seconds: Double) {
    let whole = max(seconds, 0)
    var request = timespec(tv_sec: Int(whole), tv_nsec: Int((whole - whole.rounded(.down)) * 1e9))
    var remaining = timespec()
    while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
}
