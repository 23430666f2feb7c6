// SPDX-License-Identifier: Apache-2.0
import Glibc
import InkCore

/// The device's identity on the fleet server, written at enrolment and never in the image:
/// `controller_id = …` and `target_token = …` lines (`#` comments), in a file of mode 0600 owned by
/// the agent's user, refused otherwise (a token others can read is anyone's).
public struct AgentIdentity: Equatable, Sendable {
    public var controllerID: String
    public var targetToken: String

    public struct Problem: Error, Equatable, CustomStringConvertible {
        public var description: String
    }

    public init(controllerID: String, targetToken: String) {
        self.controllerID = controllerID; self.targetToken = targetToken
    }

    /// Reads and checks the file at `path`: its owner (`uid`, the agent's) and mode first.
    public static func read(_ path: String, uid: uid_t = geteuid()) throws(Problem) -> AgentIdentity {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { throw Problem(description: "identity_file: \(SystemCallError("open", path: path))") }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw Problem(description: "identity_file: \(SystemCallError("stat", path: path))") }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw Problem(description: "identity_file: \(path) is not a regular file") }
        guard info.st_uid == uid else {
            throw Problem(description: "identity_file: \(path) is owned by uid \(info.st_uid), not by the agent's user (uid \(uid)): "
                          + "chown it")
        }
        let mode = info.st_mode & 0o777
        guard mode == 0o600 else {
            throw Problem(description: "identity_file: \(path) has mode \(String(mode, radix: 8)), not 600: "
                          + "it holds the device's token (chmod 600 \(path))")
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = Glibc.read(fd, &chunk, chunk.count)
            if n < 0 { if errno == EINTR { continue }; throw Problem(description: "identity_file: \(SystemCallError("read", path: path))") }
            if n == 0 { break }
            bytes += chunk[0..<n]
            guard bytes.count <= 16_384 else { throw Problem(description: "identity_file: \(path) is over 16 KiB: not an identity file") }
        }
        return try parse(String(decoding: bytes, as: UTF8.self), path: path)
    }

    /// The file's text: `key = value` lines; both keys required, nothing else allowed.
    public static func parse(_ text: String, path: String) throws(Problem) -> AgentIdentity {
        var values: [String: String] = [:]
        for (number, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmed()
            if line.isEmpty || line.hasPrefix("#") { continue }
            guard let eq = line.firstIndex(of: "=") else {
                throw Problem(description: "\(path):\(number + 1): not a `key = value` line")
            }
            let key = line[..<eq].trimmed(), value = line[line.index(after: eq)...].trimmed()
            guard key == "controller_id" || key == "target_token" else {
                throw Problem(description: "\(path):\(number + 1): unknown key \(key.debugDescription) (known: controller_id, target_token)")
            }
            guard isToken(value) else {
                throw Problem(description: "\(path):\(number + 1): \(key) must be 1 to 256 letters, digits and . _ - : (got \(value.count) characters)")
            }
            values[key] = value
        }
        guard let id = values["controller_id"] else { throw Problem(description: "\(path): no controller_id") }
        guard let token = values["target_token"] else { throw Problem(description: "\(path): no target_token") }
        return AgentIdentity(controllerID: id, targetToken: token)
    }

    /// What may go into a URL's path and a header unescaped.
    static func isToken(_ s: String) -> Bool {
        (1...256).contains(s.utf8.count) && s.utf8.allSatisfy { b in
            (0x30...0x39).contains(b) || (0x41...0x5A).contains(b) || (0x61...0x7A).contains(b) || "._-:".utf8.contains(b)
        }
    }
}

extension StringProtocol {
    func trimmed() -> String {
        var s = Substring(self)
        while let c = s.first, c == " " || c == "\t" || c == "\r" || c == "\n" { s.removeFirst() }
        while let c = s.last, c == " " || c == "\t" || c == "\r" || c == "\n" { s.removeLast() }
        return String(s)
    }
}
