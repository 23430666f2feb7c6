// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import Glibc
import InkCore
import InkStorage

/// What the teacher's `class.json` in the hand-out folder says (every key optional).
public struct ClassManifest: Codable, Sendable, Equatable {
    /// When hand-in closes, ISO 8601 with its offset ("2026-12-04T15:00:00+01:00").
    public var deadline: String?

    public init(deadline: String? = nil) { self.deadline = deadline }

    /// The deadline as seconds since 1970; nil when there is none. A deadline that cannot be
    /// read is an error: a typo must not leave hand-in open for ever without anyone knowing.
    public func deadlineSeconds() throws(HandOutProblem) -> Int64? {
        guard let deadline else { return nil }
        guard let date = try? Date(deadline, strategy: .iso8601) else {
            throw HandOutProblem(description: "class.json: deadline \(deadline.debugDescription) is not an ISO 8601 time with its offset (2026-12-04T15:00:00+01:00)")
        }
        return Int64(date.timeIntervalSince1970.rounded(.down))
    }
}

public struct HandOutProblem: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String
}

/// What the agent knows of the hand-out folder, one synced file the kiosk reads too: the
/// folder's ETag at the last complete sync, each worksheet fetched with its ETag, the deadline.
public struct HandOutState: Codable, Sendable, Equatable {
    public var folderETag: String?
    /// Local file name → the server's ETag of the version on the tablet.
    public var files: [String: String] = [:]
    /// Seconds since 1970 when hand-in closes; nil: open.
    public var deadline: Int64?
    /// Files of the folder not taken, and why (too large, too many, a name the tablet refuses).
    public var refused: [String: String] = [:]

    public init() {}

    public static func load(_ path: String) throws -> HandOutState {
        try StateFile.load(path, as: HandOutState.self, what: "a folder's state") ?? HandOutState()
    }

    public func save(_ path: String) throws { try StateFile.save(self, to: path, mode: 0o644) }
}

/// Keeps `localDirectory` a copy of the class's hand-out folder's PDFs: one PROPFIND of the
/// folder's own ETag a poll, and nothing more while it is unchanged; a changed folder is listed and
/// only new or changed worksheets are fetched (each to a hidden file, synced, then renamed into
/// place, so the shelf never sees half a PDF). Only files this sync put there are ever removed.
public struct HandOutSync: Sendable {
    public let dav: WebDAVClient
    public let folder: String
    public let localDirectory: String
    public let statePath: String
    public let maxFiles: Int
    public let maxBytes: Int64
    /// Only names that start with it (the return folder: a tablet takes its own marked work, never
    /// another pupil's); nil: every PDF.
    public let namePrefix: String?
    public static let manifestName = "class.json"
    public static let maxManifestBytes = 16_384
    /// The longest name taken, in bytes (the shelf adds a date and a page number to it on Save).
    public static let maxNameBytes = 120

    public init(dav: WebDAVClient, folder: String, localDirectory: String, statePath: String, maxFiles: Int, maxBytes: Int64,
                namePrefix: String? = nil) {
        self.dav = dav; self.folder = folder; self.localDirectory = localDirectory
        self.statePath = statePath; self.maxFiles = maxFiles; self.maxBytes = maxBytes; self.namePrefix = namePrefix
    }

    public struct Round: Sendable, Equatable {
        /// The folder's ETag had not changed: one request, nothing fetched.
        public var unchanged = false
        public var fetched: [String] = []
        public var removed: [String] = []
        public var refused: [String: String] = [:]
        public var deadline: Int64?
    }

