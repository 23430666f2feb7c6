// SPDX-License-Identifier: Apache-2.0
import Dispatch
import FoundationEssentials
import Glibc
import InkCore
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization
import InkLoop

/// The local signature API (docs/API.md): an HTTP/1.1 server on one event-loop
/// thread of its own, in front of a `SignatureDesk`. Start it once, stop it once.
///
/// Every client's cost is bounded (`APILimits`): connections, head and body sizes, and how long a
/// request may take to arrive or a kept-alive connection may idle. An accept that fails (EMFILE
/// when the process is out of descriptors…) pauses accepting and tries again; a listening socket
/// that closes under the server is opened again. Only a listen that waiting cannot mend stops it
/// for good, and then `onGiveUp` says so: the kiosk exits and systemd restarts it.
public final class SignatureAPIServer: Sendable {
    public let desk: SignatureDesk
    public let address: APIAddress
    public let limits: APILimits
    private let token: BearerToken?
    /// Host, origin, token and content type of each request (docs/API.md, "Who may ask").
    private let requestAccess: RequestAccess
    private let log: Logger
    private let onGiveUp: @Sendable (String) -> Void
    private let firstRetryPause: Duration
    private let gate: ConnectionGate
    private let waits: WaitCount
    private let phase = Mutex(Phase.idle)
    /// The listening channel now; a new one after the old one closed under the server.
    private let listener = Mutex<(any Channel)?>(nil)
    private let recovery: Mutex<ListenerRecovery>
    private let givenUp = Mutex<String?>(nil)
    /// Where it listens, for the log: with port 0, the port the kernel picked.
    private let bound: Mutex<APIAddress>
    /// The host's PDFs (`/documents`); nil when no directory was given.
    private let documents: DocumentStore?
    /// `[signature] min_review` and `document_lock`, applied to every request on a document.
    private let documentPolicy: DocumentPolicy
    /// The disk image's slot and version for `/health`; nil: not booted from the image.
    private let image: BootedImage?

    private enum Phase {
        case idle, starting
        case listening(group: MultiThreadedEventLoopGroup, supervisor: Task<Void, Never>)
        case stopped
    }

    /// `token`: every request must show it; required for an address other machines can reach
    /// (the kiosk also requires one on TCP unless `[api] token = "none"`: `Kiosk`). `access`: the
    /// hosts, origins and unix-socket peers allowed. `log` gets what was refused and from where
    /// (last: a trailing closure is `onGiveUp`). `onGiveUp` runs (on a task) if the server stops for good, with why. `firstRetryPause`:
    /// tests lengthen it to act between a failure and the next listen. `documentsDirectory`:
    /// where uploaded PDFs are kept (`[api] documents_dir`); nil: no `/documents`. `documentPolicy`:
    /// what the kiosk requires of their signing (`[signature] min_review`, `document_lock`). `image`: the disk image
    /// booted (slot, version), for `/health`; nil: not booted from the image.
    public init(desk: SignatureDesk, address: APIAddress, limits: APILimits = APILimits(), token: BearerToken? = nil,
                access: APIAccess = APIAccess(), documentsDirectory: String? = nil, documentPolicy: DocumentPolicy = DocumentPolicy(),
                image: BootedImage? = nil, firstRetryPause: Duration = .milliseconds(10),
                onGiveUp: @escaping @Sendable (String) -> Void = { _ in },
                log: Logger = Logger(label: "inkkiosk.api")) {
        self.desk = desk
        self.address = address
        self.limits = limits
        self.token = token
        self.log = log
        requestAccess = RequestAccess(access: access, token: token, listening: address, limits: limits, log: log)
        self.firstRetryPause = firstRetryPause
        self.onGiveUp = onGiveUp
        self.documentPolicy = documentPolicy
        self.image = image
        gate = ConnectionGate(capacity: limits.maxConnections, perClient: limits.maxConnectionsPerClient)
        waits = WaitCount(limit: limits.maxWaits)
        recovery = Mutex(ListenerRecovery(firstPause: firstRetryPause))
        bound = Mutex(address)
        documents = documentsDirectory.map { directory in
            DocumentStore(directory: directory, limits: limits, inUse: { [weak desk] in desk?.documentInUse() }, log: log)
        }
    }

    /// Why the server stopped for good; nil while it serves (or was stopped by `stop`).
    public var failure: String? { givenUp.withLock { $0 } }

