// SPDX-License-Identifier: Apache-2.0
import Glibc

/// Why the signature API cannot start as configured: a weak token, a token file another user
/// could read or change, an address reachable from other machines without a token, a path
/// taken by something else. A failed system call on its own is a `SystemCallError` with its
/// errno and path; one that stopped a step here (listening, the documents' directory) is kept
/// as the `cause`. The `description` is what a technician reads in the journal, and what the
/// config check prints after the file and line.
public enum APISetupError: Error, CustomStringConvertible {
    /// The token is empty: the file holds nothing but white space (`tokenFile`), or an empty
    /// string was given.
    case emptyToken(tokenFile: String?)
    /// The token has spaces or characters outside printable ASCII: it cannot be sent in one header.
    case tokenNotOneWord(tokenFile: String?)
    /// The token is too easy to guess.
    case weakToken(BearerToken.Weakness, tokenFile: String?)
    /// `[api] token_file` is a directory, a device, a fifo…
    case tokenFileNotRegular(path: String)
    /// Every local user could read the token, and so act as the POS.
    case tokenFileReadableByOthers(path: String, mode: mode_t)
    /// Another user owns the token file (`directory` nil) or a directory above it, and could
    /// change the token or put another in its place.
    case tokenFileOwnedByOther(path: String, directory: String?, owner: uid_t, kioskUser: uid_t, mode: mode_t)
    /// The token file's group or every user may write it (`directory` nil), or a directory
    /// above it without the sticky bit.
    case tokenFileWritableByOthers(path: String, directory: String?, owner: uid_t, mode: mode_t)
    /// Not a loopback address or a unix socket, and no token to ask for.
    case reachableWithoutToken(address: APIAddress)
    /// `start` was called a second time.
    case alreadyStarted
    /// The directory the hosts' posted documents are kept in could not be made or read.
    case documentsUnavailable(cause: any Error)
    /// Binding or listening failed: the port taken, no permission, a bad address or socket path.
    case cannotListen(address: APIAddress, cause: any Error)
    /// sun_path holds 108 bytes with the terminating NUL.
    case socketPathTooLong(path: String)
    /// The TCP host is not an IPv4 or IPv6 literal (the server resolves no names).
    case notAnIPAddress(host: String)
    /// Something at the unix socket's path that is not a socket, not ours to remove.
    case notASocket(path: String)
    /// Something at a directory's path that is not a directory.
    case notADirectory(path: String)

    /// The same token failure, now known to come from the `[api] token_file` at `path`; any
    /// other case as it is.
    func inTokenFile(_ path: String) -> APISetupError {
        switch self {
        case .emptyToken: .emptyToken(tokenFile: path)
        case .tokenNotOneWord: .tokenNotOneWord(tokenFile: path)
        case .weakToken(let weakness, _): .weakToken(weakness, tokenFile: path)
        default: self
        }
    }

    public var description: String {
        switch self {
        case .emptyToken(nil): "the bearer token is empty"
        case .emptyToken(let path?): "[api] token_file \(path) is empty: put the token in it"
        case .tokenNotOneWord(let path):
            Self.inFile(path) + "the bearer token must be one word of printable ASCII (no spaces inside)"
        case .weakToken(let weakness, let path): Self.inFile(path) + weakness.description
        case .tokenFileNotRegular(let path): "[api] token_file \(path) is not a regular file"
        case .tokenFileReadableByOthers(let path, let mode):
            "[api] token_file \(path) is readable by every user (mode \(Self.octal(mode))): chmod o-rwx \(path)"
        case .tokenFileOwnedByOther(let path, nil, let owner, let kioskUser, let mode):
            "[api] token_file \(path) belongs to \(BearerToken.account(owner)), not to \(Self.trusted(kioskUser)) "
                + "(mode \(Self.octal(mode))): that user could change the token; "
                + "chown \(BearerToken.accountName(kioskUser) ?? String(kioskUser)) \(path)"
        case .tokenFileOwnedByOther(let path, let directory?, let owner, let kioskUser, let mode):
            "[api] token_file \(path): its directory \(directory) belongs to \(BearerToken.account(owner)), "
                + "not to \(Self.trusted(kioskUser)) (mode \(Self.octal(mode))): that user could put another token in its place"
        case .tokenFileWritableByOthers(let path, nil, let owner, let mode):
            "[api] token_file \(path) may be written by \(Self.writers(mode)) "
                + "(owner \(BearerToken.account(owner)), mode \(Self.octal(mode))): chmod go-w \(path)"
        case .tokenFileWritableByOthers(let path, let directory?, let owner, let mode):
            "[api] token_file \(path): its directory \(directory) may be written by \(Self.writers(mode)) "
                + "(owner \(BearerToken.account(owner)), mode \(Self.octal(mode))), who could put another token in its place: "
                + "chmod go-w \(directory)"
        case .reachableWithoutToken(let address):
            "signature API: \(address) is reachable from other machines and needs a bearer token"
        case .alreadyStarted: "the signature API server was already started"
        case .documentsUnavailable(let cause): "signature API: documents: \(cause)"
        case .cannotListen(let address, let cause):
            "signature API: cannot listen on \(address): \(SignatureAPIServer.describe(cause))"
        case .socketPathTooLong: "the socket path must be under 108 bytes"
        case .notAnIPAddress(let host): "'\(host)' is not an IP address"
        case .notASocket(let path): "\(path) exists and is not a socket"
        case .notADirectory(let path): "\(path) exists and is not a directory"
        }
    }

    /// A token's failure names the file it was read from, if any.
    private static func inFile(_ path: String?) -> String { path.map { "[api] token_file \($0): " } ?? "" }
    private static func trusted(_ kioskUser: uid_t) -> String { "the kiosk's user (\(BearerToken.account(kioskUser))) or root" }
    private static func writers(_ mode: mode_t) -> String { mode & S_IWOTH != 0 ? "every user" : "its group" }
    private static func octal(_ mode: mode_t) -> String { BearerToken.octal(mode) }
}
