// SPDX-License-Identifier: Apache-2.0
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

/// Connections open at once, in all and per client, and which of them may be closed to make
/// room. A connection that has shown the right token (or, with no token asked for, passed the
/// checks once) keeps its slot until it closes; any other, still silent, half-sent (slowloris)
/// or refused, may be closed when a newcomer finds its client's or the server's slots full.
/// Every local program is one client, 127.0.0.1: without this, idle or busy connections from
/// any of them would take the slots the host needs.
///
/// Which one goes: a refused connection (closing anyway) before one still to show its token, and
/// then the oldest, which a connection just opened outlives by `perClient - 1` newer ones from
/// its client (a host sends its request as it connects: it is judged long before). When the
/// server's slots are full, a connection of the client holding the most goes first. Only when
/// every slot is held by a proven connection is a newcomer refused (503). The work per accept
/// is a look at the open connections (at most `capacity`), and only when a limit is reached.
struct ConnectionTally: Sendable {
    enum Refusal: Equatable { case total, perClient }

    /// Where a connection stands with the checks.
    enum Standing: Equatable, Sendable {
        /// Has not yet shown the token: may be closed to make room.
        case unproven
        /// Has shown it: keeps its slot.
        case proven
        /// Refused and on its way out: the first to go.
        case closing
    }

    struct Entry: Equatable {
        var client: ClientKey
        var standing: Standing
    }

    /// A connection closed to make room, and which limit it made room under.
    struct Eviction: Equatable {
        var number: UInt64
        var entry: Entry
        var limit: Refusal
    }

    enum Admission: Equatable {
        /// `number` names the newcomer from now on; `evicted` was closed for it.
        case admitted(number: UInt64, evicted: Eviction?)
        case refused(Refusal)
    }

    let capacity: Int
    let perClient: Int
    /// Open connections by number; numbers grow with each admission, so a lower one is older.
    private(set) var entries: [UInt64: Entry] = [:]
    /// Open connections per client; only clients with one open.
    private(set) var byClient: [ClientKey: Int] = [:]
    private var next: UInt64 = 0

    init(capacity: Int, perClient: Int) {
        self.capacity = capacity
        self.perClient = perClient
    }

    var total: Int { entries.count }

    mutating func admit(_ client: ClientKey) -> Admission {
        var evicted: Eviction?
        let open = byClient[client, default: 0]
        if open >= perClient {
            guard let victim = victim(of: client, limit: .perClient) else { return .refused(.perClient) }
            evicted = victim
        } else if entries.count >= capacity {
            guard let victim = victim(of: nil, limit: .total) else { return .refused(.total) }
            evicted = victim
        }
        if let evicted { release(evicted.number) }
        next += 1
        entries[next] = Entry(client: client, standing: .unproven)
        byClient[client, default: 0] += 1
        return .admitted(number: next, evicted: evicted)
    }

    /// Proven stays proven, closing stays closing: a refused connection never gets its slot back.
    mutating func mark(_ number: UInt64, _ standing: Standing) {
        guard let now = entries[number]?.standing, now != .closing, !(now == .proven && standing == .unproven) else { return }
        entries[number]?.standing = standing
    }

    mutating func release(_ number: UInt64) {
        guard let entry = entries.removeValue(forKey: number), let open = byClient[entry.client] else { return }
        byClient[entry.client] = open > 1 ? open - 1 : nil
    }

    /// The connection to close for a newcomer: of `client` (its slots are full), or of anyone
    /// (the server's are); nil when every candidate has shown the token.
    private func victim(of client: ClientKey?, limit: Refusal) -> Eviction? {
        var best: (eviction: Eviction, rank: (Int, Int, UInt64))?
        for (number, entry) in entries where entry.standing != .proven && (client == nil || entry.client == client) {
            // Closing first; then, across clients, the one holding the most; then the oldest.
            let rank = (entry.standing == .closing ? 0 : 1, client == nil ? -(byClient[entry.client] ?? 0) : 0, number)
            if let best, !(rank < best.rank) { continue }
            best = (Eviction(number: number, entry: entry, limit: limit), rank)
        }
        return best?.eviction
    }
}
