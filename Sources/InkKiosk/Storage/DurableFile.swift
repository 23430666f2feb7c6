import Foundation
import Glibc

/// The few file operations that "never lose ink" rests on, in one place.
enum DurableFile {
    /// Writes every byte (retrying short writes) or throws.
    static func writeAll(_ fd: Int32, _ data: some DataProtocol, _ path: String) throws {
        let bytes = Array(data)
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { raw -> Int in
                guard let base = raw.baseAddress else { return 0 }
                return Glibc.write(fd, base + done, raw.count - done)
            }
            guard n > 0 else { throw StorageError.errno("cannot write \(path)") }
            done += n
        }
    }

    /// Creates (or replaces) `path` with `data`, mode `mode`, synced to disk.
    static func create(_ path: String, _ data: some DataProtocol, mode: mode_t = 0o600) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard fd >= 0 else { throw StorageError.errno("cannot create \(path)") }
        defer { close(fd) }
        try writeAll(fd, data, path)
        guard fsync(fd) == 0 else { throw StorageError.errno("cannot sync \(path)") }
    }

    /// fsync a file or a directory by path (a directory: so that a rename in it survives).
    static func sync(_ path: String) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw StorageError.errno("cannot open \(path) to sync it") }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw StorageError.errno("cannot sync \(path)") }
    }

    /// Replaces `path` atomically: a synced temporary file renamed over it.
    static func replace(_ path: String, with data: some DataProtocol, mode: mode_t = 0o644) throws {
        let tmp = path + ".tmp"
        try create(tmp, data, mode: mode)
        guard rename(tmp, path) == 0 else { throw StorageError.errno("cannot rename \(tmp) to \(path)") }
    }
}
