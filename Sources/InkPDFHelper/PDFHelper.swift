// SPDX-License-Identifier: Apache-2.0
import CCage
import CCairo
import FoundationEssentials
import Glibc
import InkCore
import Logging
import InkStorage

/// The kiosk's side of a PDF helper: a process of its own (`inkkiosk pdf-helper`, in its
/// `Cage`) that opens and draws PDFs with poppler, so that a crafted PDF can crash or hang
/// the helper, never the kiosk. Started at the first request, started again after it died.
/// Requests are one at a time (a lock); each waits at most `stuckSeconds` (a write, per page),
/// after which the helper is killed and the request fails as `.stuck`.
/// Thread safety: `process`, `generation`, `unused`, `buffer` and `refusal` are used only under `lock`; `runningPID` and
/// `_waitingFor` under `waitingLock` (read while a request holds `lock`); the rest is set in init. A render holds
/// `renderLock` from its request until its caller has used the pixels: the page buffer is shared, and a second
/// render would draw into it meanwhile.
public final class PDFHelper: @unchecked Sendable {
    /// How to start the helper: the kiosk's own binary in helper mode.
    public struct Launch: Sendable, Equatable {
        public var executable: String
        public var memoryMB: Int
        public var cpuSeconds: Int
        /// false only where seccomp cannot be had and the rest of the cage must do (user-mode
        /// emulation, which refuses filters: the arm64 unit tests under qemu-aarch64).
        public var requireSeccomp = true
        /// The largest file it writes (MiB), the user it becomes when started as root, and whether it
        /// runs without Landlock as the kiosk's user (`Cage`).
        public var fileMB = 256
        public var user = HelperUser.nobody
        public var withoutLandlock = WithoutLandlock.refuse
        /// Tests only: the helper acts as if the kernel had no Landlock.
        public var pretendNoLandlock = false
        public init(executable: String = "/proc/self/exe", memoryMB: Int = 512, cpuSeconds: Int = 600) {
            self.executable = executable; self.memoryMB = memoryMB; self.cpuSeconds = cpuSeconds
        }
        var arguments: [String] {
            ["inkkiosk", "pdf-helper", "--memory-mb", "\(memoryMB)", "--cpu-seconds", "\(cpuSeconds)", "--file-mb", "\(fileMB)",
             "--uid", "\(user.uid)", "--gid", "\(user.gid)", "--without-landlock", withoutLandlock.rawValue]
                + (requireSeccomp ? [] : ["--seccomp-if-available"]) + (pretendNoLandlock ? ["--test-without-landlock"] : [])
        }
    }

    /// Why a request got no answer.
    public enum Failure: Error, CustomStringConvertible, Equatable {
        /// The helper died (poppler crashed on the file: SIGSEGV, SIGABRT, SIGSYS from the cage, …).
        case crashed(signal: Int32?, status: Int32?)
        /// No answer in time: the helper was killed.
        case stuck(seconds: Double)
        /// The helper could not be started, or said something that is not an answer.
        case unavailable(String)
        /// poppler or the helper refused (the file's fault, or a request it could not do).
        case refused(PDFProblem, String)

        public var description: String {
            switch self {
            case .crashed(let signal?, _): return "the PDF reader crashed (\(Self.signalName(signal)))"
            case .crashed(_, let status): return "the PDF reader ended (exit status \(status ?? -1))"
            case .stuck(let s): return "the PDF reader took more than \(String(cFormat: "%.0f", s)) s and was stopped"
            case .unavailable(let why): return "the PDF reader is unavailable: \(why)"
            case .refused(_, let detail): return detail
            }
        }

        static func signalName(_ s: Int32) -> String {
            let names: [Int32: String] = [SIGSEGV: "SIGSEGV", SIGABRT: "SIGABRT", SIGBUS: "SIGBUS", SIGILL: "SIGILL", SIGFPE: "SIGFPE",
                                          SIGKILL: "SIGKILL", SIGSYS: "SIGSYS, stopped by its cage", SIGXCPU: "SIGXCPU, out of CPU time",
                                          SIGTERM: "SIGTERM"]
            return names[s] ?? "signal \(s)"
        }
    }

