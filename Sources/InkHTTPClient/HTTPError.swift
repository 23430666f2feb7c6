// SPDX-License-Identifier: Apache-2.0
import InkCore

/// Why a request failed, with the method and URL it was for; libcurl's own code and words when
/// the transfer failed, so that a log line says what a technician would look up.
public struct HTTPError: Error, CustomStringConvertible, Sendable, Equatable {
    public enum Reason: Sendable, Equatable {
        /// libcurl failed: its CURLcode, its name for it and its detailed message.
        case transfer(code: Int, name: String, message: String)
        /// An answer with this status (requests that want 2xx), and the start of its body.
        case status(Int, excerpt: String)
        /// A body or a download over its limit, in bytes.
        case tooLarge(limit: Int64)
        /// A download that ended short of the size the server promised.
        case incomplete(got: Int64, expected: Int64)
        /// A file of the download: what was tried on it, and errno.
        case file(operation: String, path: String, errno: Int32)
        /// libcurl could not be loaded or initialised.
        case library(String)
        /// An answer that is not the JSON expected, and the start of its body.
        case undecodable(String, excerpt: String)
        case unencodable(String)
    }

    public var method: String
    public var url: String
    public var reason: Reason

    public init(method: String, url: String, reason: Reason) {
        self.method = method; self.url = url; self.reason = reason
    }

    /// A connection that may work later (refused, timed out, a 5xx, a 429), as against one that will not.
    public var isTemporary: Bool {
        switch reason {
        case .transfer, .incomplete, .library: return true
        case .status(let status, _): return status >= 500 || status == 429 || status == 408
        case .file, .tooLarge, .undecodable, .unencodable: return false
        }
    }

    public var description: String {
        let what: String
        switch reason {
        case .transfer(let code, let name, let message):
            what = "curl error \(code) (\(name))" + (message.isEmpty || message == name ? "" : ": \(message)")
        case .status(let status, let excerpt):
            what = "HTTP \(status)" + (excerpt.isEmpty ? "" : ": \(excerpt.replacingNewlines())")
        case .tooLarge(let limit):
            what = "larger than the limit of \(limit) bytes"
        case .incomplete(let got, let expected):
            what = "ended after \(got) of \(expected) bytes"
        case .file(let operation, let path, let errno):
            what = "cannot \(operation) \(path): \(Errno.describe(errno))"
        case .library(let message):
            what = message
        case .undecodable(let problem, let excerpt):
            what = "the answer is not the JSON expected (\(problem)): \(excerpt.replacingNewlines())"
        case .unencodable(let problem):
            what = "the body could not be encoded: \(problem)"
        }
        return "\(method) \(url): \(what)"
    }
}

extension String {
    func replacingNewlines() -> String {
        String(map { $0 == "\n" || $0 == "\r" ? " " : $0 })
    }
}
