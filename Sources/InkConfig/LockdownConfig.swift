// SPDX-License-Identifier: Apache-2.0
import TOMLKit

/// The config file's `[lockdown]` table: whether keys may leave the kiosk, and the technicians'
/// service key combination. nil keeps the default (locked down, no service keys).
public struct LockdownConfig: Sendable {
    public var enabled: Bool?
    public var serviceKeys: ServiceKeys?

    public init() {}

    init(_ t: TOMLTable, _ r: inout ConfigReader) {
        let keys = ConfigSchema.lockdown
        r.only(keys, in: t)
        enabled = r.bool("enabled", in: t, of: keys)
        serviceKeys = r.serviceKeys("service_keys", in: t, at: keys.path)
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
