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

    public static let watchdogTimeoutRange = 2...600

    public init() {}

    init(_ t: TOMLTable, _ r: inout ConfigReader) {
        let keys = ConfigSchema.update
        r.only(keys, in: t)
        watchdog = r.path("watchdog", in: t, of: keys)
        if let v = r.integer("watchdog_timeout", in: t, of: keys) { watchdogTimeout = v }
        readyFile = r.path("ready_file", in: t, of: keys)
        busyFile = r.path("busy_file", in: t, of: keys)
    }
}
