/// A client, as the per-client limits count it: its IP address on TCP (an IPv4-mapped IPv6
/// address as the IPv4 one), its user on the unix socket (every process of a user is one
/// client there).
public struct ClientKey: Hashable, Sendable, CustomStringConvertible {
    public let description: String

    public init(ip: String) {
        description = ip.hasPrefix("::ffff:") && APIAddress.isIPv4(String(ip.dropFirst(7))) ? String(ip.dropFirst(7)) : ip
    }

    public init(uid: UInt32) { description = "uid \(uid)" }
}

/// Wrong tokens, counted per client: after `maxFailures` within `window` seconds the client is
/// answered 429 for `window` seconds, without its token being looked at (a guesser learns
/// nothing more). Other clients are not touched. At most `capacity` clients are remembered:
/// when a new one comes to a full table, those whose failures have all aged out go first, then
/// the one that failed least recently.
struct AuthFailureLimiter: Sendable {
    let maxFailures: Int
    let window: Double
    let capacity: Int

    private struct Record {
        /// The latest failures' times, at most `maxFailures`.
        var failures: [Double] = []
        var blockedUntil: Double?
        var last: Double { failures.last ?? 0 }
    }

    private var records: [ClientKey: Record] = [:]

    init(maxFailures: Int, window: Double, capacity: Int) {
        self.maxFailures = maxFailures
        self.window = window
        self.capacity = capacity
    }

    var tracked: Int { records.count }

    /// Seconds until `client` may try again, or nil when it may now.
    mutating func retryAfter(_ client: ClientKey, now: Double) -> Double? {
        guard let until = records[client]?.blockedUntil else { return nil }
        if until > now { return until - now }
        records[client]?.blockedUntil = nil
        return nil
    }

    /// Counts a wrong token; returns the seconds `client` must now wait when this one was too many.
    @discardableResult
    mutating func failed(_ client: ClientKey, now: Double) -> Double? {
        if records[client] == nil { makeRoom(now: now) }
        var record = records[client] ?? Record()
        record.failures.append(now)
        record.failures.removeAll { $0 <= now - window }
        if record.failures.count > maxFailures { record.failures.removeFirst(record.failures.count - maxFailures) }
        var wait: Double?
        if record.failures.count >= maxFailures {
            record.blockedUntil = now + window
            record.failures.removeAll()
            wait = window
        }
        records[client] = record
        return wait
    }

    private mutating func makeRoom(now: Double) {
        guard records.count >= capacity else { return }
        let stale = records.filter { ($0.value.blockedUntil ?? 0) <= now && $0.value.last <= now - window }.map(\.key)
        for key in stale.prefix(max(1, capacity / 8)) { records.removeValue(forKey: key) }
        if records.count >= capacity, let oldest = records.min(by: { ($0.value.blockedUntil ?? $0.value.last) < ($1.value.blockedUntil ?? $1.value.last) })?.key {
            records.removeValue(forKey: oldest)
        }
    }
}

/// Connections open at once, in all and per client. The per-client table holds only clients
/// with a connection open, so it is never longer than the total allows.
struct ConnectionTally: Sendable {
    enum Refusal: Equatable { case total, perClient }

    let capacity: Int
    let perClient: Int
    private(set) var total = 0
    private(set) var byClient: [ClientKey: Int] = [:]

    init(capacity: Int, perClient: Int) {
        self.capacity = capacity
        self.perClient = perClient
    }

    mutating func admit(_ client: ClientKey) -> Refusal? {
        guard total < capacity else { return .total }
        let open = byClient[client, default: 0]
        guard open < perClient else { return .perClient }
        byClient[client] = open + 1
        total += 1
        return nil
    }

    mutating func release(_ client: ClientKey) {
        guard let open = byClient[client] else { return }
        total -= 1
        byClient[client] = open > 1 ? open - 1 : nil
    }
}
