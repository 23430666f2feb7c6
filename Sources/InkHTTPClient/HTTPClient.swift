// SPDX-License-Identifier: Apache-2.0
import CCurl
import FoundationEssentials
import Glibc

/// HTTP(S) requests through libcurl, one blocking transfer at a time per call (a thread may make
/// its own calls). TLS is always verified (peer and host name); `caFile` replaces the system's CAs.
/// Every body held in memory, every download and every wait has a bound.
public struct HTTPClient: Sendable {
    public struct Options: Sendable {
        /// A PEM file of the CAs to trust instead of the system's (a private fleet server, tests).
        public var caFile: String?
        /// Seconds to connect (TCP and TLS).
        public var connectTimeout: Double = 30
        /// Seconds a whole request may take (not a download: see `stallTimeout`).
        public var timeout: Double = 60
        /// Seconds a download may go without a byte before it is given up.
        public var stallTimeout: Double = 60
        /// Bytes of a response body kept in memory; more ends the request (`HTTPError.Reason.tooLarge`).
        public var maxResponseBytes = 1 << 20
        /// Redirects followed, to https only (http too when the first URL was http).
        public var maxRedirects = 5
        public var userAgent = "inkkiosk"

        public init() {}
    }

    public let options: Options

    public init(_ options: Options = Options()) { self.options = options }

    /// Sends one request and returns the answer whatever its status (a 404 is an answer, not an error);
    /// throws when there is none (refused, TLS, timeout) or its body is over `maxResponseBytes`.
    public func send(_ request: HTTPRequest) throws(HTTPError) -> HTTPResponse {
        let transfer = try Transfer(request: request, options: options)
        let sink = MemorySink(limit: options.maxResponseBytes)
        try transfer.setTimeout(options.timeout)
        let outcome = transfer.perform(into: sink)
        if sink.overflowed { throw transfer.error(.tooLarge(limit: Int64(options.maxResponseBytes))) }
        if let failure = outcome { throw failure }
        return HTTPResponse(status: transfer.status, headers: transfer.headers.fields, body: sink.bytes)
    }

    /// GET, PUT or POST with a JSON body (or none), the answer's JSON decoded. A status outside
    /// 200…299 is an error holding the first bytes of the answer.
    public func json<Answer: Decodable>(_ method: HTTPMethod, _ url: String, headers: [HTTPHeader] = [],
                                        body: (some Encodable)? = Optional<Int>.none,
                                        as type: Answer.Type) throws(HTTPError) -> Answer {
        let response = try sendJSON(method, url, headers: headers, body: body)
        do {
            return try JSONDecoder().decode(Answer.self, from: Data(response.body))
        } catch {
            throw HTTPError(method: method.rawValue, url: url, reason: .undecodable("\(error)", excerpt: response.excerpt))
        }
    }

    /// As `json` for an answer whose body does not matter (its status still does).
    @discardableResult
    public func sendJSON(_ method: HTTPMethod, _ url: String, headers: [HTTPHeader] = [],
                         body: (some Encodable)? = Optional<Int>.none) throws(HTTPError) -> HTTPResponse {
        var request = HTTPRequest(method, url, headers: headers + [HTTPHeader("Accept", "application/json")])
        if let body {
            do {
                request.body = Array(try JSONEncoder().encode(body))
            } catch {
                throw HTTPError(method: method.rawValue, url: url, reason: .unencodable("\(error)"))
            }
            request.headers.append(HTTPHeader("Content-Type", "application/json"))
        }
        let response = try send(request)
        guard (200...299).contains(response.status) else {
            throw HTTPError(method: method.rawValue, url: url, reason: .status(response.status, excerpt: response.excerpt))
        }
        return response
    }

