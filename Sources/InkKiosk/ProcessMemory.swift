// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials

/// The process's resident memory, as an operator (the kiosk's status and exit lines) and the
/// benchmark read it.
public enum ProcessMemory {
    /// What the kiosk may take at 1920x1080: 64 MB (decimal).
    public static let peakLimitBytes = 64_000_000

    /// The peak resident set so far, in MiB (ru_maxrss, in KiB on Linux).
    public static func peakMiB() -> Double {
        var usage = rusage()
        #if os(Linux)
        let who = __rusage_who_t(RUSAGE_SELF.rawValue)
        #else
        let who = RUSAGE_SELF
        #endif
        guard getrusage(who, &usage) == 0 else { return 0 }
        return Double(usage.ru_maxrss) / 1024
    }

    /// "peak RSS 58.1 MiB (limit 64 MB = 61.0 MiB)", with "OVER THE LIMIT" when it is.
    public static func peakLine(_ mib: Double = peakMiB()) -> String {
        let limit = Double(peakLimitBytes) / 1_048_576
        return String(cFormat: "peak RSS %.1f MiB (limit %d MB = %.1f MiB)", mib, peakLimitBytes / 1_000_000, limit)
            + (mib <= limit ? "" : ": OVER THE LIMIT")
    }
}
