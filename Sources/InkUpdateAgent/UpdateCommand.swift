// SPDX-License-Identifier: Apache-2.0
import Glibc
import InkCore

/// Runs the image's `ik-update` (or what `update_command` names): its exit status and the end of
/// what it printed (stdout and stderr together), which is RAUC's reason when it refuses a bundle.
public struct UpdateCommand: Sendable {
    public let path: String
    /// Bytes of its output kept (the last ones: RAUC says why at the end).
    static let outputLimit = 8192

    /// ik-update's "not now: the kiosk is busy" (EX_TEMPFAIL).
    public static let busyStatus: Int32 = 75

    public struct Result: Equatable, Sendable {
        public var status: Int32
        public var output: String

        /// The output's last lines, at most 600 characters: for the server and the log.
        public var reason: String {
            let lines = output.split(whereSeparator: { $0 == "\n" || $0 == "\r" }).map { $0.trimmed() }.filter { !$0.isEmpty }
            var text = lines.suffix(4).joined(separator: " | ")
            if text.count > 600 { text = "…" + String(text.suffix(600)) }
            return text.isEmpty ? "(it printed nothing)" : text
        }
    }

    public init(path: String) { self.path = path }

    public func run(_ arguments: [String]) throws(SystemCallError) -> Result {
        var pipeFDs: [Int32] = [-1, -1]
        try SystemCallError.check(pipe(&pipeFDs), "make a pipe for", path: path)
        // Not inherited by other children (dup2 onto 1 and 2 clears the flag for this one).
        _ = fcntl(pipeFDs[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(pipeFDs[1], F_SETFD, FD_CLOEXEC)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, pipeFDs[1], 1)
        posix_spawn_file_actions_adddup2(&actions, pipeFDs[1], 2)
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, path, &actions, nil, argv, environ)
        close(pipeFDs[1])
        guard rc == 0 else {
            close(pipeFDs[0])
            throw SystemCallError("start", path: path, errno: rc)
        }
        var kept: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = read(pipeFDs[0], &chunk, chunk.count)
            if n < 0 { if errno == EINTR { continue }; break }
            if n == 0 { break }
            kept += chunk[0..<n]
            if kept.count > Self.outputLimit { kept.removeFirst(kept.count - Self.outputLimit) }
        }
        close(pipeFDs[0])
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { throw SystemCallError("wait for", path: path) }
        }
        let output = String(decoding: kept, as: UTF8.self)
        // Exited: its status; killed: 128 + the signal, as a shell says.
        let code = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return Result(status: code, output: output)
    }
}
