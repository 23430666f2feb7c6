// SPDX-License-Identifier: Apache-2.0
import InkAPI
import InkClassroom
import InkCore
import InkDocument
import InkDocumentSigning
import InkRender
import InkStorage

/// Which screen the kiosk shows and how (`mode`, `[ui]`, `[signature]`, `[classroom]`, `[api]`,
/// `[limits]` in the config); the kiosk makes the screen from it. Each concern is a struct of its
/// own; this only puts them together.
public struct ScreenSettings: Sendable, Equatable {
    public var mode: KioskMode = .draw
    public var look = ScreenLook()
    public var notebook = NotebookLimits()
    public var capture = CaptureSettings()
    public var worksheets = WorksheetSettings()
    public var pdfHelper = PDFHelperSettings()
    public var api = APISettings()
    /// `[cloud]`: the school's cloud (the classroom's Hand in, the agent's folders); off unless set.
    public var cloud = CloudSettings()

    /// Where the API's bearer token is read (or made): `token_file`, else `api.token` in the
    /// kiosk's state directory (`/var/lib/inkkiosk/api.token`).
    public var apiTokenPath: String { api.tokenFile ?? capture.stateDirectory + "/api.token" }
    /// `documents_dir`, else `documents` in the state directory (`/var/lib/inkkiosk/documents`).
    public var apiDocumentsPath: String { api.documentsDirectory ?? capture.stateDirectory + "/documents" }

    public init() {}
}

/// How the screens look (`[ui]`; `[classroom] palette` and `widths`).
public struct ScreenLook: Sendable, Equatable {
    public var text = UIText()
    /// A button's height in millimetres (at least 9).
    public var buttonMM = 12.0
    /// The screen's pixels per inch; nil: from the screen's EDID size (96 if it has none).
    public var dpi: Double? = nil
    /// The classroom palette, and its width choices (multiples of each tool's width).
    public var palette: [RGBA] = Palette.standard
    public var widths: [Double] = [0.5, 1, 2]

    public init() {}
}

/// Undo steps per page, and RAM for the pictures of pages not on screen (`[limits]`).
public struct NotebookLimits: Sendable, Equatable {
    public var undoDepth = Document.defaultUndoDepth
    public var pageCacheMB = 2

    public init() {}
}

/// Where signatures and pupils' saves go, and how they are kept (`[signature]`,
/// `[classroom] save_dir`, `[limits]`'s `outbox_*` and `saves_*`).
public struct CaptureSettings: Sendable, Equatable {
    public var outbox = "/var/lib/inkkiosk/outbox"
    /// `[signature] encrypt_to`: captures' PNG, SVG and InkML are stored only encrypted to this key.
    public var encryptTo: SealingKey? = nil
    /// `[signature] sign_with`: the device's key and certificate (one PEM file) a PDF's ink is
    /// signed with (PAdES baseline B-B); nil: ink only, no digital signature.
    public var signWith: DeviceSigner? = nil
    /// `[signature] store_plaintext = true`: captures are stored readable. Signature mode needs
    /// this or `encryptTo`: a kiosk never stores signatures in plaintext by default.
    public var storePlaintext = false
    /// `[signature] document_lock`: what the device's signature forbids later revisions of a
    /// signed PDF to change (needs `signWith`).
    public var documentLock = DocumentLock.none
    /// `[signature] min_review`: the least a signer reads of a host's document before Sign.
    public var minReview = DocumentToSign.Review.none
    /// `[signature] keep_signed_pdf`: a signed PDF is written to the outbox with the capture;
    /// false: it is only held in memory for the host to fetch (`SignatureDesk`).
    public var keepSignedPDF = true
    /// What the API applies to every request on a document.
    public var documentPolicy: DocumentPolicy { DocumentPolicy(minReview: minReview, lock: documentLock) }
    /// Signature mode may start: its captures are encrypted, or plaintext was asked for.
    public var signatureStorageChosen: Bool { encryptTo != nil || storePlaintext }
    public var saveDirectory = "/var/lib/inkkiosk/saved"
    /// How many captures and saves stay on the device, and for how long (`[limits]`).
    public var outboxRetention = Retention(keep: 1000, maxAgeDays: 30)
    public var savesRetention = Retention(keep: 50, maxAgeDays: 180)

    /// The outbox's parent directory: the kiosk's state ("" for "/").
    public var stateDirectory: String {
        var parent = outbox
        while parent.count > 1 && parent.hasSuffix("/") { parent.removeLast() }
        parent = parent.lastIndex(of: "/").map { String(parent[..<$0]) } ?? "."
        return parent
    }

    public init() {}
}

/// The classroom's worksheets (`[classroom] worksheets`, `worksheets_usb`; `[limits]`). The size
/// and page limits hold for a host's documents in signature mode too.
public struct WorksheetSettings: Sendable, Equatable {
    /// The folders the Worksheets list shows.
    public var folders = ["/var/lib/inkkiosk/worksheets"]
    /// A worksheet's size and pages at most, and how many files the list shows.
    public var maxMB = 32
    public var maxPages = 200
    public var listed = 60
    /// RAM for the papers of a worksheet's pages around the one shown.
    public var cacheMB = 24
    /// The tablet's disk for worksheets copied from the USB stick (the oldest opened go first).
    public var copiesMB = 256

    public init() {}
}

/// The PDF helper that reads worksheets and a host's documents (`[limits] worksheet_helper_*`,
/// `worksheet_stuck_seconds`, `worksheet_save_mb`; `[pdf_helper]`).
public struct PDFHelperSettings: Sendable, Equatable {
    /// Seconds poppler may spend on one page before the screen says the worksheet is stuck.
    public var stuckSeconds = 20.0
    /// The helper's address space (MiB) and CPU time (seconds, over its life; a new one starts after).
    public var memoryMB = 512
    public var cpuSeconds = 600
    /// The largest file it writes, MiB (`[limits] worksheet_save_mb`).
    public var fileMB = 256
    /// The user and group it becomes when the kiosk runs as root (`[pdf_helper] uid`, `gid`).
    public var uid: UInt32 = 65534
    public var gid: UInt32 = 65534
    /// Whether it runs as the kiosk's own user on a kernel without Landlock (`[pdf_helper] without_landlock`).
    public var withoutLandlock = WithoutLandlock.refuse
    public enum WithoutLandlock: String, CaseIterable, Sendable { case refuse, allow }
    /// Not in the config: the binary the helper is (the kiosk's own; tests name the built one),
    /// and whether it must have seccomp (false only under user-mode emulation, which refuses filters).
    public var executable = "/proc/self/exe"
    public var requiresSeccomp = true

    public init() {}
}
