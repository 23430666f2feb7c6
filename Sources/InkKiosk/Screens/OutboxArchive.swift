// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import Glibc
import Dispatch
import InkAPI
import InkCore
import InkStorage

/// The signature desk's memory on disk: the outbox's complete captures (`ID/`) say which
/// signatures were accepted, and `.requests` (`RequestLog`) which ids a host was given and how
/// the others ended. Built once at start, after `SignatureCapture.sweep` removed what a crash
/// left; then every request and outcome is appended.
public final class OutboxArchive: CaptureArchive {
    public let outbox: String
    public let restored: [CaptureStatus]
    public let historyLimit: Int
    /// What start-up did, for the log.
    public let notes: [LogNote]
    private let log: RequestLog
    /// Every append goes through here, in order. The kiosk thread reports outcomes and must
    /// not wait for a disk; the API's tasks wait for theirs (a request is on disk before its id
    /// is given out).
    private let appends = DispatchQueue(label: "inkkiosk.outbox-requests")

    /// Rebuilds the history: a capture directory is `accepted` (whatever the log says: its rename
    /// was the commit); an id the log started and never ended is `interrupted` (its Accept, if
    /// any, never finished). Retention (the outbox's own) bounds both; acknowledged captures
    /// whose files a crash left behind lose them now.
    public init(outbox: String, retention: Retention, now: Date = Date()) {
        self.outbox = outbox
        log = RequestLog(outbox: outbox)
        var notes: [LogNote] = []
        if let note = retention.pruneNote(outbox, what: "captures") { notes.append(note) }
        let (entries, unreadable) = log.read()
        if unreadable > 0 { notes.append(.warning("\(log.path): skipped \(unreadable) unreadable lines (a cut during a write)")) }
        let (stored, problems) = SignatureCapture.stored(outbox: outbox)
        notes += problems.map { .warning("not a complete capture: \($0)") }

        var byID: [String: CaptureStatus] = [:], order: [String] = [], kept: [String: [RequestLog.Entry]] = [:]
        var interrupted: [RequestLog.Entry] = []
        for entry in entries {
            kept[entry.id, default: []].append(entry)
            switch entry.event {
            case .started:
                if byID[entry.id] == nil { order.append(entry.id) }
                byID[entry.id] = CaptureStatus(id: entry.id, state: .waiting, prompt: entry.prompt, timeout: entry.timeout, created: entry.at,
                                               document: entry.document)
            case .ended:
                guard var status = byID[entry.id], let state = entry.state.flatMap(CaptureState.init(rawValue:)) else { continue }
                status.state = state; status.finished = entry.at; status.reason = entry.reason
                byID[entry.id] = status
            case .acknowledged:
                byID[entry.id]?.acknowledged = entry.at
            }
        }
        // Captures the log never started (no host, or the log was lost) still count as accepted.
        for name in stored.keys.sorted() where byID[name] == nil {
            let meta = stored[name]!.metadata
            order.append(name)
            byID[name] = CaptureStatus(id: name, state: .accepted, prompt: nil, timeout: nil, created: meta.started, finished: meta.ended)
        }
        // Oldest first, as the desk keeps them (ISO 8601 UTC times of one format sort as text).
        order = order.enumerated().sorted { a, b in
            let ca = byID[a.element]?.created ?? "", cb = byID[b.element]?.created ?? ""
            return ca != cb ? ca < cb : a.offset < b.offset
        }.map(\.element)
        let stamp = Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(now)
        for id in order {
            guard var status = byID[id] else { continue }
            if let capture = stored[id] {
                if status.acknowledged != nil {
                    // Acknowledged before the crash, files not yet gone: they go now.
                    do { try SignatureCapture.remove(id, outbox: outbox) } catch { notes.append(.warning("\(error)")) }
                } else {
                    status.files = Self.files(capture)
                }
                status.state = .accepted; status.reason = nil
                if status.finished == nil { status.finished = capture.metadata.ended }
            } else if status.state == .waiting {
                status.state = .interrupted; status.finished = stamp; status.reason = CaptureReason.interrupted
                let entry = Self.ended(status)
                interrupted.append(entry)
                kept[id, default: []].append(entry)
            }
            byID[id] = status
        }
        let expired = Set(Self.expired(order.compactMap { byID[$0] }, retention, now: now))
        let history = order.compactMap { byID[$0] }.filter { !expired.contains($0.id) }
        if !expired.isEmpty || !interrupted.isEmpty || unreadable > 0 {
            do {
                try log.rewrite(history.flatMap { kept[$0.id] ?? [] })
            } catch {
                notes.append(.warning("cannot rewrite \(log.path): \(error)"))
            }
        }
        if !interrupted.isEmpty {
            notes.append(.info("signature requests interrupted by the last stop: \(interrupted.map(\.id).joined(separator: ", "))"))
        }
        restored = history
        historyLimit = max(CaptureLimits.history, retention.keep)
        self.notes = notes
    }

