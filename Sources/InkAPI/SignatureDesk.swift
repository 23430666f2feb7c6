// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import Glibc
import Synchronization
import InkLoop
import InkDocument

/// Where the host's signature requests (HTTP, on Swift concurrency tasks) meet the kiosk's
/// single-threaded loop. The host side asks; the kiosk takes messages when `wakeFD` is readable
/// and is the only one to decide a final state (`finish`): a cancel or a timeout is a message,
/// so an accept racing a timeout resolves to whichever `finish` comes first.
public final class SignatureDesk: Sendable {
    private let ledger: Mutex<Ledger>
    private let wake: WakeSignal
    /// Applied when a request gives no timeout; nil: such captures wait until accepted or cancelled.
    public let defaultTimeout: Double?
    /// Where requests and outcomes outlive the process; nil: in memory only.
    private let archive: (any CaptureArchive)?

    public init(defaultTimeout: Double?, archive: (any CaptureArchive)? = nil) throws {
        if let defaultTimeout { try Self.check(timeout: defaultTimeout, field: "default timeout") }
        self.defaultTimeout = defaultTimeout
        self.archive = archive
        wake = try WakeSignal()
        var ledger = Ledger()
        if let archive {
            ledger.historyLimit = archive.historyLimit
            ledger.history = Array(archive.restored.suffix(archive.historyLimit))
        }
        self.ledger = Mutex(ledger)
    }

    /// Readable when messages are waiting for `takeMessages()` (an eventfd; watch it with epoll).
    public var wakeFD: Int32 { wake.fd }

    // MARK: host side

    /// Opens a capture and asks the kiosk to show the signature screen; with `document`, the
    /// screen shows that PDF and the ink goes into its field (`CaptureRequest.document`).
    public func start(prompt: String?, timeout: Double?, document: DocumentToSign? = nil) throws(DeskError) -> CaptureStatus {
        if let prompt { try Self.check(prompt: prompt) }
        if let timeout { try Self.check(timeout: timeout, field: "timeout") }
        let limit = timeout ?? defaultTimeout
        let now = Date()
        let reserved: Result<CaptureStatus, DeskError> = ledger.withLock { l in
            if let current = l.waiting { return .failure(.busy(current: current.status.id)) }
            var id = CaptureID.make(at: now)
            while l.status(id) != nil { id = CaptureID.make(at: now) }
            l.held = nil   // the host has moved on: the last signed PDF held in memory goes
            let status = CaptureStatus(id: id, state: .waiting, prompt: prompt, timeout: limit, created: Timestamp.string(now),
                                       document: document?.place)
            l.waiting = Pending(status: status)
            return .success(status)
        }
        let status = try reserved.get()
        // On disk before the host hears of the id (off the lock: the kiosk's thread takes it too).
        // The kiosk hears of it only afterwards, so no Accept can come before the record.
        do { try archive?.started(status) } catch {
            ledger.withLock { l in if l.waiting?.status.id == status.id { l.waiting = nil } }
            throw .unavailable("cannot record the request, so it was not started: \(error)")
        }
        ledger.withLock { l in
            guard var pending = l.waiting, pending.status.id == status.id else { return }
            pending.deadline = limit.map { deadline(for: status.id, after: $0) }
            l.waiting = pending
            // A cancel that came meanwhile is already queued: the start goes before it.
            let message = DeskMessage.start(CaptureRequest(id: status.id, prompt: prompt, timeout: limit, document: document))
            l.outbox.insert(message, at: l.outbox.firstIndex { $0.captureID == status.id } ?? l.outbox.endIndex)
        }
        wake.signal()
        return status
    }

    /// The host has taken an accepted capture's files: they leave the outbox (biometric data
    /// must not linger); the capture stays `accepted`, with `acknowledged` set and no files.
    /// Again for one already acknowledged: the same answer.
    public func acknowledge(id: String) throws(DeskError) -> CaptureStatus {
        guard let status = status(id: id) else { throw .unknown(id: id) }
        guard status.state == .accepted else { throw .finished(status) }
        if status.acknowledged != nil { return status }
        guard let archive else { throw .unavailable("this kiosk keeps no outbox record: capture \(id)'s files stay") }
        let done: CaptureStatus
        do { done = try archive.acknowledge(status, at: Timestamp.string(Date())) } catch {
            throw .unavailable("cannot remove capture \(id)'s files: \(error)")
        }
        ledger.withLock { l in
            if let i = l.history.lastIndex(where: { $0.id == id }) { l.history[i] = done }
            if l.held?.id == id { l.held = nil }
        }
        return done
    }

    /// The signed PDF of accepted capture `id` held in memory (`finish`'s `heldPDF`), if it still is.
    public func heldPDF(id: String) -> [UInt8]? {
        ledger.withLock { l in l.held?.id == id ? l.held?.bytes : nil }
    }

