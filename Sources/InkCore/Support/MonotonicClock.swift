import Glibc

/// CLOCK_MONOTONIC in seconds: the clock of libinput's event times and DRM's flip times, and
/// of the samples a journal stores.
public func monotonicNow() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}