    /// Connections open now, and those refused for being over `maxConnections` since the start.
    public var connections: (open: Int, refused: Int) { (gate.count, gate.refused) }
    /// Connections refused for being over `maxConnectionsPerClient` since the start.
    public var refusedPerClient: Int { gate.refusedPerClient }
    /// Connections that had not shown the token, closed to make room for a newcomer, since the start.
    public var evicted: Int { gate.evicted }
    /// Requests refused by status code (400, 401, 403, 415, 421, 429) since the start.
    public var refusals: [Int: Int] { requestAccess.refusals }

    /// Binds and returns once the server accepts connections; throws when it cannot listen
    /// (address in use, no such directory, no permission). A unix socket left by an earlier
    /// run is replaced; the new one is made mode 0660 (the kiosk's user and group may connect).
    public func start() async throws {
        // Config and command line check this with a better place to point at; this is the last guard.
        guard address.isLocal || token != nil else {
            throw APISetupError.reachableWithoutToken(address: address)
        }
        try phase.withLock { phase in
            guard case .idle = phase else { throw APISetupError.alreadyStarted }
            phase = .starting
        }
        do { try documents?.open() } catch {
            phase.withLock { $0 = .stopped }
            throw APISetupError.documentsUnavailable(cause: error)
        }
        // One thread: the API's work is small. It runs at background priority, as the journal's
        // writers do: under a flood of clients the ink's thread gets the CPU first, the API what
        // is left (measured in the VM: the better of the two for the ink and for the API).
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        group.next().execute { runInBackgroundPriority() }
        do {
            let channel = try await bind(address, on: group)
            // Listening again must use the same port, also when the kernel picked it.
            let address = Self.apiAddress(channel.localAddress) ?? address
            bound.withLock { $0 = address }
            listener.withLock { $0 = channel }
            let supervisor = Task { await keepListening(on: address, group: group) }
            phase.withLock { $0 = .listening(group: group, supervisor: supervisor) }
        } catch {
            phase.withLock { $0 = .stopped }
            try? await group.shutdownGracefully()
            throw APISetupError.cannotListen(address: address, cause: error)
        }
    }

    /// Answers long polls at once (with the status as it is), stops listening, gives the answers
    /// in flight a quarter of a second, closes what is still open, and removes the unix socket.
    public func stop() async {
        let running: (MultiThreadedEventLoopGroup, Task<Void, Never>)? = phase.withLock { phase in
            defer { phase = .stopped }
            if case .listening(let group, let supervisor) = phase { return (group, supervisor) }
            return nil
        }
        guard let (group, supervisor) = running else { return }
        desk.endWaits()
        try? await listener.withLock({ $0 })?.close()
        supervisor.cancel()
        await supervisor.value
        for _ in 0..<25 where gate.count > 0 { try? await Task.sleep(for: .milliseconds(10)) }
        gate.closeAll()
        try? await group.shutdownGracefully()
        if case .unix(let path) = address { unlink(path) }
        desk.settle()
    }

    /// Where it listens; with port 0, the port the kernel picked. Nil before `start`.
    public func listeningAddress() async -> APIAddress? {
        let listening = phase.withLock { if case .listening = $0 { true } else { false } }
        guard listening, let channel = listener.withLock({ $0 }) else { return nil }
        return Self.apiAddress(channel.localAddress)
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

    private static func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }


    /// An error as the log says it: NIO's `IOError` as its errno alone (its own text names NIO's internal call).
    static func describe(_ error: any Error) -> String {
        if let io = error as? IOError { return Errno.describe(io.errnoCode) }
        return "\(error)"
    }

    private static func apiAddress(_ address: SocketAddress?) -> APIAddress? {
        switch address {
        case .v4(let ip)?: .tcp(host: ip.host, port: UInt16(address?.port ?? 0))
        case .v6(let ip)?: .tcp(host: ip.host, port: UInt16(address?.port ?? 0))
        case .unixDomainSocket?: address?.pathname.map { .unix(path: $0) }
        case nil: nil
        }
    }

