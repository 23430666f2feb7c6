// SPDX-License-Identifier: Apache-2.0
import InkCore

/// Results written by index from several threads, each index once, read when all are done.
/// `slots` is used only under `lock`; `what` is set in init.
final class ParallelResults<Value>: @unchecked Sendable {
    private var slots: [Result<Value, any Error>?]
    private let lock = Lock()
    /// What a slot no thread wrote is called in the error (`"a stroke"`, `"a band of the PNG"`).
    private let what: String

    init(count: Int, what: String) {
        slots = Array(repeating: nil, count: count)
        self.what = what
    }

    func set(_ i: Int, _ r: Result<Value, any Error>) { lock.withLock { slots[i] = r } }

    /// Every value in index order; the first error, or a slot never written, throws.
    func values() throws -> [Value] {
        let all = lock.withLock { slots }
        return try all.map { slot in
            guard let slot else { throw RenderError("\(what) was not made") }
            return try slot.get()
        }
    }
}
