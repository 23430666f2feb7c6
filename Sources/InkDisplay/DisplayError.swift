import Glibc

/// Why the display could not start or present, with the device and the system's reason.
public struct DisplayError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
    static func errno(_ what: String, _ code: Int32 = Glibc.errno) -> DisplayError {
        DisplayError("\(what): \(Errno.describe(code))")
    }
}
