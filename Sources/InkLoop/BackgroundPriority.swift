// SPDX-License-Identifier: Apache-2.0
import CLinux
import Glibc
import InkCore

/// Lowers the calling thread's priority (nice 10): background work (syncing the journal,
/// writing files) gets the CPU the ink's thread leaves, never the other way round. On a
/// two-core board a JSON encoder or a PNG compressor would otherwise steal a frame.
public func runInBackgroundPriority() {
    _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(ik_gettid()), 10)
}

/// Puts the calling thread (the ink's: input and frames) ahead of the machine's ordinary
/// threads: nice -10, so that a busy host program, or a flood of API clients, takes the CPU
/// from it last. (Real-time round-robin was tried and measured worse in the VM's API probe: the
/// kiosk burned more CPU under load and the API answered a seventh as many requests; the
/// cause was not pinned down.) Needs CAP_SYS_NICE or
/// an RLIMIT_NICE that allows it (the unit's `LimitNICE=-10`); else the thread stays as it is.
/// Returns what it did, for the log, and whether it could (not: a warning).
public func raiseToInkPriority(nice: Int32 = -10) -> (raised: Bool, line: String) {
    let tid = id_t(ik_gettid())
    if setpriority(__priority_which_t(PRIO_PROCESS.rawValue), tid, nice) == 0 {
        return (true, "the ink's thread runs at nice \(nice)")
    }
    return (false, "the ink's thread runs at normal priority (\(Errno.describe(errno))): under heavy load other "
        + "programs share its CPU equally; allow nice \(nice) with LimitNICE=\(nice) in the unit")
}
