// SPDX-License-Identifier: Apache-2.0
import InkCore
import Synchronization

/// What one document may cost to read, set per document by its caller (the API takes these from
/// `[limits]`). The structural `PDFLimits` bound each object; these bound the whole file, so
/// that one crafted upload cannot hold an upload slot for minutes or take more memory than a
/// contract needs: every value parsed, every byte inflated and the time since the read began
/// are counted, and the read stops with `.overBudget` once one runs out.
public struct PDFReadLimits: Sendable, Equatable {
    /// Pages of the document: checked against the page tree's /Count before the tree is walked.
    public var maxPages: Int
    /// Values parsed (numbers, names, strings, references, arrays, dictionaries, streams), the
    /// file's every object once. A parsed value takes some 40–80 bytes of memory while it is kept.
    public var maxValues: Int
    /// Bytes inflated from FlateDecode streams (cross-reference and object streams), all together.
    public var maxInflatedBytes: Int
    /// Seconds from the start of the read (the reading of the whole file, its pages and fields).
    public var maxSeconds: Double

    public init(maxPages: Int = PDFLimits.maxPages, maxValues: Int = 4_000_000,
                maxInflatedBytes: Int = 256 << 20, maxSeconds: Double = 60) {
        self.maxPages = maxPages; self.maxValues = maxValues
        self.maxInflatedBytes = maxInflatedBytes; self.maxSeconds = maxSeconds
    }

    /// What a test or a tool reads with: far above any real document, still finite.
    public static let generous = PDFReadLimits()
}

/// The work one document's read has done so far, against its `PDFReadLimits`. Shared by the
/// copies of a `PDFDocument` (and safe from any thread: the API reads on a task).
final class PDFWork: Sendable {
    let limits: PDFReadLimits
    private let started = monotonicNow()
    private let used = Mutex((values: 0, inflated: 0))

    init(_ limits: PDFReadLimits) { self.limits = limits }

    var values: Int { used.withLock { $0.values } }
    var inflated: Int { used.withLock { $0.inflated } }

    /// Counts `count` values parsed; throws once the budget or the time is spent.
    func parsed(_ count: Int) throws {
        let total = used.withLock { u in u.values += count; return u.values }
        guard total <= limits.maxValues else {
            throw PDFError(.overBudget, "more than \(limits.maxValues) values to parse")
        }
        try checkTime()
    }

    /// Bytes that may still be inflated.
    var inflateAllowance: Int { max(0, limits.maxInflatedBytes - inflated) }

    /// Counts `bytes` inflated.
    func inflated(_ bytes: Int) throws {
        let total = used.withLock { u in u.inflated += bytes; return u.inflated }
        guard total <= limits.maxInflatedBytes else {
            throw PDFError(.overBudget, "more than \(limits.maxInflatedBytes >> 20) MiB to inflate")
        }
        try checkTime()
    }

    func checkTime() throws {
        let elapsed = monotonicNow() - started
        guard elapsed <= limits.maxSeconds else {
            throw PDFError(.overBudget, "still reading after \(Int(limits.maxSeconds)) s")
        }
    }
}