    /// A listening channel on `address` whose connections each get the guard, the HTTP codec
    /// and the routes (perhaps in the place of one that had not shown the token), or one 503
    /// when every slot is held by one that has.
    private func bind(_ address: APIAddress, on group: MultiThreadedEventLoopGroup) async throws -> any Channel {
        let limits = self.limits
        let gate = self.gate
        let requestAccess = self.requestAccess
        let documents = self.documents
        let routes = SignatureRoutes(desk: desk, waits: waits, longestWait: limits.longestWait, documents: documents,
                                     policy: documentPolicy, image: image)
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .serverChannelInitializer { [self] channel in
                channel.eventLoop.makeCompletedFuture {
                    // Without it a failing accept (EMFILE) would be retried at once, in a busy loop.
                    try channel.pipeline.syncOperations.addHandler(AcceptBackoffHandler { [self] error in acceptFailed(error) })
                }
            }
            .childChannelInitializer { [self] channel in
                caller(of: channel).flatMapThrowing { peer in
                    let pipeline = channel.pipeline.syncOperations
                    guard let caller = peer.caller else {
                        // A unix-socket peer whose user and groups are not allowed ([api] socket_users, socket_groups).
                        requestAccess.note("refused a unix-socket peer: \(peer.description) (not in [api] socket_users or socket_groups)")
                        try pipeline.addHandler(RefuseAtOnce(.error(.forbidden, "this user may not use the kiosk's API "
                                                                    + "(\(peer.description)): [api] socket_users and socket_groups say who may")))
                        return
                    }
                    let slot: ConnectionSlot
                    switch gate.admit(channel, client: caller.key) {
                    case .refused(let refusal):
                        requestAccess.note(refusal == .perClient
                            ? "refused a connection from \(caller.key): \(limits.maxConnectionsPerClient) are open and have shown the token "
                                + "([api] max_connections_per_client)"
                            : "refused a connection from \(caller.key): \(limits.maxConnections) are open and have shown the token "
                                + "([api] max_connections)")
                        try pipeline.addHandler(RefuseAtOnce.overCapacity(refusal, capacity: limits.maxConnections,
                                                                          perClient: limits.maxConnectionsPerClient, client: caller.key))
                        return
                    case .admitted(let admitted, let evicted):
                        slot = admitted
                        if let evicted {
                            let which = evicted.entry.standing == .closing ? "a refused connection" : "a connection that had not shown the token"
                            let limit = evicted.limit == .perClient ? "its \(limits.maxConnectionsPerClient) ([api] max_connections_per_client)"
                                : "the server's \(limits.maxConnections) ([api] max_connections)"
                            requestAccess.note("closed \(which) from \(evicted.entry.client) to make room for one from \(caller.key) "
                                               + "(\(limit) were open)")
                        }
                    }
                    let guardian = RequestGuard(limits: limits, slot: slot)
                    try pipeline.addHandler(guardian)
                    // The decoder answers what it cannot parse (a negative Content-Length…) with 400;
                    // the pipelining helper keeps one request at a time in the routes' hands.
                    try pipeline.configureHTTPServerPipeline(withPipeliningAssistance: true, withErrorHandling: true)
                    try pipeline.addHandler(RequestHandler(routes: routes, guardian: guardian, access: requestAccess, caller: caller,
                                                           slot: slot, maxBody: limits.maxBodyBytes, documents: documents))
                }
            }
        switch address {
        case .unix(let path):
            guard path.utf8.count < 108 else { throw APISetupError.socketPathTooLong(path: path) }
            try Self.removeStaleSocket(path)
            let channel = try await bootstrap.bind(unixDomainSocketPath: path).get()
            if chmod(path, 0o660) != 0 {
                log.warning("signature API: cannot make \(path) mode 0660: \(Errno.describe(errno))")
            }
            return channel
        case .tcp(let host, let port):
            guard APIAddress.isIPv4(host) || APIAddress.isIPv6(host) else { throw APISetupError.notAnIPAddress(host: host) }
            return try await bootstrap.bind(host: host, port: Int(port)).get()
        }
    }