    /// Downloads `url` into `path`, resuming a partial file: its size is asked for as a Range
    /// (a server that ignores ranges sends it all, and the file starts over). The file is created
    /// with mode 0600; what is on disk stays there after an error, for the next call to resume.
    public func download(_ url: String, headers: [HTTPHeader] = [], to path: String,
                         limits: DownloadLimits) throws(HTTPError) -> DownloadResult {
        let file = try DownloadFile(path: path, url: url)
        defer { file.close() }
        if let expected = limits.expectedBytes {
            if file.size == expected { return DownloadResult(bytes: expected, resumedFrom: expected) }
            if file.size > expected { try file.truncate() }
        }
        if file.size > limits.maxBytes { try file.truncate() }
        var restarted = false
        while true {
            let resumedFrom = file.size
            let transfer = try Transfer(request: HTTPRequest(.get, url, headers: headers), options: options)
            try transfer.prepareDownload(from: resumedFrom, limits: limits, stall: options.stallTimeout)
            let sink = FileSink(file: file, limit: limits.maxBytes)
            let outcome = transfer.perform(into: sink)
            if let failure = sink.failure { throw HTTPError(method: "GET", url: url, reason: failure) }
            if sink.overflowed || transfer.code == CURLE_FILESIZE_EXCEEDED {
                throw transfer.error(.tooLarge(limit: limits.maxBytes))
            }
            if transfer.code == CURLE_RANGE_ERROR, !restarted, resumedFrom > 0 {
                // The server does not do ranges: start over from the first byte, once.
                try file.truncate()
                restarted = true
                continue
            }
            if let failure = outcome { throw failure }
            if let expected = limits.expectedBytes, file.size != expected {
                throw transfer.error(.incomplete(got: file.size, expected: expected))
            }
            return DownloadResult(bytes: file.size, resumedFrom: resumedFrom)
        }
    }

    /// libcurl's version line ("libcurl/7.88.1 OpenSSL/3.0.17 zlib/1.2.13 …"), loading it first.
    public static func libraryVersion() throws(HTTPError) -> String {
        try Transfer.load(url: "")
        return String(cString: ik_curl_version())
    }
}

public enum HTTPMethod: String, Sendable {
    case get = "GET", put = "PUT", post = "POST", delete = "DELETE", head = "HEAD"
    /// WebDAV's (RFC 4918): a folder's listing and properties.
    case propfind = "PROPFIND"
}

public struct HTTPHeader: Sendable, Equatable {
    public var name: String
    public var value: String
    public init(_ name: String, _ value: String) { self.name = name; self.value = value }
}

public struct HTTPRequest: Sendable {
    public var method: HTTPMethod
    public var url: String
    public var headers: [HTTPHeader]
    public var body: [UInt8]?

    public init(_ method: HTTPMethod, _ url: String, headers: [HTTPHeader] = [], body: [UInt8]? = nil) {
        self.method = method; self.url = url; self.headers = headers; self.body = body
    }
}

public struct HTTPResponse: Sendable {
    public var status: Int
    /// Names in lower case; a repeated header keeps its last value.
    public var headers: [String: String]
    public var body: [UInt8]

    /// The body's first 300 bytes as text, for an error message.
    public var excerpt: String {
        let text = String(decoding: body.prefix(300), as: UTF8.self)
        return body.count > 300 ? text + "…" : text
    }
}

public struct DownloadLimits: Sendable {
    /// The file may not grow beyond this many bytes (what a partial file holds counts).
    public var maxBytes: Int64
    /// Bytes per second at most; 0: as fast as it comes.
    public var bytesPerSecond: Int64
    /// The size the file must have at the end (a server's promise), if known.
    public var expectedBytes: Int64?

    public init(maxBytes: Int64, bytesPerSecond: Int64 = 0, expectedBytes: Int64? = nil) {
        self.maxBytes = maxBytes; self.bytesPerSecond = bytesPerSecond; self.expectedBytes = expectedBytes
    }
}

public struct DownloadResult: Sendable, Equatable {
    /// The file's size at the end.
    public var bytes: Int64
    /// What the file held before this call (0: a fresh download).
    public var resumedFrom: Int64
}
