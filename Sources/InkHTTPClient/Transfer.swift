// SPDX-License-Identifier: Apache-2.0
import CCurl
import Glibc

/// One libcurl easy handle for one request: its options, its header list and error buffer kept
/// alive for as long as the transfer, all freed in deinit.
final class Transfer {
    private let handle: UnsafeMutableRawPointer
    private var headerList: UnsafeMutablePointer<curl_slist>?
    /// CURLOPT_ERRORBUFFER: libcurl's detailed message for the last failure.
    private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
    let method: String
    let url: String
    let headers = HeaderSink()
    private(set) var code = CURLE_OK

    init(request: HTTPRequest, options: HTTPClient.Options) throws(HTTPError) {
        method = request.method.rawValue
        url = request.url
        try Self.load(url: url, method: method)
        guard let handle = curl_easy_init() else {
            errorBuffer.deallocate()
            throw HTTPError(method: method, url: url, reason: .library("libcurl's curl_easy_init failed"))
        }
        self.handle = handle
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        try set(ik_curl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer))
        try set(ik_curl_setopt_string(handle, CURLOPT_URL, url))
        // http and https only, also after a redirect; a redirect from https never goes to http.
        let redirects = url.lowercased().hasPrefix("https:") ? "https" : "http,https"
        try set(ik_curl_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "http,https"))
        try set(ik_curl_setopt_string(handle, CURLOPT_REDIR_PROTOCOLS_STR, redirects))
        try set(ik_curl_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 1))
        try set(ik_curl_setopt_long(handle, CURLOPT_MAXREDIRS, options.maxRedirects))
        try set(ik_curl_setopt_long(handle, CURLOPT_SSL_VERIFYPEER, 1))
        try set(ik_curl_setopt_long(handle, CURLOPT_SSL_VERIFYHOST, 2))
        if let caFile = options.caFile { try set(ik_curl_setopt_string(handle, CURLOPT_CAINFO, caFile)) }
        try set(ik_curl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(options.connectTimeout)))
        // No signals from libcurl (its DNS timeouts would otherwise use SIGALRM in a threaded process).
        try set(ik_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1))
        try set(ik_curl_setopt_string(handle, CURLOPT_USERAGENT, options.userAgent))
        switch request.method {
        case .get: break
        case .head: try set(ik_curl_setopt_long(handle, CURLOPT_NOBODY, 1))
        case .post, .put, .delete, .propfind: try set(ik_curl_setopt_string(handle, CURLOPT_CUSTOMREQUEST, request.method.rawValue))
        }
        if let body = request.body {
            try body.withUnsafeBufferPointer { (bytes) throws(HTTPError) in
                try set(ik_curl_set_body(handle, bytes.baseAddress ?? UnsafePointer(bitPattern: 1), bytes.count))
            }
        } else if request.method == .put || request.method == .post || request.method == .propfind {
            try set(ik_curl_set_body(handle, UnsafePointer(bitPattern: 1), 0))
        }
        // No "Expect: 100-continue" wait before a body.
        var list = curl_slist_append(nil, "Expect:")
        for header in request.headers {
            guard !header.name.contains(where: { $0 == ":" || $0 == "\r" || $0 == "\n" }),
                  !header.value.contains(where: { $0 == "\r" || $0 == "\n" }) else {
                curl_slist_free_all(list)
                throw HTTPError(method: method, url: url, reason: .library("header \(header.name.debugDescription) is not a valid header"))
            }
            list = curl_slist_append(list, "\(header.name): \(header.value)")
        }
        headerList = list
        try set(ik_curl_setopt_pointer(handle, CURLOPT_HTTPHEADER, UnsafeMutableRawPointer(list)))
    }

    deinit {
        curl_easy_cleanup(handle)
        curl_slist_free_all(headerList)
        errorBuffer.deallocate()
    }

    static func load(url: String, method: String = "GET") throws(HTTPError) {
        var error: UnsafePointer<CChar>?
        guard ik_curl_load(&error) == 0 else {
            throw HTTPError(method: method, url: url, reason: .library(error.map { String(cString: $0) } ?? "libcurl could not be loaded"))
        }
    }

    func setTimeout(_ seconds: Double) throws(HTTPError) {
        try set(ik_curl_setopt_long(handle, CURLOPT_TIMEOUT_MS, Self.milliseconds(seconds)))
    }

    /// A download: from `offset` (a Range), at most `limits.maxBytes` in all, at most its rate,
    /// given up after `stall` seconds below a byte a second; error statuses fail (their bodies are not the file's).
    func prepareDownload(from offset: Int64, limits: DownloadLimits, stall: Double) throws(HTTPError) {
        if offset > 0 { try set(ik_curl_setopt_offset(handle, CURLOPT_RESUME_FROM_LARGE, curl_off_t(offset))) }
        try set(ik_curl_setopt_offset(handle, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(max(limits.maxBytes - offset, 0))))
        if limits.bytesPerSecond > 0 {
            try set(ik_curl_setopt_offset(handle, CURLOPT_MAX_RECV_SPEED_LARGE, curl_off_t(limits.bytesPerSecond)))
        }
        try set(ik_curl_setopt_long(handle, CURLOPT_LOW_SPEED_LIMIT, 1))
        try set(ik_curl_setopt_long(handle, CURLOPT_LOW_SPEED_TIME, max(Int(stall.rounded(.up)), 1)))
        try set(ik_curl_setopt_long(handle, CURLOPT_FAILONERROR, 1))
    }

    /// Runs the transfer, the body going to `sink`: nil when it completed, else why not.
    func perform(into sink: BodySink) -> HTTPError? {
        let context = Unmanaged.passUnretained(sink).toOpaque()
        let headerContext = Unmanaged.passUnretained(headers).toOpaque()
        let write: ik_curl_data_callback = { data, size, count, context in
            guard let context else { return 0 }
            let sink = Unmanaged<BodySink>.fromOpaque(context).takeUnretainedValue()
            return sink.accept(UnsafeRawBufferPointer(start: data, count: size * count)) ? size * count : 0
        }
        let header: ik_curl_data_callback = { data, size, count, context in
            guard let context else { return 0 }
            Unmanaged<HeaderSink>.fromOpaque(context).takeUnretainedValue().line(UnsafeRawBufferPointer(start: data, count: size * count))
            return size * count
        }
        code = ik_curl_set_write(handle, write, context)
        if code == CURLE_OK { code = ik_curl_set_header(handle, header, headerContext) }
        if code == CURLE_OK { code = curl_easy_perform(handle) }
        return code == CURLE_OK ? nil : error(transferReason())
    }

    /// The last response's status (0 before any).
    var status: Int {
        var value = 0
        _ = ik_curl_info_long(handle, CURLINFO_RESPONSE_CODE, &value)
        return value
    }

    func error(_ reason: HTTPError.Reason) -> HTTPError { HTTPError(method: method, url: url, reason: reason) }

    private func transferReason() -> HTTPError.Reason {
        let name = String(cString: curl_easy_strerror(code))
        return .transfer(code: Int(code.rawValue), name: name, message: String(cString: errorBuffer))
    }

    private func set(_ result: CURLcode) throws(HTTPError) {
        guard result == CURLE_OK else {
            code = result
            throw error(.library("libcurl refused an option: \(String(cString: curl_easy_strerror(result)))"))
        }
    }

    private static func milliseconds(_ seconds: Double) -> Int { Int((seconds * 1000).rounded()) }
}

