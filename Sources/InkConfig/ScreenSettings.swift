import InkAPI
import InkCore
import InkDocumentSigning
import InkRender
import InkStorage

/// Which screen the kiosk shows and how (`mode`, `[ui]`, `[signature]`, `[classroom]`, `[api]`,
/// `[limits]` in the config); the kiosk makes the screen from it.
public struct ScreenSettings: Sendable, Equatable {
    public var mode: KioskMode = .draw
    public var text = UIText()
    /// A button's height in millimetres (at least 9).
    public var buttonMM = 12.0
    /// The screen's pixels per inch; nil: from the screen's EDID size (96 if it has none).
    public var dpi: Double? = nil
    public var outbox = "/var/lib/inkkiosk/outbox"
    /// `[signature] encrypt_to`: captures' PNG, SVG and InkML are stored only encrypted to this key.
    public var encryptTo: SealingKey? = nil
    /// `[signature] sign_with`: the device's key and certificate (one PEM file) a PDF's ink is
    /// signed with (PAdES baseline B-B); nil: ink only, no digital signature.
    public var signWith: DeviceSigner? = nil
    /// `[signature] store_plaintext = true`: captures are stored readable. Signature mode needs
    /// this or `encryptTo`: a kiosk never stores signatures in plaintext by default.
    public var storePlaintext = false
    /// Signature mode may start: its captures are encrypted, or plaintext was asked for.
    public var signatureStorageChosen: Bool { encryptTo != nil || storePlaintext }
    public var saveDirectory = "/var/lib/inkkiosk/saved"
    /// How many captures and saves stay on the device, and for how long (`[limits]`).
    public var outboxRetention = Retention(keep: 1000, maxAgeDays: 30)
    public var savesRetention = Retention(keep: 50, maxAgeDays: 180)
    /// Undo steps per page, and RAM for the pictures of pages not on screen (`[limits]`).
    public var undoDepth = Document.defaultUndoDepth
    public var pageCacheMB = 64
    /// The classroom palette, and its width choices (multiples of each tool's width).
    public var palette: [RGBA] = Palette.standard
    public var widths: [Double] = [0.5, 1, 2]
    /// `[classroom] worksheets` and `worksheets_usb`: the folders the Worksheets list shows.
    public var worksheetFolders = ["/var/lib/inkkiosk/worksheets"]
    /// `[limits]`: a worksheet's size and pages at most, and how many files the list shows.
    public var worksheetMaxMB = 32
    public var worksheetMaxPages = 200
    public var worksheetsListed = 60
    /// RAM for the papers of a worksheet's pages around the one shown.
    public var worksheetCacheMB = 24
    /// The tablet's disk for worksheets copied from the USB stick (the oldest opened go first).
    public var worksheetCopiesMB = 256
    /// Seconds poppler may spend on one page before the screen says the worksheet is stuck.
    public var worksheetStuckSeconds = 20.0
    /// The PDF helper's address space (MiB) and CPU time (seconds, over its life; a new one starts after).
    public var worksheetHelperMB = 512
    public var worksheetHelperCPUSeconds = 600
    /// Not in the config: the binary the PDF helper is (the kiosk's own; tests name the built one),
    /// and whether it must have seccomp (false only under user-mode emulation, which refuses filters).
    public var pdfHelperExecutable = "/proc/self/exe"
    public var pdfHelperRequiresSeccomp = true
    public static let defaultAPIAddress = "127.0.0.1:7300"
    /// The local signature API's address ("127.0.0.1:7300", "unix:/run/inkkiosk/api.sock");
    /// nil: no host, the signature screen loops on its own.
    public var api: String? = nil
    /// `[api] allow_remote`: an address other machines reach (not loopback) is allowed; needs `apiTokenFile`.
    public var apiAllowRemote = false
    /// `[api] token_file`: where the bearer token every request must carry is kept; nil: the
    /// default, `api.token` next to the outbox (`apiTokenPath`). On TCP a token is always asked
    /// for (made at the first start when the file is missing) unless `apiTokenNone`; on the
    /// unix socket only when `token_file` is written.
    public var apiTokenFile: String? = nil
    /// `[api] token = "none"`: no token, also on TCP (only loopback; every local program may ask).
    public var apiTokenNone = false
    /// `[api] token_group`: the group a token the kiosk makes is given to (mode 0640); nil: the kiosk's own.
    public var apiTokenGroup: UInt32? = nil
    /// `[api] allowed_hosts`, `allowed_origins`, `socket_users`, `socket_groups`.
    public var apiAccess = APIAccess()
    /// `[api]`'s limits on what one client may cost: connections, sizes, timeouts, long polls;
    /// and `[limits] document_mb`, `documents`, `document_pages` for the host's PDFs.
    public var apiLimits = APILimits()
    /// `[api] documents_dir`: where the host's PDFs (`POST /documents`) are kept; nil: the
    /// default, `documents` next to the outbox (`apiDocumentsPath`).
    public var apiDocumentsDirectory: String? = nil
    /// Where the bearer token is read (or made): `token_file`, else `api.token` in the outbox's
    /// parent directory (`/var/lib/inkkiosk/api.token`, the kiosk's state directory).
    public var apiTokenPath: String { apiTokenFile ?? stateDirectory + "/api.token" }
    /// `documents_dir`, else `documents` in the outbox's parent (`/var/lib/inkkiosk/documents`).
    public var apiDocumentsPath: String { apiDocumentsDirectory ?? stateDirectory + "/documents" }

    /// The outbox's parent directory: the kiosk's state ("" for "/").
    private var stateDirectory: String {
        var parent = outbox
        while parent.count > 1 && parent.hasSuffix("/") { parent.removeLast() }
        parent = parent.lastIndex(of: "/").map { String(parent[..<$0]) } ?? "."
        return parent
    }

    /// Whether the API on `address` asks for a bearer token: on TCP unless `token = "none"`,
    /// on the unix socket when `token_file` is written.
    public func apiNeedsToken(_ address: APIAddress) -> Bool {
        if apiTokenNone { return false }
        if case .tcp = address { return true }
        return apiTokenFile != nil
    }

    /// Seconds a host's request waits for a signature when it names no timeout; nil: forever.
    public var defaultTimeout: Double? = nil
    public init() {}
}
