// SPDX-License-Identifier: Apache-2.0
import Glibc

/// Writes `text` to standard error in one write(2) where the kernel takes it whole (a pipe takes
/// up to PIPE_BUF bytes atomically, so lines of two threads never mix); a short write is
/// continued, EINTR retried.
public func writeStandardError(_ text: String) {
    var bytes = Array(text.utf8)[...]
    while !bytes.isEmpty {
        let n = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
        if n < 0 && errno == EINTR { continue }
        guard n > 0 else { return }
        bytes = bytes.dropFirst(n)
    }
}

/// Whether stderr is the journal: systemd sets JOURNAL_STREAM to "DEVICE:INODE" of the stream it
/// connected stderr (or stdout) to; it is stderr's if fstat(2) on descriptor 2 gives the same pair
/// (a child that redirected stderr elsewhere inherits the variable but not the stream).
public enum JournalStream {
    public static func isStandardError(_ value: String? = getenv("JOURNAL_STREAM").map { String(cString: $0) }) -> Bool {
        guard let value, let expected = parse(value) else { return false }
        var info = stat()
        guard fstat(2, &info) == 0 else { return false }
        return UInt64(info.st_dev) == expected.device && UInt64(info.st_ino) == expected.inode
    }

    /// "64769:1234" → (64769, 1234), as systemd writes it (decimal).
    public static func parse(_ value: String) -> (device: UInt64, inode: UInt64)? {
        let parts = value.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return nil }
        return (device, inode)
    }
}
