// SPDX-License-Identifier: Apache-2.0
/// The local signature API's settings (`[api]`, and `[limits]`'s `document_*`).
public struct APISettings: Sendable, Equatable {
    public static let defaultAddress = "127.0.0.1:7300"
    /// Where the API listens ("127.0.0.1:7300", "unix:/run/inkkiosk/api.sock"); nil: no host,
    /// the signature screen loops on its own.
    public var address: String? = nil
    /// `allow_remote`: an address other machines reach (not loopback) is allowed; needs a token.
    public var allowRemote = false
    /// `token_file`: where the bearer token every request must carry is kept; nil: the default,
    /// `api.token` in the kiosk's state directory. On TCP a token is always asked for (made at
    /// the first start when the file is missing) unless `tokenNone`; on the unix socket only when
    /// `token_file` is written.
    public var tokenFile: String? = nil
    /// `token = "none"`: no token, also on TCP (only loopback; every local program may ask).
    public var tokenNone = false
    /// `token_group`: the group a token the kiosk makes is given to (mode 0640); nil: the kiosk's own.
    public var tokenGroup: UInt32? = nil
    /// `allowed_hosts`, `allowed_origins`, `socket_users`, `socket_groups`.
    public var access = APIAccess()
    /// What one client may cost: connections, sizes, timeouts, long polls; and `[limits]
    /// document_mb`, `documents`, `document_pages` for the host's PDFs.
    public var limits = APILimits()
    /// `documents_dir`: where the host's PDFs (`POST /documents`) are kept; nil: the default,
    /// `documents` in the kiosk's state directory.
    public var documentsDirectory: String? = nil
    /// `default_timeout`: seconds a host's request waits for a signature when it names none; nil: forever.
    public var defaultTimeout: Double? = nil

    public init() {}

    /// Whether the API on `address` asks for a bearer token: on TCP unless `token = "none"`,
    /// on the unix socket when `token_file` is written.
    public func needsToken(_ address: APIAddress) -> Bool {
        if tokenNone { return false }
        if case .tcp = address { return true }
        return tokenFile != nil
    }
}
