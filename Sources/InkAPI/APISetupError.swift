// SPDX-License-Identifier: Apache-2.0
/// Why the signature API cannot start as configured, when no system call failed (a weak or
/// world-readable token, an address reachable from other machines without one); a failed system
/// call is a `SystemCallError` with its errno and path.
public struct APISetupError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
