// SPDX-License-Identifier: Apache-2.0
import InkConfig

/// Why the kiosk refuses to start or stops, when no system call failed; a failed system call is a
/// `SystemCallError` with its errno and path.
public enum KioskError: Error, CustomStringConvertible {
    /// A signature kiosk whose captures would be kept neither sealed nor on purpose in the clear.
    case unsealedSignatures
    /// `[api] listen` does not parse.
    case apiAddress(listen: String, cause: any Error)
    /// `[api] listen` parses, but the kiosk will not listen there (reachable from other machines).
    case apiAddressRefused(listen: String, why: String)
    /// The signature API's server stopped while the kiosk ran.
    case apiStopped(why: String)
    /// `[update] busy_file` or `ready_file` cannot be written or removed.
    case updateFile(key: String, cause: any Error)

    public var description: String {
        switch self {
        case .unsealedSignatures: KioskConfig.unsealedSignatures
        case .apiAddress(_, let cause): "signature API: \(cause)"
        case .apiAddressRefused(_, let why): "signature API: \(why)"
        case .apiStopped(let why): why
        case .updateFile(let key, let cause): "[update] \(key): \(cause)"
        }
    }
}
