// SPDX-License-Identifier: Apache-2.0
import InkUpdateAgent
import TOMLKit

/// The config file's `[update]` table: what the disk image's update engine needs of the kiosk
/// (scripts/image, docs/DEPLOYMENT.md "Updating"). All off unless set: a kiosk installed from a
/// Debian package has no watchdog of its own to feed and nobody reading its files.
public struct UpdateSettings: Sendable, Equatable {
    /// The hardware watchdog device the loop feeds ("/dev/watchdog"); nil: none.
    public var watchdog: String?
    /// Seconds without a feed before the watchdog resets the machine.
    public var watchdogTimeout = 30
    /// Written (atomically) once the first frame is on screen and the input devices are open.
    public var readyFile: String?
    /// Present while a signature or a save is under way: no update may install or reboot then.
    public var busyFile: String?
    /// The fleet's update agent (`inkkiosk update-agent`): off unless `server` is set.
    public var agent = UpdateAgentSettings()

    public static let watchdogTimeoutRange = 2...600

    public init() {}

    init(_ t: TOMLTable, _ r: inout ConfigReader) {
        let keys = ConfigSchema.update
        r.only(keys, in: t)
        watchdog = r.path("watchdog", in: t, of: keys)
        if let v = r.integer("watchdog_timeout", in: t, of: keys) { watchdogTimeout = v }
        readyFile = r.path("ready_file", in: t, of: keys)
        busyFile = r.path("busy_file", in: t, of: keys)
        if let v = r.string("server", in: t, of: keys) {
            if let problem = UpdateAgentSettings.serverProblem(v) { r.problem("update.server", "\(v.debugDescription) \(problem)") } else { agent.server = v }
        }
        if let v = r.string("tenant", in: t, of: keys) {
            if let problem = UpdateAgentSettings.tenantProblem(v) { r.problem("update.tenant", "\(v.debugDescription) \(problem)") } else { agent.tenant = v }
        }
        if let v = r.integer("poll_interval", in: t, of: keys) { agent.pollInterval = v }
        if let v = r.integer("backoff_max", in: t, of: keys) { agent.backoffMax = v }
        if let v = r.string("window", in: t, of: keys) {
            do { agent.window = try RebootWindow(v) } catch { r.problem("update.window", error.description) }
        }
        if let v = r.integer("download_limit", in: t, of: keys) { agent.downloadLimit = v }
        if let v = r.integer("max_bundle_mb", in: t, of: keys) { agent.maxBundleMB = v }
        if let v = r.path("download_dir", in: t, of: keys) { agent.downloadDir = v }
        if let v = r.path("pending_file", in: t, of: keys) { agent.pendingFile = v }
        if let v = r.path("identity_file", in: t, of: keys) { agent.identityFile = v }
        agent.caFile = r.path("ca_file", in: t, of: keys)
        if let v = r.bool("allow_downgrade", in: t, of: keys) { agent.allowDowngrade = v }
        if let v = r.path("update_command", in: t, of: keys) { agent.updateCommand = v }
        if let v = r.path("confirmed_file", in: t, of: keys) { agent.confirmedFile = v }
        if let v = r.integer("confirm_wait", in: t, of: keys) { agent.confirmWait = v }
    }
}
