// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import Glibc
import InkDocument

/// Where a requested signature stands. Only `waiting` changes; the others are final.
/// `interrupted`: the kiosk stopped (a crash, a power cut) before the signature was accepted.
public enum CaptureState: String, Codable, Sendable {
    case waiting, accepted, cancelled, timedOut = "timed-out", interrupted

    public var isFinal: Bool { self != .waiting }
}

/// What the kiosk wrote to the outbox for an accepted signature: `directory` is the capture's
/// own (`OUTBOX/ID`), `png` … `json` the paths `SignatureCapture.write(to:)` returns inside it,
/// `samples` the pen samples kept. `encryptedTo`: the PNG, SVG and InkML are encrypted
/// (`ID.png.hpke`, …) to the X25519 key with this fingerprint (hex SHA-256 of the raw public
/// key); absent when they are plain. `pdf`: the signed document (a request on a document
/// only), inside `directory` like the others, so that acknowledging or retention removes it
/// with the rest (they remove the whole directory).
public struct CaptureFiles: Codable, Sendable, Equatable {
    public var directory: String
    public var png: String
    public var svg: String
    public var inkml: String
    public var json: String
    public var samples: Int
    public var encryptedTo: String?
    public var pdf: String?

    public init(directory: String, png: String, svg: String, inkml: String, json: String, samples: Int,
                encryptedTo: String? = nil, pdf: String? = nil) {
        self.directory = directory; self.png = png; self.svg = svg; self.inkml = inkml; self.json = json
        self.samples = samples; self.encryptedTo = encryptedTo; self.pdf = pdf
    }
}

/// The document a capture signs, as the host sees it in the capture's status.
public typealias CaptureDocument = SignedPlace

/// One signature request as the host sees it (`GET /signatures/{id}`).
public struct CaptureStatus: Codable, Sendable, Equatable {
    public var id: String
    public var state: CaptureState
    public var prompt: String?
    /// Seconds the signer has, counted from `created`; nil: no limit.
    public var timeout: Double?
    /// ISO 8601, UTC, with milliseconds.
    public var created: String
    public var finished: String?
    /// Why it ended when it was not accepted, e.g. "cancelled on screen", "no signature within 60 s".
    public var reason: String?
    /// Nil once the files are gone (the host acknowledged them, or the outbox's retention removed them).
    public var files: CaptureFiles?
    /// When the host acknowledged an accepted capture (`DELETE`), which removed its files.
    public var acknowledged: String?
    /// The document signed; nil for a plain signature request.
    public var document: CaptureDocument?

    public init(id: String, state: CaptureState, prompt: String?, timeout: Double?, created: String,
                finished: String? = nil, reason: String? = nil, files: CaptureFiles? = nil, acknowledged: String? = nil,
                document: CaptureDocument? = nil) {
        self.id = id; self.state = state; self.prompt = prompt; self.timeout = timeout; self.created = created
        self.finished = finished; self.reason = reason; self.files = files; self.acknowledged = acknowledged
        self.document = document
    }

    enum CodingKeys: String, CodingKey { case id, state, prompt, timeout, created, finished, reason, files, acknowledged, document }

    /// Every key is always present (null when unset): a host's parser sees one shape. Only
    /// `document` is left out of a plain request's (hosts that never send documents see no change).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(state, forKey: .state)
        try c.encode(prompt, forKey: .prompt)
        try c.encode(timeout, forKey: .timeout)
        try c.encode(created, forKey: .created)
        try c.encode(finished, forKey: .finished)
        try c.encode(reason, forKey: .reason)
        try c.encode(files, forKey: .files)
        try c.encode(acknowledged, forKey: .acknowledged)
        try c.encodeIfPresent(document, forKey: .document)
    }
}

/// What the kiosk needs to show the signature screen.
public struct CaptureRequest: Sendable, Equatable {
    public var id: String
    public var prompt: String?
    /// The effective limit (the request's, else the desk's default); nil: none.
    public var timeout: Double?
    /// The PDF to show and sign (its file, field or place, review); nil: a plain signature.
    public var document: DocumentToSign?

    public init(id: String, prompt: String?, timeout: Double?, document: DocumentToSign? = nil) {
        self.id = id; self.prompt = prompt; self.timeout = timeout; self.document = document
    }
}

/// From the host side to the kiosk loop, in order.
public enum DeskMessage: Sendable, Equatable {
    case start(CaptureRequest)
    case cancel(id: String)
    case timeout(id: String)

    public var captureID: String {
        switch self {
        case .start(let request): request.id
        case .cancel(let id), .timeout(let id): id
        }
    }
}

/// The reasons the kiosk reports with `finish`, worded for the host's log.
public enum CaptureReason {
    public static let cancelledOnScreen = "cancelled on screen"
    public static let cancelledByHost = "cancelled by host"
    public static func noSignature(within seconds: Double) -> String { "no signature within \(formatSeconds(seconds)) s" }
    public static let interrupted = "the kiosk stopped (crash or power cut) before the signature was accepted: ask again"
}

/// Where the desk keeps what must outlive the process: the kiosk's outbox. A desk without one
/// forgets everything at exit and cannot acknowledge captures.
public protocol CaptureArchive: Sendable {
    /// Finished captures found at start, oldest first: they answer `GET` after a restart.
    var restored: [CaptureStatus] { get }
    /// How many finished captures the desk keeps in memory.
    var historyLimit: Int { get }
    /// A new request, on disk before the host learns its id.
    func started(_ status: CaptureStatus) throws
    /// A capture reached its final state.
    func ended(_ status: CaptureStatus)
    /// The host took an accepted capture: its files go; returns the status without them.
    func acknowledge(_ status: CaptureStatus, at time: String) throws -> CaptureStatus
    /// Returns once every outcome reported so far is written (`ended` may write later).
    func settle()
}

/// The limits the desk and the HTTP API check.
public enum CaptureLimits {
    public static let timeout: ClosedRange<Double> = 1...3600
    public static let promptLength = 200
    /// Finished captures kept for `GET /signatures/{id}`.
    public static let history = 100
}

/// "60", "1.5": seconds as a person writes them.
func formatSeconds(_ seconds: Double) -> String {
    seconds == seconds.rounded() && abs(seconds) < 1e15 ? String(Int64(seconds)) : String(seconds)
}
