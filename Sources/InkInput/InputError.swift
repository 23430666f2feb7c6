/// Why the input side could not start, with what a technician needs to fix it.
public struct InputError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
