// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import Glibc
import InkStorage

/// What the pupil sees of a worksheet's latest hand-in.
public struct HandInState: Codable, Sendable, Equatable {
    public enum Phase: String, Codable, Sendable {
        /// In the outbox; `reason` says why it has not gone yet (no network, the server down).
        case waiting
        case sent
        /// Not sent and not tried again (a conflict, a refusal); `reason` says why.
        case failed
    }

    public var phase: Phase
    public var reason: String?
    /// Seconds since 1970 of the last change.
    public var updated: Int64
    /// The outbox item it is about.
    public var itemID: String

    public init(phase: Phase, reason: String? = nil, updated: Int64, itemID: String) {
        self.phase = phase; self.reason = reason; self.updated = updated; self.itemID = itemID
    }
}

/// The classroom agent's memory of its uploads, one synced file: the ETag of each file it put
/// on the server (a resubmission replaces exactly that version, `If-Match`), the digests of uploads
/// whose answer never came (after a 412, a copy with one of them on the server is ours), and the
/// state of each worksheet's latest hand-in, which the kiosk's screen reads. Names and ETags only:
/// no pupil's work. At most `maxEntries` names of each kind (the oldest change goes first).
public struct HandInLedger: Codable, Sendable, Equatable {
    public struct Upload: Codable, Sendable, Equatable {
        /// The server's ETag of our last confirmed upload, nil before one.
        public var etag: String?
        /// That upload's SHA-256.
        public var sha256: String?
        /// Uploads sent without an answer, newest last (at most `maxUnanswered`).
        public var unanswered: [String] = []
        public var updated: Int64
    }

    public var uploads: [String: Upload] = [:]
    /// By worksheet title.
    public var states: [String: HandInState] = [:]

    public static let maxEntries = 1000
    public static let maxUnanswered = 8

    public init() {}

    /// The ledger in `path`, or an empty one when there is none; a damaged file is an error
    /// (starting afresh could overwrite nothing, but would call the pupil's own file a conflict).
    public static func load(_ path: String) throws -> HandInLedger {
        try StateFile.load(path, as: HandInLedger.self, what: "the hand-in ledger") ?? HandInLedger()
    }

    public func save(_ path: String) throws { try StateFile.save(self, to: path, mode: 0o600) }

    mutating func setState(_ title: String, _ state: HandInState) {
        states[title] = state
        if states.count > Self.maxEntries, let oldest = states.min(by: { $0.value.updated < $1.value.updated })?.key {
            states[oldest] = nil
        }
    }

    mutating func upload(_ remote: String, now: Int64) -> Upload {
        if let upload = uploads[remote] { return upload }
        if uploads.count >= Self.maxEntries, let oldest = uploads.min(by: { $0.value.updated < $1.value.updated })?.key {
            uploads[oldest] = nil
        }
        return Upload(updated: now)
    }
}
