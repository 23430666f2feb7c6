/// Why the kiosk refuses to start or stops, when no system call failed (a configuration that
/// would lose signatures, the API's address refused); a failed system call is a `SystemCallError`.
public struct KioskError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