    /// Who is at the other end of an accepted connection: its address (TCP), or its user, group
    /// and process (the unix socket's SO_PEERCRED), judged against `[api] socket_users` and
    /// `socket_groups` (`caller` nil: refused).
    private func caller(of channel: any Channel) -> EventLoopFuture<(caller: Caller?, description: String)> {
        if let remote = channel.remoteAddress, let ip = remote.ipAddress {
            let local = channel.localAddress?.ipAddress
            let caller = Caller(key: ClientKey(ip: ip), overTCP: true, localIP: local.map { ClientKey(ip: $0).description },
                                description: "\(ClientKey(ip: ip)) port \(remote.port ?? 0)")
            return channel.eventLoop.makeSucceededFuture((caller, caller.description))
        }
        guard let provider = channel as? any SocketOptionProvider else {
            return channel.eventLoop.makeSucceededFuture((nil, "a unix-socket peer whose credentials cannot be read"))
        }
        let access = requestAccess.access
        let future: EventLoopFuture<PeerCredentials> = provider.unsafeGetSocketOption(level: SocketOptionLevel(SOL_SOCKET),
                                                                                      name: SocketOptionName(PeerCredentials.option))
        return future.map { cred -> (caller: Caller?, description: String) in
            let description = "uid \(cred.uid) gid \(cred.gid) pid \(cred.pid)"
            let allowed = access.peerAllowed(uid: cred.uid, gid: cred.gid,
                                             memberOf: access.socketGroups.isEmpty ? [] : groupsOfUser(uid: cred.uid), ownUID: geteuid())
            guard allowed else { return (nil, description) }
            return (Caller(key: ClientKey(uid: cred.uid), overTCP: false, localIP: nil, description: description), description)
        }.recover { error -> (caller: Caller?, description: String) in
            (nil, "a unix-socket peer whose credentials cannot be read (\(Self.describe(error)))")
        }
    }

    /// How long the listener pauses after a failed accept (logged, rate-limited).
    private func acceptFailed(_ error: IOError) -> TimeAmount? {
        let step = recovery.withLock { $0.failed(ListenerFailure(stage: .accept, error), at: Self.now()) }
        guard case .listenAgain(let pause, let line) = step else { return .seconds(1) }
        if let line { log.warning("signature API on \(bound.withLock { $0 }): \(line)") }
        return .nanoseconds(Int64(pause.components.seconds) * 1_000_000_000 + pause.components.attoseconds / 1_000_000_000)
    }

    /// Waits for the listening channel to close; unless `stop` closed it, listens again (see
    /// `ListenerRecovery`) or gives up.
    private func keepListening(on address: APIAddress, group: MultiThreadedEventLoopGroup) async {
        while true {
            guard let channel = listener.withLock({ $0 }) else { return }
            let closed = channel.closeFuture
            await withTaskCancellationHandler { try? await closed.get() } onCancel: { channel.close(promise: nil) }
            if isStopped || Task.isCancelled { return }
            var failure = ListenerFailure(stage: .closed, errno: nil, text: "the listening socket closed")
            relisten: while true {
                switch recovery.withLock({ $0.failed(failure, at: Self.now()) }) {
                case .giveUp(let why):
                    let message = "signature API on \(address) stopped for good: \(why)"
                    givenUp.withLock { $0 = message }
                    log.error("\(message)")
                    onGiveUp(message)
                    return
                case .listenAgain(let pause, let line):
                    if let line { log.warning("signature API on \(address): \(line)") }
                    do { try await Task.sleep(for: pause) } catch { return }
                    if isStopped { return }
                    do {
                        let channel = try await bind(address, on: group)
                        listener.withLock { $0 = channel }
                        if isStopped {   // `stop` came while this one was starting: it closed the old one only
                            try? await channel.close()
                            return
                        }
                        break relisten
                    } catch {
                        failure = ListenerFailure(stage: .listen, error)
                    }
                }
            }
        }
    }

    /// A socket file from an earlier run would make bind fail; anything else at that path is not ours to remove.
    private static func removeStaleSocket(_ path: String) throws {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        guard info.st_mode & S_IFMT == S_IFSOCK else { throw APISetupError.notASocket(path: path) }
        guard unlink(path) == 0 else { throw SystemCallError("remove the old socket", path: path) }
    }
}

/// `struct ucred` of SO_PEERCRED (pid_t, uid_t, gid_t), which Glibc's module leaves out.
struct PeerCredentials: Sendable {
    var pid: Int32 = 0
    var uid: UInt32 = 0
    var gid: UInt32 = 0
    /// SO_PEERCRED: 17 where the kernel uses asm-generic's numbers (x86, arm64, riscv64, arm).
    static let option: Int32 = 17
}

/// Long polls held at once, across connections: one over `limit` is refused.
final class WaitCount: Sendable {
    let limit: Int
    private let count = Mutex(0)

    init(limit: Int) {
        self.limit = limit
    }

    var current: Int { count.withLock { $0 } }

    /// Runs `body` holding one of the places, or returns nil when all are taken.
    func holding<T: Sendable>(_ body: () async -> T) async -> T? {
        let taken = count.withLock { n in
            guard n < limit else { return false }
            n += 1
            return true
        }
        guard taken else { return nil }
        defer { count.withLock { $0 -= 1 } }
        return await body()
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
