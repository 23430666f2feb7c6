import TOMLKit

/// The config file's `[lockdown]` table: whether keys may leave the kiosk, and the technicians'
/// service key combination. nil keeps the default (locked down, no service keys).
public struct LockdownConfig: Sendable {
    public var enabled: Bool?
    public var serviceKeys: ServiceKeys?

    public init() {}

    init(_ t: TOMLTable, _ r: inout ConfigReader) {
        r.only(["enabled", "service_keys"], in: t, at: "lockdown")
        enabled = r.bool("enabled", in: t, at: "lockdown")
        serviceKeys = r.serviceKeys("service_keys", in: t, at: "lockdown")
    }
}

extension ConfigReader {
    /// A key combination like "ctrl+alt+shift+s"; "" is none.
    mutating func serviceKeys(_ key: String, in t: TOMLTable, at path: String) -> ServiceKeys? {
        guard let text = string(key, in: t, at: path), !text.trimmed(" \t").isEmpty else { return nil }
        do { return try ServiceKeys(parsing: text) } catch {
            problem("\(path).\(key)", error.description)
            return nil
        }
    }
}
