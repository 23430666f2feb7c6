// SPDX-License-Identifier: Apache-2.0
/// Why a recording could not be read. Always says where: the file and the 1-based line.
public struct InklogError: Error, CustomStringConvertible, Equatable {
    public var file: String
    public var line: Int
    public var message: String
    /// The failed system call behind it, with its errno, if one was the cause.
    public var cause: SystemCallError?
    public init(file: String, line: Int, message: String, cause: SystemCallError? = nil) {
        self.file = file; self.line = line; self.message = message; self.cause = cause
    }
    public var description: String { "\(file):\(line): \(message)" }
}