    public let launch: Launch
    public let stuckSeconds: Double
    /// One line per helper started (its pid and cage) and per helper lost.
    private let log: Logger
    private let lock = Lock()
    /// One render at a time, from its request until its caller has used the page buffer's pixels.
    private let renderLock = Lock()
    private var process: (pid: pid_t, channel: HelperChannel)?
    /// Goes up each time a helper is started: documents opened in an earlier one are gone.
    private var generation = 0
    /// Documents no longer used, closed in the helper before the next request (never waited for where they are dropped).
    private var unused: [Int] = []
    /// The page buffer shared with the helper (grown when a bigger page is drawn).
    private var buffer: SharedMemory?

    public init(launch: Launch = Launch(), stuckSeconds: Double = 20, log: Logger = Logger(label: "inkkiosk.pdf-helper")) {
        self.launch = launch; self.stuckSeconds = stuckSeconds; self.log = log
    }

    deinit { lock.withLock { _ = stop(signal: SIGKILL) } }

    /// The helper's process id, while one runs (readable while a request waits).
    public var pid: pid_t? { waitingLock.withLock { runningPID } }
    private var runningPID: pid_t?

    /// The request sent and not answered yet, if one is (for tests and the log).
    public var waitingFor: HelperRequest.Op? { waitingLock.withLock { _waitingFor } }
    private var _waitingFor: HelperRequest.Op?
    private let waitingLock = Lock()

    /// Opens the PDF at `fd` (which stays the caller's) in the helper: its page count and title.
    /// `asSigned`: read as a signed copy of it reads (`HelperRequest.asSigned`), for a document to sign.
    public func open(_ fd: Int32, maxPages: Int, asSigned: Bool = false) throws -> HelperDocument {
        let own = fcntl(fd, F_DUPFD_CLOEXEC, 0)
        guard own >= 0 else { throw Failure.unavailable("cannot copy the file's descriptor: \(Errno.describe(errno))") }
        let document = HelperDocument(helper: self, fd: own, maxPages: maxPages, asSigned: asSigned)
        try lock.withLock {
            let (pid, channel) = try running()
            try ensureOpen(document, pid: pid, channel: channel)
        }
        return document
    }

    /// Sends `request` about `document` (opened again first if the helper was started anew
    /// since), with `fds` (which stay the caller's), and returns the helper's answer; the
    /// helper is started first if none runs. `patience`: how many `stuckSeconds` it may take.
    @discardableResult
    public func ask(_ request: HelperRequest, on document: HelperDocument? = nil, fds: [Int32] = [], patience: Double = 1) throws -> HelperReply {
        try lock.withLock {
            let (pid, channel) = try running()
            var request = request
            if let document {
                try ensureOpen(document, pid: pid, channel: channel)
                request.document = document.opened?.id
            }
            return try exchange(request, fds: fds, patience: patience, pid: pid, channel: channel)
        }
    }

    /// `document` open in the helper running now.
    private func ensureOpen(_ document: HelperDocument, pid: pid_t, channel: HelperChannel) throws {
        guard document.opened?.generation != generation else { return }
        var open = HelperRequest(.open)
        open.maxPages = document.maxPages
        open.asSigned = document.asSigned ? true : nil
        let reply = try exchange(open, fds: [document.fd], patience: 1, pid: pid, channel: channel)
        guard let id = reply.document, let pages = reply.pages, pages > 0 else {
            throw Failure.refused(.damaged, "the PDF reader gave no page count")
        }
        document.opened = (id, generation)
        document.read(pages: pages, title: reply.title)
    }

