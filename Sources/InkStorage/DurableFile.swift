// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import Glibc
import InkCore

/// The few file operations that "never lose ink" rests on, in one place.
public enum DurableFile {
    /// Writes every byte (retrying short writes) or throws.
    public static func writeAll(_ fd: Int32, _ data: some DataProtocol, _ path: String) throws {
        let bytes = Array(data)
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { raw -> Int in
                guard let base = raw.baseAddress else { return 0 }
                return Glibc.write(fd, base + done, raw.count - done)
            }
            guard n > 0 else { throw SystemCallError("write", path: path) }
            done += n
        }
    }

    /// Creates (or replaces) `path` with `data`, mode `mode`, synced to disk.
    public static func create(_ path: String, _ data: some DataProtocol, mode: mode_t = 0o600) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard fd >= 0 else { throw SystemCallError("create", path: path) }
        defer { close(fd) }
        try writeAll(fd, data, path)
        guard fsync(fd) == 0 else { throw SystemCallError("sync", path: path) }
    }

    /// fsync a file or a directory by path (a directory: so that a rename in it survives).
    public static func sync(_ path: String) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw SystemCallError("open to sync", path: path) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw SystemCallError("sync", path: path) }
    }

    /// fsync the directory holding `path` (after a rename in it).
    public static func sync(directoryOf path: String) throws {
        try sync(URL(fileURLWithPath: path).deletingLastPathComponent().path)
    }

    /// Replaces `path` atomically: a synced temporary file renamed over it.
    public static func replace(_ path: String, with data: some DataProtocol, mode: mode_t = 0o644) throws {
        let tmp = path + ".tmp"
        try create(tmp, data, mode: mode)
        guard rename(tmp, path) == 0 else { throw SystemCallError("rename \(tmp) to", path: path) }
    }

    /// Makes sure `directory` exists and can be written (a clear reason when not: missing,
    /// read-only file system, full), creating it if needed.
    public static func prepareDirectory(_ directory: String) throws {
        if access(directory, F_OK) != 0 {
            guard mkdir(directory, 0o700) == 0 || Glibc.errno == EEXIST else { throw SystemCallError("create", path: directory) }
            // The new directory's own name must survive a power cut too, not only the files in it.
            try sync(URL(fileURLWithPath: directory).deletingLastPathComponent().path)
        }
        guard access(directory, W_OK) == 0 else { throw SystemCallError("write to", path: directory) }
    }

    /// Lets `produce` write a hidden temporary file next to `path` (a library that writes by
    /// file name: cairo, the PNG encoder), then syncs it and renames it into place. The file is
    /// created with `mode` before `produce` opens it (cairo's `fopen(…, "wb")` truncates it and
    /// keeps the mode), so it is never readable by others, not even while it is written.
    /// Returns the bytes written (for checksums). The directory still needs a `sync`.
    @discardableResult
    public static func publish(_ path: String, mode: mode_t = 0o600, _ produce: (String) throws -> Void) throws -> Data {
        let url = URL(fileURLWithPath: path)
        let tmp = url.deletingLastPathComponent().appendingPathComponent("." + url.lastPathComponent + ".tmp").path
        do {
            let data = try produced(tmp, mode: mode, produce)
            guard rename(tmp, path) == 0 else { throw SystemCallError("rename \(tmp) to", path: path) }
            return data
        } catch {
            unlink(tmp)   // a half-written file must not linger (or fill the disk further)
            throw error
        }
    }

    /// Creates `path` empty with `mode` (it must not exist yet), lets `produce` fill it by name,
    /// checks that it kept its mode, syncs it; returns its bytes. On failure the file may remain.
    public static func produced(_ path: String, mode: mode_t = 0o600, _ produce: (String) throws -> Void) throws -> Data {
        unlink(path)   // a leftover of an earlier attempt: O_EXCL below must create the file itself
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard fd >= 0 else { throw SystemCallError("create", path: path) }
        // The umask may have taken bits away; never add any after the file exists.
        close(fd)
        try produce(path)
        var info = stat()
        guard stat(path, &info) == 0 else { throw SystemCallError("stat", path: path) }
        guard info.st_mode & 0o077 & ~mode == 0 else {
            let modes = "mode \(String(info.st_mode & 0o777, radix: 8)), more open than \(String(mode, radix: 8))"
            throw StorageError(description: "\(path) has \(modes)", reason: "a new file has \(modes)")
        }
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        try sync(path)
        return data
    }
}
