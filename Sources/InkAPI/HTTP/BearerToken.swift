import FoundationEssentials
import Glibc
import InkLoop

/// The secret every request must carry as `Authorization: Bearer <token>` when `[api]
/// token_file` is set; read once, at start, from a file other users cannot read.
public struct BearerToken: Sendable {
    private let secret: [UInt8]

    public init(_ secret: String) throws {
        guard !secret.isEmpty else { throw KioskError("the bearer token is empty") }
        guard secret.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else {
            throw KioskError("the bearer token must be one word of printable ASCII (no spaces inside)")
        }
        self.secret = Array(secret.utf8)
    }

    /// The file's contents, without the line end an editor adds. Refused when the file is
    /// world-readable (mode o+r): then every local user could act as the POS.
    public static func load(path: String) throws -> BearerToken {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw KioskError.errno("[api] token_file \(path)") }
        let handle = OwnedFileDescriptor(fd)
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw KioskError.errno("[api] token_file \(path)") }
        guard info.st_mode & S_IFMT == S_IFREG else { throw KioskError("[api] token_file \(path) is not a regular file") }
        if info.st_mode & S_IROTH != 0 {
            throw KioskError("[api] token_file \(path) is readable by every user (mode \(String(info.st_mode & 0o777, radix: 8))): "
                             + "chmod o-rwx \(path)")
        }
        let data: Data
        do { data = try handle.readToEnd() ?? Data() } catch { throw KioskError("[api] token_file \(path): cannot read it: \(error)") }
        let text = String(decoding: data, as: UTF8.self).trimmingSpacesAndNewlines()
        guard !text.isEmpty else { throw KioskError("[api] token_file \(path) is empty: put the token in it") }
        do { return try BearerToken(text) } catch { throw KioskError("[api] token_file \(path): \(error)") }
    }

    /// Whether an `Authorization` header carries this token. The bytes are compared in a time
    /// that does not depend on where they first differ, so timing tells a guesser nothing.
    public func admits(_ authorization: String?) -> Bool {
        guard let authorization else { return false }
        let parts = authorization.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return false }
        let given = Array(parts[1].trimmingSpaces().utf8)
        var difference = UInt8(given.count == secret.count ? 0 : 1)
        for (index, byte) in secret.enumerated() {
            difference |= byte ^ (index < given.count ? given[index] : 0)
        }
        return difference == 0
    }
}
