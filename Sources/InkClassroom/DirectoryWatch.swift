// SPDX-License-Identifier: Apache-2.0
import Glibc
import InkCore

/// inotify on one folder: the cloud agent waits on its outbox (a hand-in renamed into it), the
/// kiosk on the agent's state folder (a file renamed into place). Neither polls: an idle tablet
/// wakes only when something changed. Without inotify (a watch that could not be made) `wait`
/// sleeps out its time and `drain` says nothing changed.
public final class DirectoryWatch {
    /// Readable when something changed; the kiosk's loop watches it.
    public let fd: Int32?

    public init(_ directory: String, events: UInt32) {
        let fd = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        if fd >= 0, inotify_add_watch(fd, directory, events) >= 0 {
            self.fd = fd
        } else {
            if fd >= 0 { close(fd) }
            self.fd = nil
        }
    }

    deinit { if let fd { close(fd) } }

    /// Reads the events waiting; true if there were any.
    public func drain() -> Bool {
        guard let fd else { return false }
        var buffer = [UInt8](repeating: 0, count: 4096)
        var changed = false
        while read(fd, &buffer, buffer.count) > 0 { changed = true }
        return changed
    }

    /// Waits up to `seconds`, less if something changes first.
    public func wait(seconds: Double) {
        guard let fd else { sleepSeconds(seconds); return }
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        _ = poll(&entry, 1, Int32(clamping: Int((seconds * 1000).rounded())))
    }
}