    /// One request and its answer (after the closes owed), the helper's death or silence said as a `Failure`.
    private func exchange(_ request: HelperRequest, fds: [Int32], patience: Double, pid: pid_t, channel: HelperChannel) throws -> HelperReply {
        do {
            for document in unused {
                var close = HelperRequest(.close)
                close.document = document
                try channel.send(HelperWire.encode(close))
                _ = try channel.receiveMessage(deadline: monotonicNow() + stuckSeconds)
            }
            unused.removeAll()
            try channel.send(HelperWire.encode(request), fds: fds)
            waitingLock.withLock { _waitingFor = request.op }
            defer { waitingLock.withLock { _waitingFor = nil } }
            let answer = try channel.receiveMessage(deadline: monotonicNow() + stuckSeconds * patience)
            guard let reply = try HelperWire.decode(HelperReply.self, answer).checked(maxPages: request.maxPages ?? 1000) else {
                throw HelperChannel.Failure.protocolError("an answer out of bounds")
            }
            if let problem = reply.problem { throw Failure.refused(problem, reply.detail ?? problem.rawValue) }
            return reply
        } catch HelperChannel.Failure.timedOut {
            stop(signal: SIGKILL)
            log.warning("pdf helper \(pid) killed: no answer to \(request.op.rawValue) in \(String(cFormat: "%.1f", stuckSeconds * patience)) s")
            throw Failure.stuck(seconds: stuckSeconds * patience)
        } catch HelperChannel.Failure.closed {
            // Gone already (its status says how) or closing its end on purpose: killed either way.
            let ended = stop(signal: SIGKILL)
            log.warning("pdf helper \(pid) died during \(request.op.rawValue): \(ended)")
            throw ended
        } catch let f as Failure {
            throw f
        } catch {
            // A helper that says what is not an answer is not trusted further.
            stop(signal: SIGKILL)
            log.warning("pdf helper \(pid) stopped: \(error)")
            throw Failure.unavailable("\(error)")
        }
    }

    /// Draws `page` of `document` through `matrix` (page points → pixels) into a `width`×`height`
    /// ARGB32 image, then hands its pixels to `use` (valid only inside it).
    public func render(_ document: HelperDocument, page: Int, matrix: cairo_matrix_t, width: Int, height: Int, printing: Bool,
                       _ use: (OpaquePointer) -> Void) throws {
        let stride = Int(cairo_format_stride_for_width(CAIRO_FORMAT_ARGB32, Int32(width)))
        try renderLock.withLock {
            let memory: SharedMemory = try lock.withLock {
                if let b = buffer, b.bytes >= stride * height { return b }
                let b = try SharedMemory(bytes: stride * height)
                buffer = b
                return b
            }
            var request = HelperRequest(.render)
            request.page = page; request.width = width; request.height = height
            request.printing = printing
            request.matrix = [matrix.xx, matrix.yx, matrix.xy, matrix.yy, matrix.x0, matrix.y0]
            try ask(request, on: document, fds: [memory.fd])
            guard let image = cairo_image_surface_create_for_data(memory.base.assumingMemoryBound(to: UInt8.self), CAIRO_FORMAT_ARGB32,
                                                                  Int32(width), Int32(height), Int32(stride)) else { return }
            defer { cairo_surface_destroy(image) }
            use(image)
        }
    }

    /// `document`, opened in helper `generation`, is no longer needed (closed with the next request).
    public func forget(document: Int, generation: Int) {
        lock.withLock { if generation == self.generation && process != nil { unused.append(document) } }
    }

    /// The helper's peak resident memory (KiB), asked of it.
    public func peakKiB() throws -> Int? { try ask(HelperRequest(.memory)).peakKiB }

    // MARK: the process

    /// Why helpers are not started any more (no Landlock, and the config does not let them run as
    /// the kiosk's user: a kernel does not gain Landlock while it runs), said to every request.
    private var refusal: String?

