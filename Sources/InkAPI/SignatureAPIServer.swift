import Dispatch
import FlyingFox
import FlyingSocks
import Foundation
import Glibc
import Synchronization
import InkLoop

/// The local signature API (`API.md`): an HTTP server on Swift concurrency tasks in front of a
/// `SignatureDesk`. Start it once, stop it once. Between the two it keeps listening: when
/// FlyingFox's accept loop fails (it ends the server on any accept error, EMFILE included),
/// the server listens again after a short pause; only an error that waiting cannot mend
/// stops it for good, and then `onGiveUp` says so (the kiosk exits, and systemd restarts it).
public final class SignatureAPIServer: Sendable {
    public let desk: SignatureDesk
    public let address: APIAddress
    private let token: BearerToken?
    private let onGiveUp: @Sendable (String) -> Void
    private let firstRetryPause: Duration
    private let phase = Mutex(Phase.idle)
    /// The HTTPServer listening now; a new one after each failure.
    private let current = Mutex<HTTPServer?>(nil)
    private let givenUp = Mutex<String?>(nil)

    private enum Phase {
        case idle, starting
        case listening(supervisor: Task<Void, Never>)
        case stopped
    }

    /// `token`: every request must show it; required for an address other machines can reach.
    /// `onGiveUp` runs (on a task) if the server stops for good, with why. `firstRetryPause`:
    /// tests lengthen it to act between a failure and the next listen.
    public init(desk: SignatureDesk, address: APIAddress, token: BearerToken? = nil, firstRetryPause: Duration = .milliseconds(10),
                onGiveUp: @escaping @Sendable (String) -> Void = { _ in }) {
        self.desk = desk
        self.address = address
        self.token = token
        self.firstRetryPause = firstRetryPause
        self.onGiveUp = onGiveUp
    }

    /// Why the server stopped for good; nil while it serves (or was stopped by `stop`).
    public var failure: String? { givenUp.withLock { $0 } }

    /// Binds and returns once the server accepts connections; throws when it cannot listen
    /// (address in use, no such directory, no permission). A unix socket left by an earlier
    /// run is replaced; the new one is made mode 0660 (the kiosk's user and group may connect).
    public func start() async throws {
        // Config and command line check this with a better place to point at; this is the last guard.
        guard address.isLocal || token != nil else {
            throw KioskError("signature API: \(address) is reachable from other machines and needs a bearer token")
        }
        try phase.withLock { phase in
            guard case .idle = phase else { throw KioskError("the signature API server was already started") }
            phase = .starting
        }
        do {
            let (server, run) = try await listenOnce(on: address)
            // Listening again must use the same port, also when the kernel picked it.
            let bound = await Self.apiAddress(server.listeningAddress) ?? address
            current.withLock { $0 = server }
            let supervisor = Task { await keepListening(run, on: bound) }
            phase.withLock { $0 = .listening(supervisor: supervisor) }
        } catch {
            phase.withLock { $0 = .stopped }
            throw KioskError("signature API: cannot listen on \(address): \(error)")
        }
    }

    /// Answers long polls at once (with the status as it is), closes the listening socket, gives
    /// the answers in flight a quarter of a second, and removes the unix socket.
    public func stop() async {
        let supervisor: Task<Void, Never>? = phase.withLock { phase in
            defer { phase = .stopped }
            if case .listening(let supervisor) = phase { return supervisor }
            return nil
        }
        guard let supervisor else { return }
        desk.endWaits()
        // FlyingFox's stop always lasts its whole timeout (the closed socket's accept never
        // wakes), so it is short; what is still running then is cancelled.
        if let server = current.withLock({ $0 }) { await server.stop(timeout: 0.25) }
        supervisor.cancel()
        await supervisor.value
        if case .unix(let path) = address { unlink(path) }
    }

    /// Where it listens; with port 0, the port the kernel picked. Nil before `start`.
    public func listeningAddress() async -> APIAddress? {
        let server: HTTPServer? = phase.withLock { if case .listening = $0 { true } else { false } } ? current.withLock { $0 } : nil
        guard let server else { return nil }
        return await Self.apiAddress(server.listeningAddress)
    }

    // MARK: from a synchronous thread

    /// `start()` for a plain thread (the kiosk's main thread): blocks until listening or failed.
    /// Never call it from a task (it would hold a thread the server needs).
    @available(*, noasync, message: "use start() from async code")
    public func startBlocking() throws {
        let outcome = BlockingOutcome()
        Task { [self] in
            do { try await start(); outcome.set(.success(())) } catch { outcome.set(.failure(error)) }
        }
        try outcome.wait()
    }

    /// `stop()` for a plain thread: blocks until the server has stopped (about a second at most).
    @available(*, noasync, message: "use stop() from async code")
    public func stopBlocking() {
        let outcome = BlockingOutcome()
        Task { [self] in
            await stop()
            outcome.set(.success(()))
        }
        try? outcome.wait()
    }

    // MARK: inside

    private var isStopped: Bool { phase.withLock { if case .stopped = $0 { true } else { false } } }

    private static func apiAddress(_ address: Socket.Address?) -> APIAddress? {
        switch address {
        case .ip4(let host, let port): .tcp(host: host, port: port)
        case .ip6(let host, let port): .tcp(host: host, port: port)
        case .unix(let path): .unix(path: path)
        case nil: nil
        }
    }

    private static func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

    private static func warn(_ message: String) {
        FileHandle.standardError.write(Data("inkkiosk: \(message)\n".utf8))
    }

