// SPDX-License-Identifier: Apache-2.0
/// Watches a request's head (line and headers) arrive, byte by byte, before the HTTP decoder
/// sees it, so that a head too long is refused with the right status while it is still short
/// enough to cost nothing: a 1 MB header line is 431 after 16 KiB, not after the megabyte.
struct RequestHeadScanner {
    enum Verdict: Equatable {
        /// Still in the head; all bytes so far are fine.
        case reading
        /// The blank line after the headers: the head ends `at` bytes into the last chunk.
        case complete(at: Int)
        case lineTooLong
        case headTooLarge
        /// A byte the request line may not hold (HTTP's request target is ASCII).
        case badLineByte(UInt8)
    }

    let maxLine: Int
    let maxHead: Int
    private(set) var count = 0
    private var inLine = true
    /// The last bytes seen, to find CR LF CR LF (or a bare LF LF) across chunks.
    private var tail: UInt32 = 0

    init(limits: APILimits) {
        maxLine = limits.maxRequestLine
        maxHead = limits.maxHeaderBytes
    }

    var started: Bool { count > 0 }

    mutating func feed(_ bytes: some Sequence<UInt8>) -> Verdict {
        var index = 0
        for byte in bytes {
            index += 1
            // Blank lines before a request are allowed (RFC 9112 2.2) and ignored here.
            if count == 0 && (byte == 0x0D || byte == 0x0A) { continue }
            count += 1
            tail = (tail << 8) | UInt32(byte)
            if inLine {
                if byte == 0x0A {
                    inLine = false
                } else if byte != 0x0D && (byte < 0x20 || byte >= 0x7F) {
                    return .badLineByte(byte)
                } else if count > maxLine {
                    return .lineTooLong
                }
            } else if tail == 0x0D0A_0D0A || tail & 0xFFFF == 0x0A0A {
                return .complete(at: index)
            }
            if count > maxHead { return .headTooLarge }
        }
        return .reading
    }
}
