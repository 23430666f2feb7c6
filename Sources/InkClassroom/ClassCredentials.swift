// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import Glibc
import InkCore
import InkStorage

/// The tablet's credentials for the school's cloud, in a file of mode 0600 that only the agent
/// writes (after enrolment) or an admin provisions (a share link's password). Never logged, never
/// in the image.
public struct ClassCredentials: Codable, Sendable, Equatable {
    /// An account's (Login Flow v2): the server's URL, the login and the device's own app password.
    public var server: String?
    public var loginName: String?
    public var appPassword: String?
    /// A share link's password (share mode), if the share has one.
    public var sharePassword: String?

    public init(server: String? = nil, loginName: String? = nil, appPassword: String? = nil, sharePassword: String? = nil) {
        self.server = server; self.loginName = loginName; self.appPassword = appPassword; self.sharePassword = sharePassword
    }

    public struct Problem: Error, Sendable, Equatable, CustomStringConvertible {
        public var description: String
    }

    /// The file's credentials, nil when there is no file. A file others may read (or not the
    /// agent's user's) is refused, not used: a password in it may have been seen.
    public static func load(_ path: String) throws -> ClassCredentials? {
        var info = stat()
        guard stat(path, &info) == 0 else {
            if errno == ENOENT { return nil }
            throw SystemCallError("stat", path: path)
        }
        guard info.st_mode & 0o077 == 0 else {
            throw Problem(description: "\(path) has mode \(String(info.st_mode & 0o777, radix: 8)): a credentials file must be 0600 (chmod 600 \(path))")
        }
        guard info.st_uid == geteuid() else {
            throw Problem(description: "\(path) belongs to uid \(info.st_uid), not to this process's uid \(geteuid())")
        }
        guard info.st_size <= 16_384 else { throw Problem(description: "\(path) is over 16 KB: not a credentials file") }
        return try StateFile.load(path, as: ClassCredentials.self,
                                  what: "credentials ({\"server\", \"loginName\", \"appPassword\"} or {\"sharePassword\"})")
    }

    public func save(_ path: String) throws { try StateFile.save(self, to: path, mode: 0o600) }

    public static func remove(_ path: String) throws {
        if unlink(path) != 0 && errno != ENOENT { throw SystemCallError("remove", path: path) }
        try DurableFile.sync(directoryOf: path)
    }
}
