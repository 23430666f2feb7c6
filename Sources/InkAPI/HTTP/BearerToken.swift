// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import Glibc
import InkCore
import InkLoop

/// The secret every request must carry as `Authorization: Bearer <token>`: on TCP always (unless
/// `[api] token = "none"`), on the unix socket when `[api] token_file` is set. Read once, at
/// start, from a file other users cannot read; made there at the first start when it is missing.
public struct BearerToken: Sendable {
    private let secret: [UInt8]

    /// What a token must be worth: 128 bits, as 22 base64url or 32 hex characters of a random source.
    public static let minimumBits = 128.0
    /// A token of fewer different characters is a word or a pattern, not a random string.
    public static let minimumDistinct = 8

    public init(_ secret: String) throws(APISetupError) {
        guard !secret.isEmpty else { throw .emptyToken(tokenFile: nil) }
        guard secret.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else {
            throw .tokenNotOneWord(tokenFile: nil)
        }
        if let weakness = Self.weakness(of: secret) { throw .weakToken(weakness, tokenFile: nil) }
        self.secret = Array(secret.utf8)
    }

    /// The most a token can be worth if every character was drawn at random from the smallest
    /// usual alphabet that holds them all: hex (4 bits a character), base64 or base64url (6),
    /// printable ASCII (6.55). Base64's padding is worth nothing.
    public static func estimatedBits(_ token: String) -> Double {
        var text = Substring(token)
        while text.hasSuffix("=") { text = text.dropLast() }
        let bytes = Array(text.utf8)
        let hex = bytes.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) || (0x41...0x46).contains($0) }
        let base64 = bytes.allSatisfy {
            (0x30...0x39).contains($0) || (0x61...0x7A).contains($0) || (0x41...0x5A).contains($0) || "+/-_".utf8.contains($0)
        }
        let alphabet: Double = hex ? 16 : base64 ? 64 : 94
        return Double(bytes.count) * log2(alphabet)
    }

    /// Why a token is too weak to guard the API.
    public enum Weakness: Sendable, Equatable, CustomStringConvertible {
        /// Fewer than `minimumBits`, even if every character was drawn at random.
        case tooFewBits(characters: Int, bits: Int)
        /// Fewer than `minimumDistinct` different characters: a word or a pattern.
        case tooFewDistinct(Int)

        public var description: String {
            let how = "make one with `head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \\n'`, or remove the file and the kiosk makes one at its next start"
            switch self {
            case .tooFewBits(let characters, let bits):
                return "the bearer token is too weak: \(characters) characters carry at most \(bits) bits, "
                    + "at least \(Int(BearerToken.minimumBits)) are needed (32 hex or 22 base64url characters drawn at random): \(how)"
            case .tooFewDistinct(let distinct):
                return "the bearer token is too weak: it repeats \(distinct) different characters "
                    + "(a random token of this length has many more): \(how)"
            }
        }
    }

    /// Why `token` is too weak to guard the API; nil when it is strong enough.
    public static func weakness(of token: String) -> Weakness? {
        let bits = estimatedBits(token)
        if bits < minimumBits { return .tooFewBits(characters: token.utf8.count, bits: Int(bits)) }
        if Set(token.utf8).count < minimumDistinct { return .tooFewDistinct(Set(token.utf8).count) }
        return nil
    }

    /// `weakness(of:)` as a technician reads it; nil when the token is strong enough.
    public static func weakness(_ token: String) -> String? { weakness(of: token)?.description }

    /// A new token: 32 bytes (256 bits) from the system's secure generator (getrandom(2) on
    /// Linux), as 64 hex characters.
    public static func generate() -> String {
        var random = SystemRandomNumberGenerator()
        var text = ""
        for _ in 0..<4 {
            let word = random.next()
            let hex = String(word, radix: 16)
            text += String(repeating: "0", count: 16 - hex.count) + hex
        }
        return text
    }

    /// The file's contents, without the line end an editor adds. Refused when the file is
    /// world-readable (mode o+r): then every local user could act as the POS; when another user
    /// could change it or put another in its place (`checkGuarded`); and when the token is too
    /// weak (`weakness`).
    public static func load(path: String, kioskUser: UInt32 = UInt32(geteuid())) throws -> BearerToken {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw SystemCallError("open the [api] token_file", path: path) }
        let handle = OwnedFileDescriptor(fd)
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw SystemCallError("stat the [api] token_file", path: path) }
        guard info.st_mode & S_IFMT == S_IFREG else { throw APISetupError.tokenFileNotRegular(path: path) }
        if info.st_mode & S_IROTH != 0 { throw APISetupError.tokenFileReadableByOthers(path: path, mode: info.st_mode) }
        try checkGuarded(path: path, file: info, kioskUser: kioskUser)
        let data: Data
        // readToEnd's error knows no path: the same failure, named with the file.
        do { data = try handle.readToEnd() ?? Data() } catch let failure as SystemCallError {
            throw SystemCallError("read the [api] token_file", path: path, errno: failure.errno)
        }
        let text = String(decoding: data, as: UTF8.self).trimmingSpacesAndNewlines()
        guard !text.isEmpty else { throw APISetupError.emptyToken(tokenFile: path) }
        do throws(APISetupError) { return try BearerToken(text) } catch { throw error.inTokenFile(path) }
    }

    /// Refuses a token file another user could change or replace: one not owned by the kiosk's
    /// user or root, or writable by its group or by others; or one in a directory (or below one,
    /// up to `/`) that is not the kiosk's user's or root's, or that its group or others may write
    /// to without the sticky bit (in a sticky directory such as /tmp only an entry's owner may
    /// rename or remove it). Whoever can write the token decides who may ask for signatures.
    static func checkGuarded(path: String, file: stat, kioskUser: UInt32) throws {
        if file.st_uid != 0 && file.st_uid != uid_t(kioskUser) {
            throw APISetupError.tokenFileOwnedByOther(path: path, directory: nil, owner: file.st_uid, kioskUser: uid_t(kioskUser),
                                                      mode: file.st_mode)
        }
        if file.st_mode & (S_IWGRP | S_IWOTH) != 0 {
            throw APISetupError.tokenFileWritableByOthers(path: path, directory: nil, owner: file.st_uid, mode: file.st_mode)
        }
        try checkDirectories(of: path, kioskUser: kioskUser)
    }

    /// The directories above a token file (as they really are: symbolic links followed), up to
    /// `/`: each must be the kiosk's user's or root's, and not open to writing by its group or
    /// others unless sticky.
    static func checkDirectories(of path: String, kioskUser: UInt32) throws {
        let parent = path.lastIndex(of: "/").map { String(path[..<$0]) }.flatMap { $0.isEmpty ? "/" : $0 } ?? "."
        guard let resolved = realpath(parent, nil) else { throw SystemCallError("find the directory of the [api] token_file", path: parent) }
        var directory = String(cString: resolved)
        free(resolved)
        while true {
            var info = stat()
            guard stat(directory, &info) == 0 else { throw SystemCallError("stat a directory above the [api] token_file", path: directory) }
            if info.st_uid != 0 && info.st_uid != uid_t(kioskUser) {
                throw APISetupError.tokenFileOwnedByOther(path: path, directory: directory, owner: info.st_uid,
                                                          kioskUser: uid_t(kioskUser), mode: info.st_mode)
            }
            if info.st_mode & (S_IWGRP | S_IWOTH) != 0 && info.st_mode & S_ISVTX == 0 {
                throw APISetupError.tokenFileWritableByOthers(path: path, directory: directory, owner: info.st_uid, mode: info.st_mode)
            }
            guard directory != "/", let slash = directory.lastIndex(of: "/") else { return }
            directory = slash == directory.startIndex ? "/" : String(directory[..<slash])
        }
    }

    /// `uid 1001 (pos)`, or `uid 1001` for a user the system does not name.
    static func account(_ uid: UInt32) -> String {
        accountName(uid).map { "uid \(uid) (\($0))" } ?? "uid \(uid)"
    }

    static func accountName(_ uid: UInt32) -> String? {
        var entry = passwd()
        var storage = [CChar](repeating: 0, count: 4096)
        var found: UnsafeMutablePointer<passwd>?
        guard getpwuid_r(uid_t(uid), &entry, &storage, storage.count, &found) == 0, found != nil, let name = entry.pw_name else { return nil }
        return String(cString: name)
    }

    static func octal(_ mode: mode_t) -> String { String(mode & 0o7777, radix: 8) }

    /// The token in `path`; when there is no such file, a new one written there atomically (a
    /// hidden temporary file, synced, then linked into place: a reader never finds half a
    /// token, and a token made at the same moment by another start is not overwritten), mode
    /// 0640 and, with `group`, owned by that group: root and the group's members may read it.
    public static func loadOrCreate(path: String, group: UInt32? = nil,
                                    kioskUser: UInt32 = UInt32(geteuid())) throws -> (token: BearerToken, created: Bool) {
        if access(path, F_OK) == 0 || errno != ENOENT { return (try load(path: path, kioskUser: kioskUser), false) }
        let directory = path.lastIndex(of: "/").map { String(path[..<$0]) }.flatMap { $0.isEmpty ? "/" : $0 } ?? "."
        // Not where another user could put a token of theirs in its place later.
        try checkDirectories(of: path, kioskUser: kioskUser)
        let token = generate()
        var template = Array("\(directory)/.api.token.XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw SystemCallError("make a new [api] token_file (mkstemp) in", path: directory) }
        let temporary = String(cString: template)
        var linked = false
        defer { if !linked { unlink(temporary) } }
        do {
            let handle = OwnedFileDescriptor(fd)
            guard fchmod(fd, 0o640) == 0 else { throw SystemCallError("chmod 0640 the new [api] token_file", path: temporary) }
            if let group, fchown(fd, uid_t.max, gid_t(group)) != 0 {
                throw SystemCallError("give to group \(group) ([api] token_group) the [api] token_file", path: temporary)
            }
            let bytes = Array((token + "\n").utf8)
            guard bytes.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) == bytes.count else {
                throw SystemCallError("write the [api] token_file", path: temporary)
            }
            guard fsync(fd) == 0 else { throw SystemCallError("sync the [api] token_file", path: temporary) }
            _ = handle
        }
        if link(temporary, path) != 0 {
            if errno == EEXIST { return (try load(path: path, kioskUser: kioskUser), false) }   // another start made one: that one counts
            // A file system without hard links: rename, which replaces (nothing is there to replace).
            guard rename(temporary, path) == 0 else { throw SystemCallError("put the new [api] token_file \(temporary) in place (rename) of", path: path) }
        } else {
            unlink(temporary)
        }
        linked = true
        let dir = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dir >= 0 { fsync(dir); close(dir) }
        return (try BearerToken(token), true)
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
