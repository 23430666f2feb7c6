// SPDX-License-Identifier: Apache-2.0
import InkCore
import Logging
import Synchronization

/// The kiosk's swift-log handler: one line per message line on stderr, with journald's priority
/// prefix when stderr is the journal (`JournalStream`), else the level's name. The threshold is
/// the process's (`KioskLogging.level`, the config's `[log] level`) unless a logger sets its own.
public struct KioskLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    /// What starts each line after the level: "inkkiosk", the label's first part.
    public let tag: String
    private let journal: Bool
    private let sink: @Sendable (String) -> Void
    private var ownLevel: Logger.Level?

    public var logLevel: Logger.Level {
        get { ownLevel ?? KioskLogging.level }
        set { ownLevel = newValue }
    }

    /// `sink` gets each message's text whole (by default: stderr, in one write).
    public init(label: String, journal: Bool = KioskLogging.journal, level: Logger.Level? = nil,
                sink: @escaping @Sendable (String) -> Void = writeStandardError) {
        tag = String(label.prefix { $0 != "." })
        self.journal = journal
        self.ownLevel = level
        self.sink = sink
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var text = "\(event.message)"
        var all = metadata
        if let provided = metadataProvider?.get() { all.merge(provided) { _, new in new } }
        if let extra = event.metadata { all.merge(extra) { _, new in new } }
        if !all.isEmpty {
            text += " (" + all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ", ") + ")"
        }
        sink(LogLine.format(text, level: event.level, tag: tag, journal: journal))
    }
}

/// The process's logging: the threshold every kiosk logger follows and whether stderr is the journal.
public enum KioskLogging {
    private static let state = LevelBox()

    /// The lowest level written; `.info` until the config or `--log-level` says otherwise.
    public static var level: Logger.Level {
        get { state.get() }
        set { state.set(newValue) }
    }

    /// Decided once, at start: whether lines get journald's `<N>` prefix.
    public static let journal: Bool = JournalStream.isStandardError()

    /// Makes every `Logger` of this process a `KioskLogHandler`; once, first thing in main.
    public static func bootstrap(level: Logger.Level = .info) {
        self.level = level
        LoggingSystem.bootstrap { label in KioskLogHandler(label: label) }
    }
}

/// The threshold, read by every thread that logs and set by the one that reads the config.
private final class LevelBox: Sendable {
    private let value = Mutex<Logger.Level>(.info)
    func get() -> Logger.Level { value.withLock { $0 } }
    func set(_ level: Logger.Level) { value.withLock { $0 = level } }
}

extension Logger {
    /// A note from code that reports instead of logging, at its severity (a routine one at `routine`).
    public func note(_ note: LogNote, routine: Logger.Level = .info) {
        switch note.severity {
        case .info: log(level: routine, "\(note.text)")
        case .warning: warning("\(note.text)")
        }
    }
}
