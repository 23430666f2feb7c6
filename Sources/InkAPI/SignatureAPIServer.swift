import Dispatch
import FlyingFox
import FlyingSocks
import Foundation
import Glibc
import Synchronization
import InkLoop

/// The local signature API (`API.md`): an HTTP server on Swift concurrency tasks in front of a
/// `SignatureDesk`. Start it once, stop it once.
public final class SignatureAPIServer: Sendable {
    public let desk: SignatureDesk
    public let address: APIAddress
    private let phase = Mutex(Phase.idle)

    private enum Phase {
        case idle, starting
        case listening(HTTPServer, Task<Void, any Error>)
        case stopped
    }

    public init(desk: SignatureDesk, address: APIAddress) {
        self.desk = desk
        self.address = address
    }

    /// Binds and returns once the server accepts connections; throws when it cannot listen
    /// (address in use, no such directory, no permission). A unix socket left by an earlier
    /// run is replaced; the new one is made mode 0660 (the kiosk's user and group may connect).
    public func start() async throws {
        try phase.withLock { phase in
            guard case .idle = phase else { throw KioskError("the signature API server was already started") }
            phase = .starting
        }
        do {
            // A request may be held for a long poll; FlyingFox's per-request limit must not cut it.
            let config = HTTPServer.Configuration(address: try Self.socketAddress(address),
                                                  timeout: CaptureLimits.longestWait + 30,
                                                  logger: .disabled)   // its messages repeat the errors thrown here
            let server = HTTPServer(config: config, handler: SignatureRoutes(desk: desk))
            if case .unix(let path) = address { try Self.removeStaleSocket(path) }
            let task = try await listen(server)
            if case .unix(let path) = address, chmod(path, 0o660) != 0 {
                FileHandle.standardError.write(Data("inkkiosk: warning: signature API: cannot make \(path) mode 0660: \(String(cString: strerror(errno)))\n".utf8))
            }
            phase.withLock { $0 = .listening(server, task) }
        } catch {
            phase.withLock { $0 = .stopped }
            throw KioskError("signature API: cannot listen on \(address): \(error)")
        }
    }

    /// Answers long polls at once (with the status as it is), closes the listening socket, gives
    /// the answers in flight a quarter of a second, and removes the unix socket.
    public func stop() async {
        let running: (HTTPServer, Task<Void, any Error>)? = phase.withLock { phase in
            defer { phase = .stopped }
            if case .listening(let server, let task) = phase { return (server, task) }
            return nil
        }
        guard let (server, task) = running else { return }
        desk.endWaits()
        // FlyingFox's stop always lasts its whole timeout (the closed socket's accept never
        // wakes), so it is short; what is still running then is cancelled.
        await server.stop(timeout: 0.25)
        task.cancel()
        _ = await task.result
        if case .unix(let path) = address { unlink(path) }
    }

    /// Where it listens; with port 0, the port the kernel picked. Nil before `start`.
    public func listeningAddress() async -> APIAddress? {
        let server: HTTPServer? = phase.withLock { if case .listening(let server, _) = $0 { server } else { nil } }
        guard let server else { return nil }
        switch await server.listeningAddress {
        case .ip4(let host, let port): return .tcp(host: host, port: port)
        case .ip6(let host, let port): return .tcp(host: host, port: port)
        case .unix(let path): return .unix(path: path)
        case nil: return nil
        }
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

    /// Runs the server in its own task; returns it once listening, or throws why it never did.
    private func listen(_ server: HTTPServer) async throws -> Task<Void, any Error> {
        let first = FirstOutcome()
        let run = Task {
            do {
                try await server.run()
                first.settle(.failure(KioskError("the server stopped before it listened")))
            } catch {
                first.settle(.failure(error))
                if first.wasListening, !isStopped {
                    FileHandle.standardError.write(Data("inkkiosk: error: signature API: the server stopped: \(error)\n".utf8))
                }
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

    var wasListening: Bool { state.withLock { if case .success = $0.result { true } else { false } } }

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
