// SPDX-License-Identifier: Apache-2.0
import CLinux
import Glibc
import InkCore

/// The kiosk holds signatures (biometric data), pupils' work and the API's token in memory. A
/// core file would put them on disk, readable by whoever reads the disk or the crash reports;
/// a dumpable process may also be read by its own user through /proc/PID/mem or ptrace.
public enum CoreDumps {
    /// Makes this process non-dumpable (`prctl(PR_SET_DUMPABLE, 0)`: no core file whatever
    /// the system's `suid_dumpable`, /proc/PID owned by root, no ptrace by its user) and its core
    /// size limit 0 (`RLIMIT_CORE`, which children inherit). Called first thing: everything read
    /// later is covered. Throws, with errno, when either cannot be done.
    public static func forbid() throws {
        guard ik_set_dumpable(0) == 0 else {
            throw SystemCallError("make the process non-dumpable (prctl PR_SET_DUMPABLE)")
        }
        let resource = Int32(RLIMIT_CORE.rawValue)
        var limit = rlimit()
        // Already 0 (the unit's LimitCORE=0): nothing to do, and setrlimit, which the unit's
        // system-call filter refuses, is not asked for.
        if getrlimit(resource, &limit) == 0 && limit.rlim_cur == 0 && limit.rlim_max == 0 { return }
        var none = rlimit(rlim_cur: 0, rlim_max: 0)
        guard setrlimit(resource, &none) == 0 else {
            throw SystemCallError("set the core file size limit to 0 (setrlimit RLIMIT_CORE)",
                                  hint: "start the kiosk with it 0 (systemd: LimitCORE=0; a shell: ulimit -c 0)")
        }
    }
}
