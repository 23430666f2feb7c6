// SPDX-License-Identifier: Apache-2.0
/// The release, as `inkkiosk --version` (and `inkkiosk-bench --version`) prints it and the
/// Debian packages are named (scripts/deb).
public enum InkKioskVersion {
    public static let string = "1.0.0"
}
