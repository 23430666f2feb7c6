// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
import InkCore

/// Where the kiosk's start-up time goes, from the kernel's exec to the first frame: one log line,
/// so a board that starts slowly says which step to look at (the appliance's boot test reads it).
public struct StartupTrace {
    private var steps: [(name: String, at: Double)] = []
    /// When the process was exec'd, on CLOCK_BOOTTIME (the kernel counts it in clock ticks: 10 ms steps).
    private let execAt: Double?

    /// `firstStep`: what went on from the exec to now (the loader, the Swift runtime's start, and
    /// the arguments' parsing when they were parsed already).
    /// `at`: when that step ended, on `bootTime()`'s clock (default: now).
    public init(firstStep: String = "loader and arguments", at end: Double? = nil) {
        execAt = Self.processStart()
        steps.append((firstStep, end ?? Self.bootTime()))
    }

    /// Ends the step called `name` now.
    public mutating func mark(_ name: String) {
        steps.append((name, Self.bootTime()))
    }

    /// "first frame on screen 412 ms after exec: loader and arguments 120 ms, display 60 ms, …, first frame 80 ms".
    public func summary(_ headline: String, lastStep: String) -> String {
        let now = Self.bootTime()
        let main = steps.first?.at ?? now
        var start = execAt ?? main
        var parts: [String] = []
        for step in steps where execAt != nil || step.at > main {
            parts.append(step.name + String(cFormat: " %.0f ms", max(0, step.at - start) * 1000))
            start = step.at
        }
        parts.append(lastStep + String(cFormat: " %.0f ms", max(0, now - start) * 1000))
        // Without the exec's time, main's on the boot clock: the kernel log's timestamps say when /init exec'd.
        let origin = execAt.map { String(cFormat: " %.0f ms after exec: ", (now - $0) * 1000) }
            ?? String(cFormat: " %.0f ms after main (%.3f s after boot): ", (now - main) * 1000, main)
        return headline + origin + parts.joined(separator: ", ")
    }

    /// "input ready 352 ms after exec, 61 ms after the first frame": for what follows the last step.
    public func followUp(_ headline: String) -> String {
        let now = Self.bootTime()
        let start = execAt ?? steps.first?.at ?? now
        let last = steps.last.map { String(cFormat: ", %.0f ms after the ", (now - $0.at) * 1000) + $0.name } ?? ""
        return headline + String(cFormat: " %.0f ms after ", (now - start) * 1000) + (execAt == nil ? "main" : "exec") + last
    }

    public static func bootTime() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_BOOTTIME, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// Field 22 of /proc/self/stat: the start time in clock ticks since boot. PID 1 (the
    /// appliance's /init exec'd the kiosk) started with the kernel, not with this program.
    static func processStart() -> Double? {
        guard getpid() != 1 else { return nil }
        guard let stat = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        // The command name (field 2) may hold spaces; fields after its ")" start at field 3.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 19, let ticks = Double(fields[19]) else { return nil }
        let hz = Double(sysconf(Int32(_SC_CLK_TCK)))
        return hz > 0 ? ticks / hz : nil
    }
}
