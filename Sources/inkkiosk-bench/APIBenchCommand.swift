// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import FoundationEssentials
import Glibc
import InkCore
import Dispatch
import InkAPI
import InkAPIClient
import InkLoop
import InkPipeline
import Synchronization

/// `inkkiosk-bench api-bench`: the signature API under load, in one process: the real server on
/// loopback, N clients asking on kept-alive connections as fast as they are answered, and a
/// prober asking `/health` on a fresh connection every 50 ms, as a POS health check would.
/// Figures only: nothing here passes or fails.
struct APIBenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "api-bench",
        abstract: "Load the signature API with many clients and report its answer times.",
        discussion: "Prints a readable report, then the same figures as one JSON object on the last line.")

    @Option(help: "Clients on kept-alive connections, each asking again as soon as it is answered.")
    var clients = 200

    @Option(help: "Seconds of load.")
    var seconds = 10.0

    @Option(help: "Load a running kiosk's API at this address instead of one served here (\"127.0.0.1:7300\", \"unix:PATH\").")
    var target: String?

    @Option(help: "With --target on TCP: the file holding the kiosk's bearer token (default /var/lib/inkkiosk/api.token).")
    var tokenFile: String?

    struct Report: Codable {
        var clients: Int
        var seconds: Double
        var requests: Int
        var requestsPerSecond: Double
        var errors: Int
        var clientMs: Summary
        var healthMs: Summary
        var healthSamples: Int
        var peakRSSMiB: Double?
    }

    func run() throws {
        guard clients >= 1, clients <= 1000 else { throw ValidationError("--clients must be between 1 and 1000") }
        guard seconds > 0, seconds <= 600 else { throw ValidationError("--seconds must be between 0 and 600") }
        var server: SignatureAPIServer?
        let address: APIAddress
        if let target {
            address = try APIAddress.parse(target)
        } else {
            let desk = try SignatureDesk(defaultTimeout: nil)
            var limits = APILimits()
            limits.maxConnections = max(limits.maxConnections, clients + 16)
            limits.maxConnectionsPerClient = limits.maxConnections
            let local = SignatureAPIServer(desk: desk, address: .tcp(host: "127.0.0.1", port: 0), limits: limits)
            try local.startBlocking()
            server = local
            guard let bound = Self.listening(local) else { throw ValidationError("the API server did not say where it listens") }
            address = bound
        }
        defer { server?.stopBlocking() }

        // A running kiosk asks for its token on TCP (docs/API.md, "Who may ask"); the one served here asks for none.
        var auth = ""
        if target != nil, case .tcp = address {
            let path = tokenFile ?? "/var/lib/inkkiosk/api.token"
            let text = (try? String(contentsOfFile: path, encoding: .utf8))?.trimmingSpacesAndNewlines() ?? ""
            if text.isEmpty { print("warning: no token in \(path) (--token-file): the kiosk will answer 401") }
            auth = "Authorization: Bearer \(text)\r\n"
        }
        let load = Load(seconds: seconds, threads: clients + 1, auth: auth)
        for i in 0..<clients {
            startThread(name: "api-bench-\(i)", stackSize: 256 * 1024) {
                load.client(address, path: i % 2 == 0 ? "/health" : "/signatures/latest")
            }
        }
        startThread(name: "api-bench-probe") { load.prober(address) }
        load.finished.wait()

        let figures = load.figures()
        let report = Report(clients: clients, seconds: seconds, requests: figures.client.count,
                            requestsPerSecond: Double(figures.client.count) / seconds, errors: figures.errors,
                            clientMs: Summary(figures.client), healthMs: Summary(figures.health), healthSamples: figures.health.count,
                            peakRSSMiB: server == nil ? nil : BenchCommand.peakRSSMiB())
        print("== signature API under \(clients) clients for \(seconds) s (\(target ?? "served in this process"))")
        print(String(cFormat: "requests        %d (%.0f a second), %d errors", report.requests, report.requestsPerSecond, report.errors))
        print(String(cFormat: "clients' answers median %.2f ms, p99 %.2f ms, max %.2f ms", report.clientMs.median, report.clientMs.p99, report.clientMs.max))
        print(String(cFormat: "/health (fresh connection every 50 ms) median %.2f ms, p99 %.2f ms, max %.2f ms over %d",
                     report.healthMs.median, report.healthMs.p99, report.healthMs.max, report.healthSamples))
        if let rss = report.peakRSSMiB { print(String(cFormat: "peak RSS        %.1f MiB", rss)) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        print(String(decoding: try encoder.encode(report), as: UTF8.self))
    }

    private static func listening(_ server: SignatureAPIServer) -> APIAddress? {
        let found = Mutex<APIAddress?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            let address = await server.listeningAddress()
            found.withLock { $0 = address }
            done.signal()
        }
        done.wait()
        return found.withLock { $0 }
    }
}

/// The load's clocks and tallies, shared by its threads.
private final class Load: Sendable {
    let seconds: Double
    let finished = DispatchSemaphore(value: 0)
    private let start = Date()
    private let tallies = Mutex((client: [Double](), health: [Double](), errors: 0, running: 0))

    /// The `Authorization` header line each request carries ("" for none).
    let auth: String

    /// `threads`: the clients and the prober; the last to end signals `finished`.
    init(seconds: Double, threads: Int, auth: String = "") {
        self.seconds = seconds
        self.auth = auth
        tallies.withLock { $0.running = threads }
    }

    private var over: Bool { Date().timeIntervalSince(start) >= seconds }

    func client(_ address: APIAddress, path: String) {
        defer { end() }
        var times: [Double] = []
        var errors = 0
        let request = "GET \(path) HTTP/1.1\r\nHost: localhost\r\n\(auth)\r\n"
        var connection: BlockingClient?
        while !over {
            do {
                let client = try connection ?? BlockingClient(address, timeout: 10)
                connection = client
                let asked = Date()
                guard client.send(request), client.response() != nil else { errors += 1; connection = nil; continue }
                times.append(Date().timeIntervalSince(asked) * 1000)
            } catch {
                errors += 1
                usleep(10_000)
            }
        }
        tallies.withLock { $0.client += times; $0.errors += errors }
    }

    func prober(_ address: APIAddress) {
        defer { end() }
        var times: [Double] = []
        var errors = 0
        while !over {
            let asked = Date()
            if let client = try? BlockingClient(address, timeout: 10), client.send("GET /health HTTP/1.1\r\nHost: localhost\r\n\(auth)Connection: close\r\n\r\n"),
               client.response()?.status == 200 {
                times.append(Date().timeIntervalSince(asked) * 1000)
            } else {
                errors += 1
            }
            usleep(50_000)
        }
        tallies.withLock { $0.health += times; $0.errors += errors }
    }

    private func end() {
        let last = tallies.withLock { t in
            t.running -= 1
            return t.running == 0
        }
        if last { finished.signal() }
    }

    func figures() -> (client: [Double], health: [Double], errors: Int) {
        tallies.withLock { ($0.client, $0.health, $0.errors) }
    }
}
