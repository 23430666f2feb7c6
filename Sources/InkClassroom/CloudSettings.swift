// SPDX-License-Identifier: Apache-2.0
/// The classroom agent's part of the config file: the `[cloud]` table (InkConfig reads it; the
/// ranges and the checks are here). Off unless `server` or `share` is set.
public struct CloudSettings: Equatable, Sendable {
    /// The school cloud's base URL for an account enrolled by Login Flow v2 ("https://cloud.school.example").
    public var server: String?
    /// A share link instead ("https://cloud.school.example/s/AbC123"), for pupils without accounts.
    public var share: String?
    /// The folders under the account's (or the share's) root.
    public var handOutFolder = "Hand-out"
    public var handInFolder = "Hand-in"
    public var returnFolder = "Returned"
    /// The name hand-ins go under: the device's, or a pseudonym; never a pupil's.
    public var deviceName = "tablet"
    /// Also send the PNG of each page with the PDF.
    public var handInPNG = false
    public var credentialsFile = "/var/lib/inkkiosk/cloud/credentials.json"
    /// The outbox, the ledger, the folders' states.
    public var stateDirectory = "/var/lib/inkkiosk/cloud"
    /// Where hand-outs and returned work appear (folders of the worksheet shelf).
    public var handOutDirectory = "/var/lib/inkkiosk/worksheets/class"
    public var returnDirectory = "/var/lib/inkkiosk/worksheets/returned"
    /// A school's own CA (PEM) to trust instead of the system's.
    public var caFile: String?
    public var pollInterval = 60
    public var backoffMax = 900
    public var maxFiles = 60
    public var maxFileMB = 32
    public var outboxItems = 50
    public var outboxMB = 256

    public static let pollIntervalRange = 5...86_400
    public static let backoffMaxRange = 15...86_400
    public static let maxFilesRange = 1...1000
    public static let maxFileMBRange = 1...1024
    public static let outboxItemsRange = 1...10_000
    public static let outboxMBRange = 1...65_536

    public init() {}

    public var isEnabled: Bool { server != nil || share != nil }

    /// Why `url` cannot be the school's server or share: TLS is required, except on loopback
    /// (a test, or a proxy on the tablet itself); a host; no query, fragment, spaces or user.
    public static func urlProblem(_ url: String) -> String? {
        let lower = url.lowercased()
        let rest: Substring
        if lower.hasPrefix("https://") {
            rest = url.dropFirst(8)
        } else if lower.hasPrefix("http://") {
            rest = url.dropFirst(7)
            let host = rest.prefix { $0 != "/" && $0 != ":" }
            let loopback = host == "127.0.0.1" || host == "localhost" || rest.hasPrefix("[::1]")
            if !loopback { return "must be https (http only on the tablet's own loopback): the tablet's password crosses it" }
        } else {
            return "must be an https URL"
        }
        guard let host = rest.split(separator: "/", omittingEmptySubsequences: false).first, !host.isEmpty else {
            return "names no host"
        }
        if host.contains("@") { return "must not hold a user or password (the credentials file does)" }
        if url.contains("?") || url.contains("#") || url.contains(" ") { return "must not have a query, a fragment or spaces" }
        return nil
    }

    /// A share link's server and token: "https://host/path/s/TOKEN" → ("https://host/path", "TOKEN").
    public static func shareParts(_ url: String) -> (server: String, token: String)? {
        var trimmed = Substring(url)
        while trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        let parts = trimmed.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count >= 5, parts[parts.count - 2] == "s", let token = parts.last, !token.isEmpty,
              token.allSatisfy({ $0.isLetter || $0.isNumber }) else { return nil }
        return (parts.dropLast(2).joined(separator: "/"), String(token))
    }

    /// Why `name` cannot name the device on the server: 1 to 64 letters, digits, `-` and `_`.
    public static func deviceNameProblem(_ name: String) -> String? {
        guard (1...64).contains(name.count),
              name.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "_" })
        else { return "must be 1 to 64 letters a-z, digits, - and _ (a device's name or a pseudonym, never a pupil's)" }
        return nil
    }

    /// Why a folder path cannot be used: not empty, no `..`, no control characters.
    public static func folderProblem(_ path: String) -> String? {
        let segments = path.split(separator: "/")
        guard !segments.isEmpty else { return "must name a folder" }
        if segments.contains(where: { $0 == ".." || $0 == "." }) { return "must not contain . or .. segments" }
        if path.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) { return "must not contain control characters" }
        return nil
    }
}
