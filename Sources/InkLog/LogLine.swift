// SPDX-License-Identifier: Apache-2.0
import Logging

/// How one message is written to stderr. Under systemd with stderr connected to the journal,
/// each line starts with its syslog priority in angle brackets (sd-daemon(3): `<4>` is a
/// warning), which journald takes as the entry's priority and strips (`journalctl -p warning`
/// then filters on it); elsewhere the level is written out ("warning: inkkiosk: …").
public enum LogLine {
    /// The syslog priority journald reads from a line's `<N>` prefix.
    public static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .critical: 2
        case .error: 3
        case .warning: 4
        case .notice: 5
        case .info: 6
        case .debug, .trace: 7
        }
    }

    /// The text for one message, every line of it ending in "\n". A message of several lines
    /// gives several lines, each with the prefix: in the journal each is an entry of its own,
    /// and none can pass for a line of another program's (or a forged priority).
    public static func format(_ message: String, level: Logger.Level, tag: String, journal: Bool) -> String {
        let prefix = journal ? "<\(priority(level))>\(tag): " : "\(level.rawValue): \(tag): "
        var text = ""
        for line in message.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            text += prefix
            text += line
            text += "\n"
        }
        return text
    }
}