    /// A new HTTPServer listening on `address`, and the task it runs in.
    private func listenOnce(on address: APIAddress) async throws -> (HTTPServer, Task<Void, any Error>) {
        // A request may be held for a long poll; FlyingFox's per-request limit must not cut it.
        let config = HTTPServer.Configuration(address: try Self.socketAddress(address),
                                              timeout: CaptureLimits.longestWait + 30,
                                              logger: .disabled)   // its messages repeat the errors thrown here
        let server = HTTPServer(config: config, handler: SignatureRoutes(desk: desk, token: token))
        if case .unix(let path) = address { try Self.removeStaleSocket(path) }
        let task = try await listen(server)
        if case .unix(let path) = address, chmod(path, 0o660) != 0 {
            Self.warn("warning: signature API: cannot make \(path) mode 0660: \(String(cString: strerror(errno)))")
        }
        return (server, task)
    }

    /// Waits for the running server to end; unless `stop` ended it, listens again (see
    /// `ListenerRecovery`) or gives up.
    private func keepListening(_ first: Task<Void, any Error>, on address: APIAddress) async {
        var recovery = ListenerRecovery(firstPause: firstRetryPause)
        recovery.listening(at: Self.now())
        var running = first
        while true {
            let run = running
            let ended = await withTaskCancellationHandler { await run.result } onCancel: { run.cancel() }
            if isStopped || Task.isCancelled { return }
            var failure: ListenerFailure
            switch ended {
            case .failure(let error): failure = ListenerFailure(stage: .accept, error)
            case .success: failure = ListenerFailure(stage: .accept, errno: nil, text: "the server stopped accepting")
            }
            relisten: while true {
                switch recovery.failed(failure, at: Self.now()) {
                case .giveUp(let why):
                    let message = "signature API on \(address) stopped for good: \(why)"
                    givenUp.withLock { $0 = message }
                    Self.warn("error: \(message)")
                    onGiveUp(message)
                    return
                case .listenAgain(let pause, let line):
                    if let line { Self.warn("warning: signature API on \(address): \(line)") }
                    do { try await Task.sleep(for: pause) } catch { return }
                    if isStopped { return }
                    do {
                        let (server, task) = try await listenOnce(on: address)
                        current.withLock { $0 = server }
                        if isStopped {   // `stop` came while this one was starting: it stopped the old one only
                            await server.stop(timeout: 0)
                            task.cancel()
                            return
                        }
                        recovery.listening(at: Self.now())
                        running = task
                        break relisten
                    } catch {
                        failure = ListenerFailure(stage: .listen, error)
                    }
                }
            }
        }
    }

    /// Runs the server in its own task; returns it once listening, or throws why it never did.
    private func listen(_ server: HTTPServer) async throws -> Task<Void, any Error> {
        let first = FirstOutcome()
        let run = Task {
            do {
                try await server.run()
                first.settle(.failure(KioskError("the server stopped before it listened")))
            } catch {
                first.settle(.failure(error))
                throw error
            }
        }
        let ready = Task {
            do { try await server.waitUntilListening(timeout: 10); first.settle(.success(())) } catch { first.settle(.failure(error)) }
        }
        do {
            try await first.value()
        } catch {
            ready.cancel()
            run.cancel()
            _ = await run.result
            throw error
        }
        return run
    }

    private static func socketAddress(_ address: APIAddress) throws -> any SocketAddress {
        switch address {
        case .unix(let path):
            guard path.utf8.count < 108 else { throw KioskError("the socket path must be under 108 bytes") }
            return sockaddr_un.unix(path: path)
        case .tcp(let host, let port):
            if APIAddress.isIPv6(host) { return try sockaddr_in6.inet6(ip6: host, port: port) }
            guard APIAddress.isIPv4(host) else { throw KioskError("'\(host)' is not an IP address") }
            return try sockaddr_in.inet(ip4: host, port: port)
        }
    }

    /// A socket file from an earlier run would make bind fail; anything else at that path is not ours to remove.
    private static func removeStaleSocket(_ path: String) throws {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        guard info.st_mode & S_IFMT == S_IFSOCK else { throw KioskError("\(path) exists and is not a socket") }
        guard unlink(path) == 0 else { throw KioskError.errno("cannot remove the old socket \(path)") }
    }
}

/// The first of "listening" and "failed" wins; the other is ignored.
private final class FirstOutcome: Sendable {
    private let state = Mutex<(result: Result<Void, any Error>?, waiter: CheckedContinuation<Void, any Error>?)>((nil, nil))

    func settle(_ result: Result<Void, any Error>) {
        let waiter: CheckedContinuation<Void, any Error>? = state.withLock { s in
            guard s.result == nil else { return nil }
            s.result = result
            defer { s.waiter = nil }
            return s.waiter
        }
        waiter?.resume(with: result)
    }

    func value() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let settled: Result<Void, any Error>? = state.withLock { s in
                if s.result == nil { s.waiter = continuation }
                return s.result
            }
            if let settled { continuation.resume(with: settled) }
        }
    }
}

/// A result handed from a task to a blocked thread.
private final class BlockingOutcome: Sendable {
    private let done = DispatchSemaphore(value: 0)
    private let result = Mutex<Result<Void, any Error>?>(nil)

    func set(_ value: Result<Void, any Error>) {
        result.withLock { $0 = value }
        done.signal()
    }

    func wait() throws {
        done.wait()
        try result.withLock { $0 }?.get()
    }
}
