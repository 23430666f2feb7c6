// SPDX-License-Identifier: Apache-2.0
/// A line for the log from code that reports instead of logging (the journal's and the outbox's
/// opening, retention's pruning, a save: storage has no logger), with how much it matters, so
/// that the log writes it at its level instead of reading "warning: " off the text.
public struct LogNote: Sendable, Equatable, CustomStringConvertible {
    public enum Severity: Sendable, Equatable {
        /// Routine: something was done as configured (old files pruned, requests restored).
        case info
        /// Something did not go as asked and the user or the host may notice (a file kept, a page blank).
        case warning
    }

    public var severity: Severity
    public var text: String

    public init(_ severity: Severity, _ text: String) {
        self.severity = severity
        self.text = text
    }

    public static func info(_ text: String) -> LogNote { LogNote(.info, text) }
    public static func warning(_ text: String) -> LogNote { LogNote(.warning, text) }

    /// The same note about `subject` ("journal /var/…: " before its text).
    public func about(_ subject: String) -> LogNote { LogNote(severity, "\(subject): \(text)") }

    public var description: String { text }
}
