// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import Glibc
import InkCore
import InkLoop

/// The few file operations the document store needs, each failing with what and where.
/// (InkStorage has their like, but the API module does not link it.)
enum DocumentFiles {
    /// Writes all of `bytes` to `fd` (short writes and EINTR repeated).
    static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, _ path: String) throws {
        var done = 0
        while done < bytes.count {
            let n = write(fd, bytes.baseAddress! + done, bytes.count - done)
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw SystemCallError("write", path: path) }
            done += n
        }
    }

    /// fsync of a file or a directory by path.
    static func sync(_ path: String, directory: Bool = false) throws {
        let fd = open(path, (directory ? O_RDONLY | O_DIRECTORY : O_RDONLY) | O_CLOEXEC)
        guard fd >= 0 else { throw SystemCallError("open to sync", path: path) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw SystemCallError("sync", path: path) }
    }

    /// `data` at `path`, mode 0600, whole or not at all: written beside it, synced, renamed.
    static func writeDurably(_ data: Data, to path: String) throws {
        let temporary = path + ".tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw SystemCallError("create", path: temporary) }
        do {
            try data.withUnsafeBytes { try writeAll(fd, $0, temporary) }
            guard fsync(fd) == 0 else { throw SystemCallError("sync", path: temporary) }
            close(fd)
        } catch {
            close(fd); unlink(temporary)
            throw error
        }
        guard rename(temporary, path) == 0 else {
            let failure = SystemCallError("rename \(temporary) to", path: path)
            unlink(temporary)
            throw failure
        }
    }

    /// The directory, made (with its parents, 0700) when missing; an existing one is left as it is.
    static func prepare(_ directory: String) throws {
        var info = stat()
        if stat(directory, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFDIR else { throw APISetupError.notADirectory(path: directory) }
            return
        }
        let parent = directory.lastIndex(of: "/").map { String(directory[..<$0]) } ?? ""
        if !parent.isEmpty && parent != directory { try prepare(parent) }
        guard mkdir(directory, 0o700) == 0 || errno == EEXIST else { throw SystemCallError("make the directory", path: directory) }
    }

    /// The names in `directory` (no "." or "..").
    static func names(in directory: String) throws -> [String] {
        guard let dir = opendir(directory) else { throw SystemCallError("read the directory", path: directory) }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    static func size(_ path: String) -> Int? {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        return Int(info.st_size)
    }
}
