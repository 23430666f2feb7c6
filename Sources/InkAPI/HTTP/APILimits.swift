// SPDX-License-Identifier: Apache-2.0
import InkDocument

/// What one client may cost the kiosk: `[api]`'s limits. Every field has a default that a POS
/// integration never meets, and a range the config checks.
public struct APILimits: Sendable, Equatable {
    /// Connections open at once; one more is answered 503 and closed at once.
    public var maxConnections = 256
    /// Seconds a client has to send a whole request (line, headers, body), counted from its
    /// first byte, or from the connection's start for a new one: else 408 and the connection closes.
    public var requestTimeout = 10.0
    /// Seconds a kept-alive connection may wait for its next request.
    public var idleTimeout = 30.0
    /// Bytes of the request line (`GET /path HTTP/1.1`): longer is 414.
    public var maxRequestLine = 8 * 1024
    /// Bytes of the request line and headers together: more is 431.
    public var maxHeaderBytes = 16 * 1024
    /// Bytes of a body: a longer Content-Length is 413 before the body is read.
    public var maxBodyBytes = 16 * 1024
    /// Connections open at once from one client (its IP address; its user on the unix socket).
    public var maxConnectionsPerClient = 64
    /// Wrong bearer tokens a client may send within `authFailureWindow` seconds; then it is
    /// answered 429 for that long, whatever it sends.
    public var authFailures = 5
    public var authFailureWindow = 10.0
    /// Clients whose wrong tokens are remembered at once (the oldest are forgotten first).
    public var authClientsTracked = 1024
    /// Long polls (`?wait=`) held at once; one more is 503.
    public var maxWaits = 32
    /// Seconds a long poll may hold its connection; a longer `?wait=` is cut to this.
    public var longestWait = 60.0
    /// `[limits] document_mb`: bytes of an uploaded PDF (`POST /documents`), counted as they
    /// come; a longer Content-Length is 413 before the body is read.
    public var maxDocumentBytes = 16 << 20
    /// `[limits] documents`: PDFs kept at once; the oldest not in use goes for a new one.
    public var maxDocuments = 16
    /// `[limits] document_pages`: pages of an uploaded PDF.
    public var maxDocumentPages = 200
    /// `[limits] document_objects`, `document_inflate_mb`, `document_seconds`: the work the PDF
    /// reader may spend on one upload (values parsed, bytes inflated, time) before it refuses it
    /// (422): a crafted file cannot hold an upload place for minutes or take more memory than
    /// this many values (50–200 bytes each while the file is read: 40 MB at most; Valgrind's
    /// 397-page manual has 39 000).
    public var maxDocumentObjects = 200_000
    public var maxDocumentInflatedBytes = 64 << 20
    public var maxDocumentSeconds = 10.0

    /// What the reader may spend on one uploaded document.
    public var documentReadLimits: PDFReadLimits {
        PDFReadLimits(maxPages: maxDocumentPages, maxValues: maxDocumentObjects, maxInflatedBytes: maxDocumentInflatedBytes,
                      maxSeconds: maxDocumentSeconds)
    }

    public init() {}

    /// The ranges the config allows. The head limits stay below the HTTP decoder's own 80 KiB.
    public static let connectionsRange = 1...4096
    public static let requestTimeoutRange = 1.0...300
    public static let idleTimeoutRange = 1.0...3600
    public static let requestLineRange = 256...65_536
    public static let headerBytesRange = 1024...65_536
    public static let bodyBytesRange = 1024...1_048_576
    public static let waitsRange = 1...1024
    public static let perClientRange = 1...4096
    public static let authFailuresRange = 1...1000
    public static let authWindowRange = 1.0...3600
    public static let authClientsRange = 16...1_000_000
    public static let longestWaitRange = 1.0...600
    /// MiB of one document (`document_mb`), documents kept, and pages of one.
    public static let documentMBRange = 1...256
    public static let documentsRange = 1...1000
    public static let documentPagesRange = 1...10_000
    /// The reader's budget for one document: values parsed, MiB inflated, seconds.
    public static let documentObjectsRange = 10_000...100_000_000
    public static let documentInflateMBRange = 1...4096
    public static let documentSecondsRange = 1.0...600
}
