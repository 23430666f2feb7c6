// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import InkHTTPClient

/// A folder's listing: its own ETag (it changes when anything in it does, on Nextcloud and
/// wsgidav alike) and what is directly in it.
public struct DAVListing: Sendable, Equatable {
    public var folderETag: String?
    public var entries: [DAVResource]
}

/// What a PUT may replace: nothing (a first hand-in), or exactly the version we last saw.
public enum PutCondition: Sendable, Equatable {
    /// `If-None-Match: *`: the name must be free.
    case mustNotExist
    /// `If-Match: ETAG`: the file must still be the one this ETag names.
    case mustMatch(String)
}

public enum PutOutcome: Sendable, Equatable {
    /// The server has the file; its new ETag when it said one.
    case stored(etag: String?)
    /// 412: the condition did not hold (the name is taken, or the file changed since).
    case preconditionFailed
}

/// Why a WebDAV request did not do what it should; whether trying again later may help.
public enum DAVError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No answer, or one with a status that is not the request's (HTTPError says which).
    case http(HTTPError)
    /// 401: the password is wrong or was revoked (the device's app password deleted by an admin).
    case unauthorized(url: String)
    /// 404: the folder or file is not there (or not shared with this device).
    case notFound(url: String)
    /// The answer's XML could not be used.
    case answer(url: String, DAVAnswerError)

    public var isTemporary: Bool {
        switch self {
        case .http(let error): return error.isTemporary
        case .unauthorized, .notFound, .answer: return false
        }
    }

    public var description: String {
        switch self {
        case .http(let error): return "\(error)"
        case .unauthorized(let url): return "\(url): 401, the server does not accept this device's password (revoked?)"
        case .notFound(let url): return "\(url): 404, not on the server (or not shared with this device)"
        case .answer(let url, let problem): return "\(url): \(problem)"
        }
    }
}

/// The few WebDAV requests the classroom needs, on one user's (or one share's) root, over the
/// HTTP client on libcurl; blocking, for the classroom agent's own thread.
public struct WebDAVClient: Sendable {
    /// The WebDAV root, without a trailing slash: `https://cloud.school.example/remote.php/dav/files/tablet-07`
    /// (an account) or `https://cloud.school.example/public.php/webdav` (a share link).
    public let root: String
    let http: HTTPClient
    let authorization: HTTPHeader

    /// What PROPFIND asks for: nothing more than a poll needs.
    static let propfindBody = Array("""
        <?xml version="1.0" encoding="utf-8"?>
        <d:propfind xmlns:d="DAV:"><d:prop><d:resourcetype/><d:getetag/><d:getcontentlength/><d:getlastmodified/></d:prop></d:propfind>
        """.utf8)

    public init(root: String, user: String, password: String, http: HTTPClient) {
        var trimmed = root
        while trimmed.hasSuffix("/") { trimmed.removeLast() }
        self.root = trimmed
        self.http = http
        let token = Data("\(user):\(password)".utf8).base64EncodedString()
        authorization = HTTPHeader("Authorization", "Basic \(token)")
    }

    /// The URL of `path` under the root ("Class 7b/Hand-out/Maps.pdf"), each segment encoded.
    public func url(_ path: String) -> String {
        var relative = Substring(path)
        while relative.hasPrefix("/") { relative = relative.dropFirst() }
        return relative.isEmpty ? root + "/" : root + "/" + PercentEncoding.encodePath(String(relative))
    }

    /// PROPFIND, Depth 1: the folder and what is directly in it (at most `maxEntries`).
    public func list(_ folder: String, maxEntries: Int) throws(DAVError) -> DAVListing {
        var target = url(folder)
        if !target.hasSuffix("/") { target += "/" }
        let resources = try propfind(target, depth: "1", maxEntries: maxEntries + 1)
        // The folder itself comes back too (first on every server seen, but not promised): the
        // entry whose path is the folder's; a file's entry never ends with a slash.
        let folderPath = PercentEncoding.decodePath(PercentEncoding.urlPath(target)) ?? ""
        var folderETag: String?
        var entries: [DAVResource] = []
        for resource in resources {
            if Self.samePath(resource.path, folderPath) {
                folderETag = resource.etag
            } else {
                entries.append(resource)
            }
        }
        return DAVListing(folderETag: folderETag, entries: entries)
    }

