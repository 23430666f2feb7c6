// SPDX-License-Identifier: Apache-2.0
/// The kiosk's mode (`mode` in the config): what is drawn around the ink, and what its controls do.
public enum KioskMode: String, Sendable, Equatable, CaseIterable {
    /// Ink only, no controls (recording sessions, demos).
    case draw
    case signature
    case classroom
}
