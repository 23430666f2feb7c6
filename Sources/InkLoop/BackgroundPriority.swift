import CLinux
import Glibc

/// Lowers the calling thread's priority (nice 10): background work (syncing the journal,
/// writing files) gets the CPU the ink's thread leaves, never the other way round. On a
/// two-core board a JSON encoder or a PNG compressor would otherwise steal a frame.
public func runInBackgroundPriority() {
    _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(ik_gettid()), 10)
}
