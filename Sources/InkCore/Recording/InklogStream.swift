// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import Glibc

/// A recording read from its file an event at a time, for playing it once without holding it:
/// a long recording's events take more memory than its file (about 150 bytes each), and a
/// replay needs only the next one. Lines go through the same checks as `InklogReader`'s; the
/// first bad line stops the stream with its line number (what was played before it stays played).
public final class InklogStream {
    public let path: String
    public let devices: [DeviceInfo]
    /// Out-of-range values clamped so far.
    public var clampedValues: Int { lines.clamped }
    /// Events read so far.
    public private(set) var eventsRead = 0
    /// Time spent reading and parsing, so that a benchmark can tell it from the playing.
    public private(set) var readSeconds = 0.0

    private let file: Int32
    private var lines: InklogLines
    private var buffer: [UInt8] = []
    /// Where the next line starts in `buffer`.
    private var start = 0
    private var atEnd = false
    private var number = 1
    /// Bytes read from the file at a time (a line longer than that makes the buffer larger).
    /// 64 KB stays in the cache while it is parsed, and is faulted in once; a megabyte was
    /// 256 page faults and a megabyte of zeros written before each read.
    private let chunk: Int

    public convenience init(path: String) throws { try self.init(path: path, chunk: 64 << 10) }

    init(path: String, chunk: Int) throws {
        self.path = path
        self.chunk = chunk
        let file = open(path, O_RDONLY | O_CLOEXEC)
        guard file >= 0 else {
            let failure = SystemCallError("open", path: path)
            throw InklogError(file: path, line: 0, message: "cannot read the file: \(Errno.describe(failure.errno))", cause: failure)
        }
        self.file = file
        var buffer: [UInt8] = []
        var start = 0, atEnd = false
        guard let header = try Self.nextLine(file, &buffer, &start, &atEnd, chunk: chunk, path: path) else {
            throw InklogError(file: path, line: 1, message: "the file is empty; the first line must be the header")
        }
        lines = try buffer.withUnsafeBufferPointer {
            try InklogLines(header: UnsafeBufferPointer(rebasing: $0[header]), name: path, lineParsing: .bytes)
        }
        devices = lines.devices
        self.buffer = buffer; self.start = start; self.atEnd = atEnd
    }

    deinit { close(file) }

    /// The next event, or nil at the end of the file.
    public func next() throws -> InkEvent? {
        let began = ContinuousClock.now
        defer { readSeconds += (ContinuousClock.now - began).inSeconds }
        guard let line = try Self.nextLine(file, &buffer, &start, &atEnd, chunk: chunk, path: path) else { return nil }
        number += 1
        let event = try buffer.withUnsafeBufferPointer { try lines.event(UnsafeBufferPointer(rebasing: $0[line]), number: number) }
        eventsRead += 1
        return event
    }

    /// The range of the next line in `buffer` (without its "\n"), reading more of the file
    /// when the buffer holds no whole line; nil at the end. A final "\n" ends the last line
    /// rather than starting an empty one, as `InklogReader` reads it.
    private static func nextLine(_ file: Int32, _ buffer: inout [UInt8], _ start: inout Int, _ atEnd: inout Bool,
                                 chunk: Int, path: String) throws -> Range<Int>? {
        while true {
            let from = start
            let newline: Int? = buffer.withUnsafeBufferPointer { b in
                guard from < b.count, let base = b.baseAddress,
                      let nl = memchr(base + from, Int32(UInt8(ascii: "\n")), b.count - from) else { return nil }
                return base.distance(to: nl.assumingMemoryBound(to: UInt8.self))
            }
            if let nl = newline {
                defer { start = nl + 1 }
                return start..<nl
            }
            if atEnd {
                guard start < buffer.count else { return nil }
                defer { start = buffer.count }
                return start..<buffer.count
            }
            // Keep the unfinished line, drop what was read, and read on.
            buffer.removeSubrange(0..<start)
            start = 0
            let kept = buffer.count
            buffer.append(contentsOf: repeatElement(0, count: chunk))
            let n = buffer.withUnsafeMutableBytes { read(file, $0.baseAddress! + kept, chunk) }
            let failure = errno
            buffer.removeLast(chunk - max(n, 0))
            if n < 0 {
                if failure == EINTR { continue }
                throw InklogError(file: path, line: 0, message: "cannot read the file: \(Errno.describe(failure))",
                                  cause: SystemCallError("read", path: path, errno: failure))
            }
            if n == 0 { atEnd = true }
        }
    }
}