    public func poll() throws -> Round {
        var state = try HandOutState.load(statePath)
        var round = Round()
        let etag = try dav.etag(of: folder)
        if let etag, etag == state.folderETag {
            round.unchanged = true
            round.deadline = state.deadline
            return round
        }
        let listing = try dav.list(folder, maxEntries: maxFiles * 2 + 16)
        try DurableFile.prepareDirectory(localDirectory)
        let entries = listing.entries.filter { entry in namePrefix.map { entry.name.hasPrefix($0) || entry.name == Self.manifestName } ?? true }
        let plan = Self.plan(entries, known: state.files, maxFiles: maxFiles, maxBytes: maxBytes,
                             exists: { access("\(localDirectory)/\($0)", F_OK) == 0 })
        round.refused = plan.refused
        for entry in plan.fetch {
            try fetch(entry)
            state.files[entry.name] = entry.etag ?? ""
            try state.save(statePath)   // each worksheet remembered as soon as it is in place
            round.fetched.append(entry.name)
        }
        for name in plan.remove {
            if unlink("\(localDirectory)/\(name)") != 0 && errno != ENOENT {
                throw SystemCallError("remove", path: "\(localDirectory)/\(name)")
            }
            state.files[name] = nil
            round.removed.append(name)
        }
        if !plan.remove.isEmpty { try DurableFile.sync(localDirectory) }
        state.deadline = nil
        if namePrefix == nil, listing.entries.contains(where: { $0.name == Self.manifestName && !$0.isFolder }) {
            let manifest = try dav.get(folder + "/" + Self.manifestName)
            guard manifest.bytes.count <= Self.maxManifestBytes else {
                throw HandOutProblem(description: "\(Self.manifestName) is over \(Self.maxManifestBytes) bytes")
            }
            do {
                state.deadline = try JSONDecoder().decode(ClassManifest.self, from: Data(manifest.bytes)).deadlineSeconds()
            } catch let problem as HandOutProblem {
                throw problem
            } catch {
                throw HandOutProblem(description: "\(Self.manifestName) is not the JSON expected ({\"deadline\": \"2026-12-04T15:00:00+01:00\"}): \(error)")
            }
        }
        state.refused = plan.refused
        // The folder's ETag last: a sync cut short (a power cut, the network gone) is done again.
        state.folderETag = listing.folderETag ?? etag
        try state.save(statePath)
        round.deadline = state.deadline
        return round
    }

    public struct Plan: Sendable, Equatable {
        public var fetch: [DAVResource] = []
        public var remove: [String] = []
        public var refused: [String: String] = [:]
    }

    /// Which of the folder's entries to fetch (new, changed, or missing on the tablet), which of
    /// the files fetched before to remove (gone from the server), which to refuse and why.
    public static func plan(_ entries: [DAVResource], known: [String: String], maxFiles: Int, maxBytes: Int64,
                            exists: (String) -> Bool) -> Plan {
        var plan = Plan()
        var taken: Set<String> = []
        let pdfs = entries.filter { !$0.isFolder && $0.name.lowercased().hasSuffix(".pdf") }.sorted { $0.name < $1.name }
        for entry in pdfs {
            let name = entry.name
            if name.hasPrefix(".") { plan.refused[name] = "a hidden name"; continue }
            if name.utf8.count > maxNameBytes { plan.refused[name] = "a name over \(maxNameBytes) bytes"; continue }
            if let bytes = entry.bytes, bytes > maxBytes { plan.refused[name] = "\(bytes) bytes, over the limit of \(maxBytes)"; continue }
            if taken.count >= maxFiles { plan.refused[name] = "more than \(maxFiles) worksheets in the folder"; continue }
            taken.insert(name)
            if known[name] == nil || known[name] != (entry.etag ?? "") || entry.etag == nil || !exists(name) {
                plan.fetch.append(entry)
            }
        }
        plan.remove = known.keys.filter { !taken.contains($0) }.sorted()
        return plan
    }

    private func fetch(_ entry: DAVResource) throws {
        let partial = "\(localDirectory)/.\(entry.name).part"
        // Never resumed: what a cut left may be an older version's first bytes.
        if unlink(partial) != 0 && errno != ENOENT { throw SystemCallError("remove", path: partial) }
        let result = try dav.download(folder + "/" + entry.name, to: partial, maxBytes: maxBytes)
        if let expected = entry.bytes, result.bytes != expected {
            unlink(partial)   // changed while it came: the next poll fetches it again
            throw HandOutProblem(description: "\(entry.name) came with \(result.bytes) bytes where the listing said \(expected)")
        }
        try DurableFile.sync(partial)
        let final = "\(localDirectory)/\(entry.name)"
        guard rename(partial, final) == 0 else { throw SystemCallError("rename \(partial) to", path: final) }
        try DurableFile.sync(localDirectory)
    }
}
