// SPDX-License-Identifier: Apache-2.0
import Glibc

/// A system call that failed: what was tried, on which file or device, and the errno it gave,
/// read at the failing call (not later, when cleanup such as `close` may have changed it).
/// "cannot sync /var/lib/inkkiosk/journal: Input/output error (EIO)".
public struct SystemCallError: Error, CustomStringConvertible, Sendable, Equatable {
    /// What was tried, as a verb phrase that follows "cannot": "open", "fsync", "add an XRGB8888 framebuffer".
    public var operation: String
    public var errno: Int32
    /// The file or device it was tried on, if any.
    public var path: String?
    /// What a technician can do about it ("root or the 'video' group is needed"), if anything.
    public var hint: String?

    /// `errno` defaults to the global one, read here: construct it right after the failing call.
    public init(_ operation: String, path: String? = nil, errno: Int32 = Glibc.errno, hint: String? = nil) {
        self.operation = operation
        self.errno = errno
        self.path = path
        self.hint = hint
    }

    /// The result of a call that returns -1 and sets errno on failure (open, fsync, ioctl …):
    /// the result when it worked, else this error with errno as the call left it.
    @discardableResult
    public static func check<Result: BinaryInteger>(_ result: Result, _ operation: String, path: String? = nil,
                                                     hint: String? = nil) throws(SystemCallError) -> Result {
        guard result < 0 else { return result }
        throw SystemCallError(operation, path: path, errno: Glibc.errno, hint: hint)
    }

    /// The result of a call that returns a negative errno on failure (libdrm's drmMode* calls).
    @discardableResult
    public static func check(negated result: Int32, _ operation: String, path: String? = nil) throws(SystemCallError) -> Int32 {
        guard result < 0 else { return result }
        throw SystemCallError(operation, path: path, errno: -result)
    }

    public var description: String {
        let target = path.map { " \($0)" } ?? ""
        let advice = hint.map { "; \($0)" } ?? ""
        return "cannot \(operation)\(target): \(Errno.describe(errno))\(advice)"
    }

    /// The system's short words ("No space left on device"), for a screen.
    public var reason: String { Errno.message(errno) }
}

/// errno as a person reads it. `describe` is the one form for logs and errors.
public enum Errno {
    private static let names: [Int32: String] = [
        EPERM: "EPERM", ENOENT: "ENOENT", ESRCH: "ESRCH", EINTR: "EINTR", EIO: "EIO", ENXIO: "ENXIO", E2BIG: "E2BIG",
        ENOEXEC: "ENOEXEC", EBADF: "EBADF", ECHILD: "ECHILD", EAGAIN: "EAGAIN", ENOMEM: "ENOMEM", EACCES: "EACCES",
        EFAULT: "EFAULT", EBUSY: "EBUSY", EEXIST: "EEXIST", EXDEV: "EXDEV", ENODEV: "ENODEV", ENOTDIR: "ENOTDIR",
        EISDIR: "EISDIR", EINVAL: "EINVAL", ENFILE: "ENFILE", EMFILE: "EMFILE", ENOTTY: "ENOTTY", EFBIG: "EFBIG",
        ENOSPC: "ENOSPC", ESPIPE: "ESPIPE", EROFS: "EROFS", EMLINK: "EMLINK", EPIPE: "EPIPE", ERANGE: "ERANGE",
        EDEADLK: "EDEADLK", ENAMETOOLONG: "ENAMETOOLONG", ENOSYS: "ENOSYS", ENOTEMPTY: "ENOTEMPTY", ELOOP: "ELOOP",
        ENOTSOCK: "ENOTSOCK", EOPNOTSUPP: "EOPNOTSUPP", EADDRINUSE: "EADDRINUSE", EADDRNOTAVAIL: "EADDRNOTAVAIL",
        ENETUNREACH: "ENETUNREACH", ECONNABORTED: "ECONNABORTED", ECONNRESET: "ECONNRESET", ENOTCONN: "ENOTCONN",
        ETIMEDOUT: "ETIMEDOUT", ECONNREFUSED: "ECONNREFUSED", EHOSTUNREACH: "EHOSTUNREACH", ESTALE: "ESTALE",
        EDQUOT: "EDQUOT", ECANCELED: "ECANCELED", ENODATA: "ENODATA", EPROTO: "EPROTO",
    ]

    /// "Input/output error (EIO)"; an unnamed code keeps its number: "Unknown error 4095 (errno 4095)".
    public static func describe(_ code: Int32) -> String {
        "\(message(code)) (\(names[code] ?? "errno \(code)"))"
    }

    /// The system's own words only: "Input/output error".
    public static func message(_ code: Int32) -> String { String(cString: strerror(code)) }
}
