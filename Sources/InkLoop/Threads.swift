// SPDX-License-Identifier: Apache-2.0
import CLinux
import Glibc

// Named threads over pthreads: Foundation's Thread is in Foundation proper (which links ICU);
// the kiosk links FoundationEssentials only.

private final class ThreadStart {
    let name: String
    let body: @Sendable () -> Void
    init(name: String, body: @escaping @Sendable () -> Void) { self.name = name; self.body = body }
}

/// Starts `body` on a thread of its own, named `name` (up to 15 bytes show in `ps -L` and
/// in a crash's backtrace), as Foundation's `Thread { }` with `name` and `start()` did.
/// Detached: nothing joins it. Returns false (and runs nothing) when no thread could be made.
@discardableResult
public func startThread(name: String, stackSize: Int? = nil, _ body: @escaping @Sendable () -> Void) -> Bool {
    let start = Unmanaged.passRetained(ThreadStart(name: name, body: body)).toOpaque()
    var attr = pthread_attr_t()
    pthread_attr_init(&attr)
    defer { pthread_attr_destroy(&attr) }
    // Without a size: glibc's default (the stack rlimit, 8 MiB), as Foundation's Thread had.
    if let stackSize { pthread_attr_setstacksize(&attr, stackSize) }
    pthread_attr_setdetachstate(&attr, Int32(PTHREAD_CREATE_DETACHED))
    var thread = pthread_t()
    let rc = pthread_create(&thread, &attr, { raw in
        guard let raw else { return nil }
        let start = Unmanaged<ThreadStart>.fromOpaque(raw).takeRetainedValue()
        _ = String(decoding: start.name.utf8.prefix(15), as: UTF8.self).withCString { ik_set_thread_name($0) }
        start.body()
        return nil
    }, start)
    if rc != 0 {
        Unmanaged<ThreadStart>.fromOpaque(start).release()
        return false
    }
    return true
}
