// SPDX-License-Identifier: Apache-2.0
/// The newest `limit` lines of a log that may run for months; older ones are counted, not kept.
public struct RecentLines: Sendable {
    public let limit: Int
    private var ring: [String] = []
    private var next = 0
    /// Lines no longer kept.
    public private(set) var dropped = 0

    public init(limit: Int) { self.limit = max(1, limit) }

    public mutating func append(_ line: String) {
        if ring.count < limit {
            ring.append(line)
        } else {
            ring[next] = line
            dropped += 1
        }
        next = (next + 1) % limit
    }

    /// Oldest first.
    public var lines: [String] { ring.count < limit ? ring : Array(ring[next...] + ring[..<next]) }
}
