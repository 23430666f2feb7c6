// SPDX-License-Identifier: Apache-2.0
import InkCore

/// Percent-encoding of WebDAV paths (RFC 3986): a file name with spaces, accents or `#` becomes
/// one path segment of a URL, and an href comes back as the name it stands for.
public enum PercentEncoding {
    /// A path segment: every byte but the unreserved characters (letters, digits, `-._~`) encoded,
    /// `/` too, so that a name can never add a folder.
    public static func encodeSegment(_ segment: String) -> String {
        var out = ""
        out.reserveCapacity(segment.utf8.count)
        for byte in segment.utf8 {
            if isUnreserved(byte) {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                out += "%" + hex(byte >> 4) + hex(byte & 0xF)
            }
        }
        return out
    }

    /// A path of several segments ("Class 7b/Hand-out"), each encoded, the slashes kept.
    public static func encodePath(_ path: String) -> String {
        path.split(separator: "/", omittingEmptySubsequences: false).map { encodeSegment(String($0)) }.joined(separator: "/")
    }

    /// The path an href names: `%XX` decoded; nil when an escape is broken, the bytes are not UTF-8,
    /// or a segment decodes to a control character, `/` or NUL (a name that hides a folder).
    public static func decodePath(_ encoded: String) -> String? {
        var segments: [String] = []
        for part in encoded.split(separator: "/", omittingEmptySubsequences: false) {
            var bytes: [UInt8] = []
            var iterator = Array(part.utf8).makeIterator()
            while let byte = iterator.next() {
                if byte == UInt8(ascii: "%") {
                    guard let high = iterator.next().flatMap(hexDigitValue), let low = iterator.next().flatMap(hexDigitValue) else { return nil }
                    bytes.append(high << 4 | low)
                } else {
                    bytes.append(byte)
                }
            }
            guard let segment = String(validating: bytes, as: UTF8.self),
                  !segment.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F || $0 == "/" }) else { return nil }
            segments.append(segment)
        }
        return segments.joined(separator: "/")
    }

    /// The path of an href or URL: "https://host/a/b/" → "/a/b/"; a path stays as it is.
    public static func urlPath(_ url: String) -> String {
        guard !url.hasPrefix("/"), let colon = url.firstIndex(of: ":"), url[colon...].hasPrefix("://") else { return url }
        let afterHost = url[url.index(colon, offsetBy: 3)...]
        guard let slash = afterHost.firstIndex(of: "/") else { return "/" }
        return String(afterHost[slash...])
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    private static let hexDigits = Array("0123456789ABCDEF".unicodeScalars)
    private static func hex(_ nibble: UInt8) -> String { String(hexDigits[Int(nibble)]) }
}
