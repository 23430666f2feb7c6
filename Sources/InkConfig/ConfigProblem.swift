// SPDX-License-Identifier: Apache-2.0
/// One thing wrong in a config file: where (file, line, key path) and what.
public struct ConfigProblem: Sendable, Equatable, CustomStringConvertible {
    public var file: String
    public var line: Int?
    public var key: String
    public var message: String
    public var description: String { "\(file):\(line.map(String.init) ?? "?"): \(key.isEmpty ? "" : "\(key): ")\(message)" }
}

/// A config the kiosk refuses to start with; lists every problem, not just the first.
public struct ConfigError: Error, CustomStringConvertible {
    public var problems: [ConfigProblem]
    public var description: String { problems.map(\.description).joined(separator: "\n") }
}
