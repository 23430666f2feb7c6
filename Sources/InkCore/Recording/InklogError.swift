/// Why a recording could not be read. Always says where: the file and the 1-based line.
public struct InklogError: Error, CustomStringConvertible, Equatable {
    public var file: String
    public var line: Int
    public var message: String
    public init(file: String, line: Int, message: String) {
        self.file = file; self.line = line; self.message = message
    }
    public var description: String { "\(file):\(line): \(message)" }
}
