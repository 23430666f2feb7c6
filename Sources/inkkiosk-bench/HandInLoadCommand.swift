// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import FoundationEssentials
import Dispatch
import Glibc
import InkClassroom
import InkCore
import InkHTTPClient
import InkLoop
import InkPipeline
import InkStorage
import Synchronization

/// `inkkiosk-bench hand-in-load`: a class hands in at once. N tablets, each with the agent's own
/// outbox, ledger and sender (the code `inkkiosk cloud-agent` runs) on a thread of its own, put
/// one PDF-sized file each into the school cloud's hand-in folder through a share link, all
/// released together; then each reads its file back and compares it. Prints each tablet's time
/// to "sent" and whether every file arrived whole. Exits non-zero if any did not.
struct HandInLoadCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hand-in-load",
        abstract: "Many tablets hand in to a school cloud's share at once; report the times and check every file.",
        discussion: "Prints a readable report, then the same figures as one JSON object on the last line.")

    @Option(help: "The school cloud's share link (https://host/s/TOKEN).")
    var share: String

    @Option(help: "The share's password.")
    var password: String

    @Option(help: "A CA file (PEM) to trust for the server's certificate.")
    var ca: String?

    @Option(help: "The hand-in folder under the share.")
    var folder = "Hand-in"

    @Option(help: "Tablets handing in at once.")
    var clients = 30

    @Option(name: .customLong("size-kib"), help: "Each hand-in's size in KiB (an annotated two-page worksheet is a few hundred).")
    var sizeKiB = 512

    @Option(help: "A directory for the tablets' outboxes (made; emptied first).")
    var directory: String

    struct Tablet: Codable {
        var name: String
        var remote: String
        var sha256: String
        var sentSeconds: Double
        var rounds: Int
        var whole: Bool
        var problem: String?
    }

    struct Report: Codable {
        var clients: Int
        var bytesEach: Int
        var sentSeconds: Summary
        var allSentSeconds: Double
        var megabytesPerSecond: Double
        var whole: Int
        var tablets: [Tablet]
    }

    func run() throws {
        guard (1...500).contains(clients) else { throw ValidationError("--clients must be between 1 and 500") }
        guard (1...65_536).contains(sizeKiB) else { throw ValidationError("--size-kib must be between 1 and 65536") }
        guard let parts = CloudSettings.shareParts(share) else { throw ValidationError("--share \(share.debugDescription) is not a share link (https://host/s/TOKEN)") }
        var options = HTTPClient.Options()
        options.caFile = ca
        options.userAgent = "inkkiosk-bench hand-in-load"
        let http = HTTPClient(options)
        try? FileManager.default.removeItem(atPath: directory)
        try DurableFile.prepareDirectory(directory)

        // Each tablet's hand-in in its own outbox, before the start: only the sending is timed.
        var senders: [(name: String, remote: String, sha: String, sender: HandInSender, dav: WebDAVClient)] = []
        for i in 1...clients {
            let name = String(cFormat: "load-%03d", i)
            let source = "\(directory)/\(name).pdf"
            let bytes = Self.content(tablet: i, size: sizeKiB << 10)
            try DurableFile.create(source, bytes)
            try DurableFile.prepareDirectory("\(directory)/\(name)")
            let outbox = HandInOutbox(directory: "\(directory)/\(name)/outbox", maxItems: 5, maxBytes: 1 << 30)
            let remote = "\(name)-Algebra.pdf"
            _ = try outbox.enqueue(title: "Algebra", handedIn: Int64(time(nil)), files: [(remote: remote, source: source)])
            let dav = WebDAVClient(root: "\(parts.server)/public.php/webdav", user: parts.token, password: password, http: http)
            senders.append((name, remote, HandInOutbox.sha256(bytes),
                            HandInSender(server: dav, folder: folder, outbox: outbox, ledgerPath: "\(directory)/\(name)/ledger.json"), dav))
        }

        let results = Mutex<[Int: Tablet]>([:])
        // Every tablet waits at the gate, then all go at once.
        let gate = DispatchGroup()
        gate.enter()
        let done = DispatchGroup()
        for (index, s) in senders.enumerated() {
            done.enter()
            let started = startThread(name: "hand-in \(index)") {
                defer { done.leave() }
                gate.wait()
                let began = monotonicNow()
                var rounds = 0
                var problem: String?
                // As the agent does: rounds until the outbox is empty, a short pause after a failed one.
                while rounds < 20 {
                    rounds += 1
                    do {
                        let round = try s.sender.sendWaiting(now: Int64(time(nil)))
                        if let failed = round.failed.first { problem = round.reasons[failed]; break }
                        if round.stoppedBy == nil, (try? s.sender.outbox.items().isEmpty) == true { problem = nil; break }
                        problem = round.stoppedBy.map { "\($0)" }
                    } catch {
                        problem = "\(error)"
                    }
                    usleep(500_000)
                }
                let sent = monotonicNow() - began
                var whole = false
                if problem == nil {
                    do {
                        let back = try s.dav.get("\(folder)/\(s.remote)")
                        whole = HandInOutbox.sha256(back.bytes) == s.sha
                        if !whole { problem = "read back: \(back.bytes.count) bytes, another digest" }
                    } catch {
                        problem = "read back: \(error)"
                    }
                }
                results.withLock {
                    $0[index] = Tablet(name: s.name, remote: s.remote, sha256: s.sha, sentSeconds: sent, rounds: rounds, whole: whole, problem: problem)
                }
            }
            if !started { done.leave(); throw ValidationError("could not start thread \(index) of \(clients)") }
        }
        let t0 = monotonicNow()
        gate.leave()
        done.wait()
        let allSent = monotonicNow() - t0

        let tablets = results.withLock { r in (0..<clients).compactMap { r[$0] } }
        let whole = tablets.filter(\.whole).count
        let report = Report(clients: clients, bytesEach: sizeKiB << 10, sentSeconds: Summary(tablets.map(\.sentSeconds)),
                            allSentSeconds: allSent,
                            megabytesPerSecond: Double(clients * (sizeKiB << 10)) / 1_048_576 / max(allSent, 1e-9),
                            whole: whole, tablets: tablets)
        print("hand-in-load: \(clients) tablets, \(sizeKiB) KiB each, through \(share)")
        print(String(cFormat: "sent, per tablet  median %.2f s   p99 %.2f s   max %.2f s", report.sentSeconds.median, report.sentSeconds.p99, report.sentSeconds.max))
        print(String(cFormat: "all sent and read back in %.2f s (%.1f MB/s sent)", allSent, report.megabytesPerSecond))
        print("arrived whole     \(whole) of \(clients)")
        for t in tablets where !t.whole { print("  \(t.name): \(t.problem ?? "not whole")") }
        let json = try JSONEncoder().encode(report)
        print(String(decoding: json, as: UTF8.self))
        if whole != clients { throw ExitCode(1) }
    }

    /// A tablet's file: a PDF header and bytes that differ from every other tablet's.
    static func content(tablet: Int, size: Int) -> [UInt8] {
        var bytes = Array("%PDF-1.4\n% hand-in of tablet \(tablet)\n".utf8)
        var state = UInt64(truncatingIfNeeded: tablet) &* 0x9E37_79B9_7F4A_7C15 | 1
        while bytes.count < size {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            bytes.append(UInt8(truncatingIfNeeded: state))
        }
        return bytes
    }
}
