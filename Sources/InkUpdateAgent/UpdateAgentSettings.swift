// SPDX-License-Identifier: Apache-2.0
import InkHTTPClient

/// The update agent's part of the config file's `[update]` table (InkConfig reads it; the ranges
/// are here). Off unless `server` is set.
public struct UpdateAgentSettings: Equatable, Sendable {
    /// The DDI server's base URL, https ("https://fleet.example.com"); nil: no agent.
    public var server: String?
    public var tenant = "DEFAULT"
    /// Seconds between polls when the server names no sleep.
    public var pollInterval = 300
    /// The longest wait after failures, in seconds.
    public var backoffMax = 3600
    /// When a reboot into an update may happen; nil: any time.
    public var window: RebootWindow?
    /// Bytes per second a download may take; 0: no limit.
    public var downloadLimit = 0
    public var maxBundleMB = 512
    public var downloadDir = "/var/lib/inkkiosk/update/download"
    public var pendingFile = "/var/lib/inkkiosk/update/pending.json"
    public var identityFile = "/var/lib/inkkiosk/update/identity"
    /// CAs to trust instead of the system's (a private server's); nil: the system's.
    public var caFile: String?
    public var allowDowngrade = false
    /// Called as `COMMAND install FILE` and `COMMAND reboot` (the image's ik-update).
    public var updateCommand = "/usr/bin/ik-update"
    /// Names the slot once its boot is confirmed (the image's boot.d/updates.sh writes it).
    public var confirmedFile = "/run/inkkiosk/boot-confirmed"
    /// Seconds after the agent starts that it waits for `confirmedFile` to name a new slot.
    public var confirmWait = 600

    public static let pollIntervalRange = 5...86_400
    public static let backoffMaxRange = 15...86_400
    public static let downloadLimitRange = 0...1_000_000_000
    public static let maxBundleMBRange = 1...16_384
    public static let confirmWaitRange = 30...86_400

    public init() {}

    public var schedule: PollSchedule { PollSchedule(pollInterval: pollInterval, backoffMax: backoffMax) }

    /// Why `server` cannot be a DDI base URL, or nil when it can: https, a host, no query or fragment.
    public static func serverProblem(_ url: String) -> String? {
        guard url.lowercased().hasPrefix("https://") else { return "must be an https URL (the target token crosses it)" }
        let rest = url.dropFirst("https://".count)
        guard let host = rest.split(separator: "/", omittingEmptySubsequences: false).first, !host.isEmpty else {
            return "names no host"
        }
        if url.contains("?") || url.contains("#") || url.contains(" ") { return "must not have a query, a fragment or spaces" }
        return nil
    }

    /// Why `tenant` cannot be a path segment, or nil.
    public static func tenantProblem(_ tenant: String) -> String? {
        AgentIdentity.isToken(tenant) ? nil : "must be 1 to 256 letters, digits and . _ - :"
    }
}
