// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import Glibc
import InkCore
import NIOHTTP1

/// One whole request as the routes see it: the body read in full (it is small, and its limit was
/// checked before it was read).
struct APIRequest: Sendable {
    var method: HTTPMethod
    /// Percent-decoded, without the query.
    var path: String
    var query: [(name: String, value: String)]
    var headers: HTTPHeaders
    var body: Data

    /// Nil when the target is not an origin-form path or its escapes are broken.
    init?(head: HTTPRequestHead, body: Data) {
        let target = head.uri
        guard target.hasPrefix("/") else { return nil }
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        guard let path = Self.decoded(parts[0]) else { return nil }
        var query: [(String, String)] = []
        if parts.count == 2 {
            for item in parts[1].split(separator: "&") {
                let pair = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard let name = Self.decoded(pair[0]), let value = pair.count == 2 ? Self.decoded(pair[1]) : "" else { return nil }
                query.append((name, value))
            }
        }
        self.method = head.method
        self.path = path
        self.query = query
        self.headers = head.headers
        self.body = body
    }

    func query(_ name: String) -> String? { query.first { $0.name == name }?.value }

    /// Percent-decoded; nil for a broken escape. Most targets have none, and decoding is costly.
    private static func decoded(_ text: Substring) -> String? {
        text.contains("%") ? percentDecoded(text) : String(text)
    }

    /// `%XX` escapes decoded into bytes, which must be UTF-8 (as Foundation's
    /// removingPercentEncoding): nil for a '%' without two hex digits or bytes that are not text.
    static func percentDecoded(_ text: Substring) -> String? {
        let bytes = Array(text.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            if bytes[i] == UInt8(ascii: "%") {
                guard i + 2 < bytes.count,
                      let hi = hexDigitValue(bytes[i + 1]), let lo = hexDigitValue(bytes[i + 2]) else { return nil }
                out.append(hi << 4 | lo)
                i += 3
            } else {
                out.append(bytes[i])
                i += 1
            }
        }
        return String(validating: out, as: UTF8.self)
    }
}

/// An answer: status, headers, body.
struct APIResponse: Sendable {
    var status: HTTPResponseStatus
    var headers: [(String, String)] = []
    var body = Data()

    static func json(_ status: HTTPResponseStatus, _ value: some Encodable) -> APIResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        var body = (try? encoder.encode(value)) ?? Data(#"{"error": "the answer could not be encoded"}"#.utf8)
        body.append(0x0A)   // a line end, so that curl's output ends cleanly
        return APIResponse(status: status, headers: [("Content-Type", "application/json"), ("Cache-Control", "no-store")], body: body)
    }

    /// `{"error": message}`: what every refusal carries.
    static func error(_ status: HTTPResponseStatus, _ message: String) -> APIResponse {
        json(status, ["error": message])
    }

    /// The whole response as bytes, for the answers the connection gives before (or instead of)
    /// the HTTP codec: 503 at the connection limit, 408, 414, 431. Always closes the connection.
    func serialized() -> [UInt8] {
        var text = "HTTP/1.1 \(status.code) \(status.reasonPhrase)\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        text += "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        return Array(text.utf8) + Array(body)
    }
}