    /// The document the waiting capture signs: it must stay stored until the capture ends.
    public func documentInUse() -> String? {
        ledger.withLock { $0.waiting?.status.document?.id }
    }

    public func status(id: String) -> CaptureStatus? {
        ledger.withLock { $0.status(id) }
    }

    /// The waiting capture, else the last finished one.
    public func latest() -> CaptureStatus? {
        ledger.withLock { $0.waiting?.status ?? $0.history.last }
    }

    /// Asks the kiosk to cancel; the capture stays `waiting` until the kiosk calls `finish`.
    public func cancel(id: String) throws(DeskError) -> CaptureStatus {
        let outcome: Result<(CaptureStatus, posted: Bool), DeskError> = ledger.withLock { l in
            guard var pending = l.waiting, pending.status.id == id else {
                if let done = l.status(id) { return .failure(.finished(done)) }
                return .failure(.unknown(id: id))
            }
            // One message is enough; a second DELETE only reports again.
            let post = !pending.cancelPosted
            if post {
                pending.cancelPosted = true
                l.waiting = pending
                l.outbox.append(.cancel(id: id))
            }
            return .success((pending.status, post))
        }
        let (status, posted) = try outcome.get()
        if posted { wake.signal() }
        return status
    }

    /// The capture's status once it is final, or after `seconds` (or when the calling task is
    /// cancelled), whichever comes first; nil for an unknown id.
    public func wait(id: String, seconds: Double) async -> CaptureStatus? {
        let token = ledger.withLock { l in
            defer { l.nextToken &+= 1 }
            return l.nextToken
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<CaptureStatus?, Never>) in
                let answerNow: CaptureStatus?? = ledger.withLock { l in
                    let status = l.status(id)
                    // Checked under the lock that `release` takes: a cancellation either is seen
                    // here or finds the waiter registered.
                    guard let status, status.state == .waiting, seconds > 0, !Task.isCancelled else { return .some(status) }
                    l.waiters[token] = Waiter(id: id, continuation: continuation, timer: Task { [weak self] in
                        guard (try? await Task.sleep(for: .seconds(seconds))) != nil else { return }
                        self?.release(token)
                    })
                    return .none
                }
                if let answerNow { continuation.resume(returning: answerNow) }
            }
        } onCancel: {
            release(token)
        }
    }

    // MARK: kiosk side

    /// The messages posted since the last call, oldest first; also quiets `wakeFD`.
    public func takeMessages() -> [DeskMessage] {
        // Drain first: a message posted after this signals again, so none is left unseen.
        wake.drain()
        return ledger.withLock { l in
            defer { l.outbox.removeAll() }
            return l.outbox
        }
    }

    /// Ends the waiting capture `id`. Ignored when `id` is not the waiting capture (already final,
    /// or never started) or `state` is `.waiting`. A nil reason gets the usual one for the state.
    /// `heldPDF`: an accepted capture's signed PDF that is not in the outbox (`[signature]
    /// keep_signed_pdf = false`), served from here until the host acknowledges the capture or
    /// asks for the next signature (one at most: a document's size in memory).
    public func finish(id: String, state: CaptureState, reason: String?, files: CaptureFiles?, heldPDF: [UInt8]? = nil) {
        guard state.isFinal else { return }
        let now = Date()
        let ended: (CaptureStatus, [Waiter], Task<Void, Never>?)? = ledger.withLock { l in
            guard let pending = l.waiting, pending.status.id == id else { return nil }
            var status = pending.status
            status.state = state
            status.finished = Timestamp.string(now)
            status.reason = reason ?? pending.usualReason(for: state)
            status.files = files
            if state == .accepted, let heldPDF { l.held = (id, heldPDF) }
            l.waiting = nil
            l.history.append(status)
            if l.history.count > l.historyLimit { l.history.removeFirst(l.history.count - l.historyLimit) }
            // Whatever is still queued for it (a cancel or timeout that crossed this) is moot now.
            l.outbox.removeAll { $0.captureID == id }
            return (status, l.takeWaiters(of: id), pending.deadline)
        }
        guard let (status, waiters, deadline) = ended else { return }
        deadline?.cancel()
        archive?.ended(status)
        for waiter in waiters {
            waiter.timer.cancel()
            waiter.continuation.resume(returning: status)
        }
    }

    /// Returns once every outcome is written to the archive (the server is stopping).
    func settle() { archive?.settle() }

    /// `wait` calls in progress.
    var longPolls: Int { ledger.withLock { $0.waiters.count } }

    /// Answers every `wait` in progress now, with the status as it is (the server is stopping).
    func endWaits() {
        let ended: [(Waiter, CaptureStatus?)] = ledger.withLock { l in
            defer { l.waiters.removeAll() }
            return l.waiters.values.map { ($0, l.status($0.id)) }
        }
        for (waiter, status) in ended {
            waiter.timer.cancel()
            waiter.continuation.resume(returning: status)
        }
    }

    // MARK: inside

    /// Sleeps until the capture's deadline, then tells the kiosk (if it is still waiting).
    private func deadline(for id: String, after seconds: Double) -> Task<Void, Never> {
        Task { [weak self] in
            guard (try? await Task.sleep(for: .seconds(seconds))) != nil else { return }
            self?.postTimeout(id)
        }
    }

    private func postTimeout(_ id: String) {
        let posted = ledger.withLock { l in
            guard var pending = l.waiting, pending.status.id == id, !pending.timeoutPosted else { return false }
            pending.timeoutPosted = true
            l.waiting = pending
            l.outbox.append(.timeout(id: id))
            return true
        }
        if posted { wake.signal() }
    }

    /// A waiter's time is up, or its task was cancelled: it gets the status as it is now.
    private func release(_ token: UInt64) {
        let released: (Waiter, CaptureStatus?)? = ledger.withLock { l in
            guard let waiter = l.waiters.removeValue(forKey: token) else { return nil }
            return (waiter, l.status(waiter.id))
        }
        guard let (waiter, status) = released else { return }
        waiter.timer.cancel()
        waiter.continuation.resume(returning: status)
    }

    static func check(timeout: Double, field: String) throws(DeskError) {
        guard timeout.isFinite, CaptureLimits.timeout.contains(timeout) else {
            throw .badRequest("\(field) must be a number between \(formatSeconds(CaptureLimits.timeout.lowerBound)) and "
                              + "\(formatSeconds(CaptureLimits.timeout.upperBound)) seconds (got \(formatSeconds(timeout)))")
        }
    }

    static func check(prompt: String) throws(DeskError) {
        guard prompt.count <= CaptureLimits.promptLength else {
            throw .badRequest("prompt must be at most \(CaptureLimits.promptLength) characters (got \(prompt.count))")
        }
        // A line break is allowed (two lines on screen); other control characters are not.
        guard !prompt.unicodeScalars.contains(where: { $0.properties.generalCategory == .control && $0 != "\n" }) else {
            throw .badRequest("prompt must not contain control characters other than a line break")
        }
    }
}