    /// PROPFIND, Depth 0: the folder's own ETag only, the cheapest "has anything changed?".
    public func etag(of folder: String) throws(DAVError) -> String? {
        var target = url(folder)
        if !target.hasSuffix("/") { target += "/" }
        return try propfind(target, depth: "0", maxEntries: 1).first?.etag
    }

    /// PROPFIND, Depth 0, of a file: its ETag.
    public func fileETag(_ path: String) throws(DAVError) -> String? {
        try propfind(url(path), depth: "0", maxEntries: 1).first?.etag
    }

    /// GET into `file` (mode 0600, resumed if partly there).
    public func download(_ path: String, to file: String, maxBytes: Int64) throws(DAVError) -> DownloadResult {
        let target = url(path)
        do {
            return try http.download(target, headers: [authorization], to: file, limits: DownloadLimits(maxBytes: maxBytes))
        } catch {
            throw Self.classify(error, url: target)
        }
    }

    /// GET into memory (at most the client's `maxResponseBytes`), with the file's ETag.
    public func get(_ path: String) throws(DAVError) -> (bytes: [UInt8], etag: String?) {
        let target = url(path)
        let response: HTTPResponse
        do {
            response = try http.send(HTTPRequest(.get, target, headers: [authorization]))
        } catch {
            throw Self.classify(error, url: target)
        }
        try Self.check(response, url: target, method: "GET", expected: 200...200)
        return (response.body, DAVResource.quotedETag(response.headers["etag"]))
    }

    /// PUT `bytes` at `path` if `condition` holds.
    public func put(_ bytes: [UInt8], to path: String, contentType: String, condition: PutCondition) throws(DAVError) -> PutOutcome {
        let target = url(path)
        var headers = [authorization, HTTPHeader("Content-Type", contentType)]
        switch condition {
        case .mustNotExist: headers.append(HTTPHeader("If-None-Match", "*"))
        case .mustMatch(let etag): headers.append(HTTPHeader("If-Match", etag))
        }
        let response: HTTPResponse
        do {
            response = try http.send(HTTPRequest(.put, target, headers: headers, body: bytes))
        } catch {
            throw Self.classify(error, url: target)
        }
        if response.status == 412 { return .preconditionFailed }
        try Self.check(response, url: target, method: "PUT", expected: 200...204)
        // Nextcloud names the new version in OC-ETag too; the standard header first.
        return .stored(etag: DAVResource.quotedETag(response.headers["etag"] ?? response.headers["oc-etag"]))
    }

    private func propfind(_ target: String, depth: String, maxEntries: Int) throws(DAVError) -> [DAVResource] {
        let request = HTTPRequest(.propfind, target, headers: [
            authorization, HTTPHeader("Depth", depth), HTTPHeader("Content-Type", "application/xml; charset=utf-8"),
        ], body: Self.propfindBody)
        let response: HTTPResponse
        do {
            response = try http.send(request)
        } catch {
            throw Self.classify(error, url: target)
        }
        try Self.check(response, url: target, method: "PROPFIND", expected: 207...207)
        do {
            return try DAVMultistatus.parse(response.body, maxResources: maxEntries)
        } catch {
            throw .answer(url: target, error)
        }
    }

    private static func check(_ response: HTTPResponse, url: String, method: String, expected: ClosedRange<Int>) throws(DAVError) {
        switch response.status {
        case expected: return
        case 401: throw .unauthorized(url: url)
        case 404: throw .notFound(url: url)
        default: throw .http(HTTPError(method: method, url: url, reason: .status(response.status, excerpt: response.excerpt)))
        }
    }

    private static func classify(_ error: HTTPError, url: String) -> DAVError {
        if case .status(let status, _) = error.reason {
            if status == 401 { return .unauthorized(url: url) }
            if status == 404 { return .notFound(url: url) }
        }
        // A download's 401/404 comes back as libcurl's "HTTP returned error" (CURLE_HTTP_RETURNED_ERROR).
        if case .transfer(let code, _, let message) = error.reason, code == 22 {
            if message.contains(" 401") { return .unauthorized(url: url) }
            if message.contains(" 404") { return .notFound(url: url) }
        }
        return .http(error)
    }

    /// Two paths naming the same folder, whatever their trailing slashes.
    static func samePath(_ a: String, _ b: String) -> Bool {
        func trimmed(_ s: String) -> Substring { var t = Substring(s); while t.hasSuffix("/") { t = t.dropLast() }; return t }
        return trimmed(a) == trimmed(b)
    }
}