    /// The helper running now, started if none is.
    private func running() throws -> (pid_t, HelperChannel) {
        if let refusal { throw Failure.unavailable(refusal) }
        if let p = process {
            // Ended between requests (killed from outside, out of CPU time): not the next file's fault.
            var status: Int32 = 0
            let ended = waitpid(p.pid, &status, WNOHANG)
            // 0: still running. ECHILD: already waited for elsewhere (it is gone all the same).
            guard ended == p.pid || (ended < 0 && errno == ECHILD) else { return (p.pid, p.channel) }
            process = nil
            waitingLock.withLock { runningPID = nil }
            p.channel.close()
            log.notice("pdf helper \(p.pid) ended between requests (wait status \(status)); a new one is started")
        }
        let (mine, theirs) = try HelperChannel.pair()
        defer { theirs.close() }
        var pid: pid_t = 0
        let argv = launch.arguments.map { strdup($0) } + [nil]
        defer { for a in argv { free(a) } }
        // Its environment: none of the kiosk's (a token's path, a key's) but where fonts are looked up.
        // (and, in an emulated run, where the emulator finds the target's libraries).
        let names: [String] = ["LANG", "LC_ALL", "FONTCONFIG_FILE", "FONTCONFIG_PATH", "LD_LIBRARY_PATH", "QEMU_LD_PREFIX"]
        // The Swift runtime's backtracer is off: it would start a process on a crash, which the cage forbids.
        let kept = names.compactMap { k in getenv(k).map { "\(k)=\(String(cString: $0))" } } + ["SWIFT_BACKTRACE=enable=no"]
        let envp = kept.map { strdup($0) } + [nil]
        defer { for e in envp { free(e) } }
        let rc = ik_spawn_helper(launch.executable, argv, envp, theirs.fd, &pid)
        guard rc == 0 else {
            mine.close()
            throw Failure.unavailable("cannot start \(launch.executable) pdf-helper: \(Errno.describe(rc))")
        }
        process = (pid, mine)
        waitingLock.withLock { runningPID = pid }
        generation += 1
        unused.removeAll()
        // Its first message: how it is caged, or why it cannot be.
        do {
            let hello = try HelperWire.decode(HelperReply.self, mine.receiveMessage(deadline: monotonicNow() + max(stuckSeconds, 5)))
            if let problem = hello.problem {
                stop(signal: SIGKILL)
                let why = HelperReply.failed(problem, hello.detail ?? problem.rawValue).checked(maxPages: 0)?.detail ?? problem.rawValue
                log.warning("pdf helper \(pid) \(problem == .uncaged ? "refused" : "did not start"): \(why)")
                if problem == .uncaged { refusal = why }
                throw Failure.unavailable(why)
            }
            log.info("pdf helper \(pid) started: \(hello.detail ?? "caged")")
        } catch let f as Failure {
            throw f
        } catch HelperChannel.Failure.closed {
            throw Failure.unavailable("it ended as it started: \(stop(signal: SIGKILL))")
        } catch {
            stop(signal: SIGKILL)
            throw Failure.unavailable("it did not start: \(error)")
        }
        return (pid, mine)
    }

    /// Ends the helper (with `signal`, or waits for it to end by itself) and says how it ended.
    @discardableResult
    private func stop(signal: Int32?) -> Failure {
        guard let p = process else { return .crashed(signal: nil, status: nil) }
        process = nil
        waitingLock.withLock { runningPID = nil }
        p.channel.close()
        if let signal { kill(p.pid, signal) }
        var status: Int32 = 0
        while waitpid(p.pid, &status, 0) < 0 && errno == EINTR {}
        // WIFSIGNALED / WTERMSIG / WEXITSTATUS, written out (macros).
        let termSignal = status & 0x7f
        if termSignal != 0 && termSignal != 0x7f { return .crashed(signal: termSignal, status: nil) }
        return .crashed(signal: nil, status: (status >> 8) & 0xff)
    }
}

/// A PDF open in the helper, or to be opened again in a new one after the last died: the
/// kiosk keeps a copy of the checked file's descriptor for that.
/// `opened` is written and read only under its helper's `lock` (`ensureOpen`). `pages` and `title` are written
/// there too (again when a new helper opens the file after the last died) and read by any thread: under
/// `fields`. The rest is set in init.
public final class HelperDocument: @unchecked Sendable {
    let fd: Int32
    let maxPages: Int
    let asSigned: Bool
    /// Its number in the helper, and which helper (generation) that is. Changed under the helper's lock.
    var opened: (id: Int, generation: Int)?
    private let fields = Lock()
    private var readPages = 0, readTitle: String?
    public var pages: Int { fields.withLock { readPages } }
    public var title: String? { fields.withLock { readTitle } }

    func read(pages: Int, title: String?) { fields.withLock { readPages = pages; readTitle = title } }
    private weak var helper: PDFHelper?

    init(helper: PDFHelper, fd: Int32, maxPages: Int, asSigned: Bool) {
        self.helper = helper; self.fd = fd; self.maxPages = maxPages; self.asSigned = asSigned
    }

    deinit {
        if let opened { helper?.forget(document: opened.id, generation: opened.generation) }
        close(fd)
    }
}