/// What the desk's mutex guards.
private struct Ledger {
    /// The capture the kiosk has not finished yet (at most one).
    var waiting: Pending?
    /// Finished captures, oldest first, at most `historyLimit`.
    var history: [CaptureStatus] = []
    var historyLimit = CaptureLimits.history
    var outbox: [DeskMessage] = []
    var waiters: [UInt64: Waiter] = [:]
    var nextToken: UInt64 = 0
    /// The last accepted capture's signed PDF, when the outbox does not keep it.
    var held: (id: String, bytes: [UInt8])?

    func status(_ id: String) -> CaptureStatus? {
        if let waiting, waiting.status.id == id { return waiting.status }
        return history.last { $0.id == id }
    }

    mutating func takeWaiters(of id: String) -> [Waiter] {
        let tokens = waiters.filter { $0.value.id == id }.map(\.key)
        return tokens.compactMap { waiters.removeValue(forKey: $0) }
    }
}

private struct Pending {
    var status: CaptureStatus
    var deadline: Task<Void, Never>?
    var cancelPosted = false
    var timeoutPosted = false

    func usualReason(for state: CaptureState) -> String? {
        switch state {
        case .cancelled: cancelPosted ? CaptureReason.cancelledByHost : CaptureReason.cancelledOnScreen
        case .timedOut: status.timeout.map(CaptureReason.noSignature(within:))
        case .interrupted: CaptureReason.interrupted
        case .accepted, .waiting: nil
        }
    }
}

/// A `wait` in progress: resumed by `finish`, or by its timer.
private struct Waiter {
    var id: String
    var continuation: CheckedContinuation<CaptureStatus?, Never>
    var timer: Task<Void, Never>
}

/// Capture ids: UTC time to the second and 24 random bits, e.g. `20260314T101502Z-3fa91c`.
/// Sorted by time, and safe as a file name (letters, digits, '-').
enum CaptureID {
    static func make(at date: Date) -> String {
        let time = Date.ISO8601FormatStyle(dateSeparator: .omitted, dateTimeSeparator: .standard, timeSeparator: .omitted).format(date)
        let hex = String(UInt32.random(in: 0...0xff_ffff), radix: 16)
        return "\(time)-\(String(repeating: "0", count: 6 - hex.count))\(hex)"
    }
}

enum Timestamp {
    /// ISO 8601 in UTC with milliseconds: 2026-03-14T10:15:02.123Z.
    static func string(_ date: Date) -> String {
        Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(date)
    }
}