/// Where a transfer's body goes; false from `accept` stops the transfer.
class BodySink {
    func accept(_ bytes: UnsafeRawBufferPointer) -> Bool { false }
}

/// A body in memory, up to a limit.
final class MemorySink: BodySink {
    let limit: Int
    private(set) var bytes: [UInt8] = []
    private(set) var overflowed = false

    init(limit: Int) { self.limit = limit }

    override func accept(_ chunk: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count + chunk.count <= limit else { overflowed = true; return false }
        bytes.append(contentsOf: chunk)
        return true
    }
}

/// A download appended to its file, up to a limit of the file's whole size.
final class FileSink: BodySink {
    let file: DownloadFile
    let limit: Int64
    private(set) var overflowed = false
    private(set) var failure: HTTPError.Reason?

    init(file: DownloadFile, limit: Int64) { self.file = file; self.limit = limit }

    override func accept(_ chunk: UnsafeRawBufferPointer) -> Bool {
        guard file.size + Int64(chunk.count) <= limit else { overflowed = true; return false }
        if let errno = file.append(chunk) {
            failure = .file(operation: "write", path: file.path, errno: errno)
            return false
        }
        return true
    }
}

/// The response's header lines: the last response's only (a redirect's are dropped).
final class HeaderSink {
    private(set) var fields: [String: String] = [:]

    func line(_ raw: UnsafeRawBufferPointer) {
        let text = String(decoding: raw, as: UTF8.self)
        if text.hasPrefix("HTTP/") { fields = [:]; return }
        guard let colon = text.firstIndex(of: ":") else { return }
        let name = text[..<colon].lowercased()
        let value = text[text.index(after: colon)...].trimmingCharacters(in: " \t\r\n")
        fields[name] = value
    }
}

extension Substring {
    func trimmingCharacters(in set: String) -> String {
        var s = self
        while let c = s.first, set.contains(c) { s.removeFirst() }
        while let c = s.last, set.contains(c) { s.removeLast() }
        return String(s)
    }
}
