// SPDX-License-Identifier: Apache-2.0
import InkClassroom
import InkHTTPClient
import TOMLKit

extension CloudSettings {
    /// The config file's `[cloud]` table (ConfigSchema.cloud says what each key is).
    init(_ t: TOMLTable, _ r: inout ConfigReader) {
        self.init()
        let keys = ConfigSchema.cloud
        r.only(keys, in: t)
        server = Self.checked("server", t, keys, &r, Self.urlProblem)
        share = Self.checked("share", t, keys, &r, Self.urlProblem)
        if let share, Self.shareParts(share) == nil {
            r.problem("cloud.share", "\(share.debugDescription) is not a share link (https://HOST/s/TOKEN)")
        }
        if server != nil && share != nil { r.problem("cloud", "server and share both set: choose an enrolled account or a share link") }
        if let v = Self.checked("hand_out", t, keys, &r, Self.folderProblem) { handOutFolder = v }
        if let v = Self.checked("hand_in", t, keys, &r, Self.folderProblem) { handInFolder = v }
        if let v = Self.checked("returned", t, keys, &r, Self.folderProblem) { returnFolder = v }
        if let v = Self.checked("device_name", t, keys, &r, Self.deviceNameProblem) { deviceName = v }
        if let v = r.bool("hand_in_png", in: t, of: keys) { handInPNG = v }
        if let v = r.path("credentials_file", in: t, of: keys) { credentialsFile = v }
        if let v = r.path("state_dir", in: t, of: keys) { stateDirectory = v }
        if let v = r.path("hand_out_dir", in: t, of: keys) { handOutDirectory = v }
        if let v = r.path("returned_dir", in: t, of: keys) { returnDirectory = v }
        caFile = r.path("ca_file", in: t, of: keys)
        if let v = r.integer("poll_interval", in: t, of: keys) { pollInterval = v }
        if let v = r.integer("backoff_max", in: t, of: keys) { backoffMax = v }
        if let v = r.integer("max_files", in: t, of: keys) { maxFiles = v }
        if let v = r.integer("max_file_mb", in: t, of: keys) { maxFileMB = v }
        if let v = r.integer("outbox_items", in: t, of: keys) { outboxItems = v }
        if let v = r.integer("outbox_mb", in: t, of: keys) { outboxMB = v }
    }

    /// The key's string if `problem` finds nothing wrong with it; else the problem, reported at the key.
    private static func checked(_ key: String, _ t: TOMLTable, _ keys: ConfigSection, _ r: inout ConfigReader,
                                _ problem: (String) -> String?) -> String? {
        guard let v = r.string(key, in: t, of: keys) else { return nil }
        if let why = problem(v) { r.problem("cloud.\(key)", "\(v.debugDescription) \(why)"); return nil }
        return v
    }
}

extension ConfigSchema {
    private static let cloudDefaults = CloudSettings()

    static let cloud = ConfigSection("cloud", "The classroom's link to the school's cloud (`inkkiosk cloud-agent`, docs/DEPLOYMENT.md "
                                     + "\"A class on the school's cloud\"): worksheets handed out to the tablet, pupils' work handed in, "
                                     + "marked work returned, over WebDAV (Nextcloud). The agent does not run unless server or share is set.", [
        ConfigKey("server", .string, .unset("none"),
                  "The school cloud's base URL, e.g. \"https://cloud.school.example\": the tablet enrols with Nextcloud's Login Flow v2 "
                  + "(its login URL shown as a QR code; a teacher logs in on a phone) and receives an app password of its own. "
                  + "https only (http on the tablet's loopback only)."),
        ConfigKey("share", .string, .unset("none"),
                  "Instead of server: a share link, e.g. \"https://cloud.school.example/s/AbC123\", for pupils without accounts; "
                  + "its password (if any) in credentials_file as {\"sharePassword\": \"…\"}."),
        ConfigKey("hand_out", .string, .string(cloudDefaults.handOutFolder),
                  "The folder worksheets are handed out in, under the account's (or the share's) root; its class.json may set "
                  + "a deadline ({\"deadline\": \"2026-12-04T15:00:00+01:00\"}) after which hand-in is closed."),
        ConfigKey("hand_in", .string, .string(cloudDefaults.handInFolder), "The folder hand-ins go to."),
        ConfigKey("returned", .string, .string(cloudDefaults.returnFolder), "The folder the teacher returns marked work in."),
        ConfigKey("device_name", .string, .string(cloudDefaults.deviceName),
                  "The name hand-ins go under (DEVICE_NAME-TITLE.pdf): the device's name or a pseudonym, never a pupil's; "
                  + "letters a-z, digits, - and _."),
        ConfigKey("hand_in_png", .bool, .bool(cloudDefaults.handInPNG), "true: each page's PNG is handed in with the PDF."),
        ConfigKey("credentials_file", .path, .string(cloudDefaults.credentialsFile),
                  "The tablet's app password (written at enrolment) or the share's password: mode 0600, owned by the agent's "
                  + "user, else refused. Never in the image, never in the log."),
        ConfigKey("state_dir", .path, .string(cloudDefaults.stateDirectory),
                  "The outbox of hand-ins (synced: a hand-in survives a power cut and is sent once the network is back), the "
                  + "ledger of uploads, the folders' states, status.json (read by the screen)."),
        ConfigKey("hand_out_dir", .path, .string(cloudDefaults.handOutDirectory),
                  "Where handed-out worksheets appear on the tablet; list it in [classroom] worksheets for the shelf."),
        ConfigKey("returned_dir", .path, .string(cloudDefaults.returnDirectory), "Where returned work appears on the tablet."),
        ConfigKey("ca_file", .path, .unset("the system's CAs"),
                  "A PEM file of a school's own CA to trust instead of the system's. TLS is always verified."),
        ConfigKey("poll_interval", .integer(CloudSettings.pollIntervalRange), .integer(cloudDefaults.pollInterval),
                  "Seconds between looks at the folders (one PROPFIND each while nothing changed); ±10 % jitter. A hand-in "
                  + "goes out at once, not at the next poll."),
        ConfigKey("backoff_max", .integer(CloudSettings.backoffMaxRange), .integer(cloudDefaults.backoffMax),
                  "The longest wait after failures, seconds: the wait doubles from \(PollSchedule.firstBackoff) s up to it."),
        ConfigKey("max_files", .integer(CloudSettings.maxFilesRange), .integer(cloudDefaults.maxFiles),
                  "Worksheets taken from a folder at most (by name); the rest are refused and logged."),
        ConfigKey("max_file_mb", .integer(CloudSettings.maxFileMBRange), .integer(cloudDefaults.maxFileMB),
                  "A worksheet over this many MiB is not fetched."),
        ConfigKey("outbox_items", .integer(CloudSettings.outboxItemsRange), .integer(cloudDefaults.outboxItems),
                  "Hand-ins waiting at most; one more is refused on screen (\"connect the tablet to the network first\"), "
                  + "none already waiting is dropped."),
        ConfigKey("outbox_mb", .integer(CloudSettings.outboxMBRange), .integer(cloudDefaults.outboxMB),
                  "MiB the waiting hand-ins may take at most."),
    ])
}
