// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import InkDocument
import Glibc
import InkCore

/// The host's signature requests as the outbox remembers them across restarts: `.requests`, one
/// JSON object a line, appended. A request's `started` line is synced before the host hears of
/// its id, so after a crash every id a host holds is either a capture in the outbox or a line
/// here (then it was not accepted). A torn last line (a cut during an append) is skipped.
public struct RequestLog: Sendable {
    public struct Entry: Codable, Sendable, Equatable {
        public enum Event: String, Codable, Sendable { case started, ended, acknowledged }
        public var id: String
        public var event: Event
        /// ISO 8601, UTC, with milliseconds.
        public var at: String
        public var prompt: String?
        public var timeout: Double?
        /// With `ended`: the final state, as the API names it.
        public var state: String?
        public var reason: String?
        /// With `started`: the document signed (absent for a plain signature request).
        public var document: Document?

        public init(id: String, event: Event, at: String, prompt: String? = nil, timeout: Double? = nil,
                    state: String? = nil, reason: String? = nil, document: Document? = nil) {
            self.id = id; self.event = event; self.at = at; self.prompt = prompt; self.timeout = timeout
            self.state = state; self.reason = reason; self.document = document
        }
    }

    /// A request's document as the API's status names it.
    public typealias Document = SignedPlace

    public static let fileName = ".requests"
    public let path: String

    public init(outbox: String) { path = "\(outbox)/\(Self.fileName)" }

    /// Appends one line in a single write (O_APPEND: lines from two threads never interleave);
    /// `durable` syncs it, and every line before it, to disk before returning.
    public func append(_ entry: Entry, durable: Bool) throws {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        try DurableFile.prepareDirectory(directory)
        let created = access(path, F_OK) != 0
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw SystemCallError("open", path: path) }
        defer { close(fd) }
        try DurableFile.writeAll(fd, try Self.line(entry), path)
        if durable {
            guard fsync(fd) == 0 else { throw SystemCallError("sync", path: path) }
            if created { try DurableFile.sync(directory) }
        }
    }

    /// Every whole line, oldest first, and how many lines could not be read.
    public func read() -> (entries: [Entry], unreadable: Int) {
        guard let data = FileManager.default.contents(atPath: path) else { return ([], 0) }
        var entries: [Entry] = [], unreadable = 0
        for line in data.split(separator: 0x0A) where !line.isEmpty {
            if let entry = try? JSONDecoder().decode(Entry.self, from: Data(line)) { entries.append(entry) } else { unreadable += 1 }
        }
        return (entries, unreadable)
    }

    /// Replaces the whole file (synced, renamed into place): at start, to drop what retention let go.
    public func rewrite(_ entries: [Entry]) throws {
        var data = Data()
        for entry in entries { data.append(try Self.line(entry)) }
        try DurableFile.replace(path, with: data, mode: 0o600)
        try DurableFile.sync(directoryOf: path)
    }

    static func line(_ entry: Entry) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var data = try encoder.encode(entry)
        data.append(0x0A)
        return data
    }
}
