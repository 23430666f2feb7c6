// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import Glibc
import InkCore

/// The agent's small files: read whole (bounded), written whole and synced.
enum AgentFiles {
    /// The file's text, or nil when it does not exist; at most `limit` bytes are read.
    static func read(_ path: String, limit: Int = 65_536) throws(SystemCallError) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw SystemCallError("open", path: path)
        }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while bytes.count < limit {
            let n = Glibc.read(fd, &chunk, min(chunk.count, limit - bytes.count))
            if n < 0 { if errno == EINTR { continue }; throw SystemCallError("read", path: path) }
            if n == 0 { break }
            bytes += chunk[0..<n]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Writes `bytes` to a temporary file beside `path` (mode 0600), syncs it, renames it over
    /// `path` and syncs the directory: after a power cut the file is the old one or the new one.
    static func replace(_ path: String, with bytes: [UInt8]) throws(SystemCallError) {
        let temporary = path + ".new"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw SystemCallError("create", path: temporary) }
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress.map { $0 + offset }, bytes.count - offset) }
            if n < 0 {
                if errno == EINTR { continue }
                let failure = SystemCallError("write", path: temporary); close(fd); throw failure
            }
            offset += n
        }
        if fchmod(fd, 0o600) != 0 || fsync(fd) != 0 { let failure = SystemCallError("sync", path: temporary); close(fd); throw failure }
        close(fd)
        try SystemCallError.check(rename(temporary, path), "rename \(temporary) to", path: path)
        try syncDirectory(of: path)
    }

    static func remove(_ path: String) throws(SystemCallError) {
        if unlink(path) != 0 && errno != ENOENT { throw SystemCallError("remove", path: path) }
        try syncDirectory(of: path)
    }

    static func syncDirectory(of path: String) throws(SystemCallError) {
        let directory = path.lastIndex(of: "/").map { String(path[..<$0]) }.map { $0.isEmpty ? "/" : $0 } ?? "."
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw SystemCallError("open", path: directory) }
        defer { close(fd) }
        try SystemCallError.check(fsync(fd), "sync", path: directory)
    }

    /// Makes `directory` and its parents (mode 0700 for those it makes).
    static func makeDirectory(_ directory: String) throws(SystemCallError) {
        var path = ""
        for part in directory.split(separator: "/") {
            path += "/" + part
            if mkdir(path, 0o700) != 0 && errno != EEXIST { throw SystemCallError("make the directory", path: path) }
        }
    }
}
