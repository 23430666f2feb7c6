// SPDX-License-Identifier: Apache-2.0
import InkCore
import Logging

/// The messages a screen logs, as the kiosk's handler gets them (level and text), kept for a test
/// to read: a `Logger` whose handler is this instead of stderr.
final class LogCapture: @unchecked Sendable {
    private let lock = Lock()
    private var entries: [(level: Logger.Level, message: String)] = []

    var messages: [String] { lock.withLock { entries.map(\.message) } }
    func messages(at level: Logger.Level) -> [String] { lock.withLock { entries.filter { $0.level == level }.map(\.message) } }

    var logger: Logger {
        Logger(label: "inkkiosk.test") { _ in Handler(capture: self) }
    }

    private struct Handler: LogHandler {
        let capture: LogCapture
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            capture.lock.withLock { capture.entries.append((event.level, "\(event.message)")) }
        }
    }
}