    public func started(_ status: CaptureStatus) throws {
        try appends.sync {
            let document = status.document
            try log.append(.init(id: status.id, event: .started, at: status.created, prompt: status.prompt, timeout: status.timeout,
                                 document: document), durable: true)
        }
    }

    /// Not synced: the outcome that matters, accepted, is the capture's directory itself; a
    /// cancel or time-out lost to a cut reads as `interrupted`, also "not accepted". The next
    /// request's sync takes this line to disk anyway.
    public func ended(_ status: CaptureStatus) {
        let entry = Self.ended(status)
        appends.async { [log] in try? log.append(entry, durable: false) }
    }

    public func settle() { appends.sync {} }

    public func acknowledge(_ status: CaptureStatus, at time: String) throws -> CaptureStatus {
        // The record first: a crash between the two removes the files at the next start.
        try appends.sync {
            try log.append(.init(id: status.id, event: .acknowledged, at: time), durable: true)
            try SignatureCapture.remove(status.id, outbox: outbox)
        }
        var done = status
        done.files = nil
        done.acknowledged = time
        return done
    }

    static func ended(_ status: CaptureStatus) -> RequestLog.Entry {
        .init(id: status.id, event: .ended, at: status.finished ?? status.created, state: status.state.rawValue, reason: status.reason)
    }

    static func files(_ capture: SignatureCapture.Stored) -> CaptureFiles {
        files(paths: capture.paths, samples: capture.metadata.samples, encryptedTo: capture.metadata.encryption?.recipient)
    }

    /// A capture's files from the paths `SignatureCapture` gives (its `write`, or `stored`),
    /// each known by its extension (png, svg, inkml, each maybe `.hpke`; pdf when a document
    /// was signed; json).
    static func files(paths: [String], samples: Int, encryptedTo: String?) -> CaptureFiles {
        func path(_ ext: String) -> String? {
            paths.first { $0.hasSuffix(".\(ext)") || $0.hasSuffix(".\(ext)\(SealedFile.suffix)") }
        }
        return CaptureFiles(directory: URL(fileURLWithPath: paths.first ?? "").deletingLastPathComponent().path,
                            png: path("png") ?? "", svg: path("svg") ?? "", inkml: path("inkml") ?? "", json: path("json") ?? "",
                            samples: samples, encryptedTo: encryptedTo, pdf: path("pdf"))
    }

    /// The ids retention lets go: beyond the newest `keep`, or created more than `maxAgeDays` ago.
    static func expired(_ history: [CaptureStatus], _ retention: Retention, now: Date) -> [String] {
        let parse = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        var out: [String] = []
        for (i, status) in history.reversed().enumerated() {
            let tooMany = retention.keep > 0 && i >= retention.keep
            let created = (try? parse.parse(status.created)) ?? now
            let tooOld = retention.maxAgeDays > 0 && now.timeIntervalSince(created) > retention.maxAgeDays * 86_400
            if tooMany || tooOld { out.append(status.id) }
        }
        return out
    }
}
