/// Why the display could not start, when no system call failed (no card, no connected connector,
/// no such mode); a failed system call is a `SystemCallError` with its errno and device.
public struct DisplayError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
