// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import Glibc

// printf-style formatting and error text without Foundation's `String(cFormat:)` and
// `localizedDescription`: both live in Foundation proper, which links ICU (39 MB), and the
// kiosk links FoundationEssentials only. The numbers come out as they did: String(cFormat:)
// formats %d, %x and %f through the C library's printf too.

extension String {
    /// `format` with C printf conversions (%d %ld %x %02x %.2f %s …) filled from `arguments`.
    /// Integers are CVarArg as Int32 (`%d`, `%x`) or Int (`%ld`); a String argument needs `%s`
    /// and is passed as a C string (use interpolation instead where you can).
    public init(cFormat format: String, _ arguments: CVarArg...) {
        var size = 128
        while true {
            var buffer = [CChar](repeating: 0, count: size)
            // A va_list may be walked only once: a fresh one for each attempt.
            let needed = Int(withVaList(arguments) { vsnprintf(&buffer, size, format, $0) })
            if needed < 0 { self = format; return }
            if needed < size {
                self = String(decoding: buffer[..<needed].map { UInt8(bitPattern: $0) }, as: UTF8.self)
                return
            }
            size = needed + 1
        }
    }
}

/// A hex digit's value (either case); nil for anything else.
public func hexDigitValue(_ c: UInt8) -> UInt8? {
    switch c {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
    case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
    case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
    default: nil
    }
}

/// The bytes a string of hex digit pairs (either case) spells, as `hexString` writes them;
/// nil for anything else.
public func bytes(ofHex hex: String) -> [UInt8]? {
    let digits = Array(hex.utf8)
    guard digits.count % 2 == 0 else { return nil }
    var out: [UInt8] = []
    out.reserveCapacity(digits.count / 2)
    for i in stride(from: 0, to: digits.count, by: 2) {
        guard let hi = hexDigitValue(digits[i]), let lo = hexDigitValue(digits[i + 1]) else { return nil }
        out.append(hi << 4 | lo)
    }
    return out
}

/// Two lowercase hex digits a byte, as `String(cFormat: "%02x")` gave.
public func hexString<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
    let digits = Array("0123456789abcdef".utf8)
    var out: [UInt8] = []
    out.reserveCapacity(bytes.underestimatedCount * 2)
    for b in bytes {
        out.append(digits[Int(b >> 4)])
        out.append(digits[Int(b & 0x0f)])
    }
    return String(decoding: out, as: UTF8.self)
}

/// An error as a person reads it: for a file error, the system's own words for its errno
/// ("No such file or directory"), else the error's description.
public func errorText(_ error: any Error) -> String {
    if let cocoa = error as? CocoaError {
        if let posix = cocoa.underlying as? POSIXError { return Errno.describe(posix.code.rawValue) }
        return "\(cocoa.code)"
    }
    if let posix = error as? POSIXError { return Errno.describe(posix.code.rawValue) }
    return "\(error)"
}

/// `yyyyMMdd'T'HHmmss'Z'` in UTC (DateFormatter, which needs ICU, made it before).
public func utcTimestamp(_ date: Date) -> String {
    timestamp(date, utc: true, dateTimeSeparator: "T") + "Z"
}

/// `yyyyMMdd` + separator + `HHmmss` in the local time zone (TZ, /etc/localtime; UTC without them).
public func localTimestamp(_ date: Date, dateTimeSeparator: String) -> String {
    timestamp(date, utc: false, dateTimeSeparator: dateTimeSeparator)
}

private func timestamp(_ date: Date, utc: Bool, dateTimeSeparator: String) -> String {
    var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
    var parts = tm()
    if utc { gmtime_r(&seconds, &parts) } else { localtime_r(&seconds, &parts) }
    return String(cFormat: "%04d%02d%02d", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday) + dateTimeSeparator
        + String(cFormat: "%02d%02d%02d", parts.tm_hour, parts.tm_min, parts.tm_sec)
}
