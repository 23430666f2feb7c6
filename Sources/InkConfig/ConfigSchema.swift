// SPDX-License-Identifier: Apache-2.0
import InkAPI
import InkClassroom
import InkHTTPClient
import InkCore
import InkDisplay
import InkDocument
import Logging
import InkRender
import InkStorage
import InkUpdateAgent

/// Every table and key of the config file: what each holds, the values it may take, its
/// default (taken from the built-in value) and what it is for. `KioskConfig.parse` checks a file
/// against these definitions (unknown keys, ranges, choices) and `inkkiosk config --reference`
/// prints them as docs/CONFIGURATION.md: one source for both.
public enum ConfigSchema {
    /// In the order the shipped config/inkkiosk.toml has them.
    public static var sections: [ConfigSection] {
        [root, display, input, device, tools] + ToolKind.allCases.map(tool)
            + [buttons, hover, prediction, storage, limits, pdfHelper, log, lockdown, ui, uiText, signature, classroom, api, update, cloud]
    }

    private static let ink = InteractionSettings(screen: PixelSize(width: 1, height: 1))
    private static let screen = ScreenSettings()
    private static let apiLimits = APILimits()
    private static let anyHostName = "host names or IP addresses (no wildcards)"

    static let root = ConfigSection("", "The top level: which screen the kiosk shows, and the tables below.", [
        ConfigKey("mode", .choice(KioskMode.allCases.map(\.rawValue)), .string(screen.mode.rawValue),
                  "What the screen is for: \"draw\" (ink only, no controls), \"signature\" (prompt, line, Clear / Accept, "
                  + "captures to the outbox) or \"classroom\" (toolbar, pages, worksheets, save). Ready profiles: "
                  + "config/signature.toml, config/classroom.toml."),
        .table("display", "The screen."), .table("input", "The seat and how fingers and pens are told apart."),
        .table("device", array: true, "Settings for particular devices."), .table("tools", "The tools and their brushes."),
        .table("buttons", "Pen side buttons and tablet-pad buttons."), .table("hover", "The hover preview."),
        .table("prediction", "Ink drawn ahead of the pen."), .table("storage", "The stroke journal."),
        .table("ui", "Sizes and words on screen."), .table("signature", "Signature captures."),
        .table("classroom", "The classroom screen."), .table("api", "The local signature API."),
        .table("lockdown", "Keys and the console."), .table("limits", "Everything that grows."),
        .table("pdf_helper", "Who the PDF helper runs as."),
        .table("log", "What the kiosk writes to stderr (the journal under systemd)."),
        .table("update", "What the disk image's update engine needs of the kiosk, and the fleet's update agent."),
        .table("cloud", "The classroom's link to the school's cloud (hand-out, hand-in, returned work)."),
    ])

    static let display = ConfigSection("display", "The screen the kiosk takes (DRM/KMS). Command-line flags override these.", [
        ConfigKey("card", .string, .string(""), "DRM card, e.g. \"/dev/dri/card1\"; \"\" = the first with a connected screen."),
        ConfigKey("connector", .string, .string(""), "e.g. \"HDMI-A-1\" (see `inkkiosk devices`); \"\" = the first connected."),
        ConfigKey("mode", .string, .string(""), "e.g. \"1920x1080\" or \"1920x1080@60\"; \"\" = the screen's preferred mode."),
        ConfigKey("rotation", .rotation, .integer(ink.rotation.rawValue), "How input devices are turned, in degrees."),
        ConfigKey("allow_vt_switch", .bool, .bool(false), "true: Ctrl-Alt-Fn may switch away (the kiosk lets go of the screen)."),
        ConfigKey("kms", .choice(KMSInterface.allCases.map(\.rawValue)), .string(KMSInterface.auto.rawValue),
                  "How frames reach the screen: \"atomic\" KMS (one commit of the planes, damage sent with the flip), \"legacy\" KMS, "
                  + "or \"auto\": atomic where the driver takes it, else legacy. \"atomic\" refuses to start without it."),
    ])

    static let input = ConfigSection("input", "The libinput seat, and how fingers and pens are told apart.", [
        ConfigKey("seat", .string, .string("seat0"), "The libinput seat."),
        ConfigKey("pen_only_after_pen", .number(0...86_400), .number(ink.penOnlyAfterPen),
                  "Palm rejection: after a pen was used, fingers do not draw for this many seconds (0: fingers always draw)."),
        ConfigKey("second_finger_cancel", .number(0...2), .number(ink.secondFingerCancelWindow),
                  "A second finger this soon (seconds) means a gesture: the finger stroke is cancelled."),
        ConfigKey("left_handed", .bool, .bool(ink.leftHanded), "Turn tablets by half a turn."),
        ConfigKey("tip_up_reach_mm", .number(0...20), .number(ink.tipUp.maxMM),
                  "A stroke reaches where the tip lifted only if that is this close (mm on the device) to its last sample: "
                  + "controllers report 0,0 or the axis maximum on release (0: strokes end at their last sample)."),
    ])

    static let device = ConfigSection("device", array: true,
                                      "Settings for particular devices, matched by part of their name (the first match wins); "
                                      + "`[[device]]`, as many as needed. Unset keys keep the general settings.", [
        ConfigKey("match", .string, .unset("required"), "Part of the device's name, as `inkkiosk devices` shows it."),
        ConfigKey("rotation", .rotation, .unset("[display] rotation"), "How this device is turned, in degrees."),
        ConfigKey("left_handed", .bool, .unset("[input] left_handed"), "Turn this device by half a turn."),
        ConfigKey("pressure_curve", .pressureCurve, .unset("linear"),
                  "This pen's feel: raw pressure -> pressure, e.g. [[0, 0], [0.5, 0.4], [1, 1]]."),
        ConfigKey("calibration", .matrix(6), .unset("libinput's"),
                  "libinput's calibration matrix, for touchscreens and screen tablets, e.g. [1, 0, 0, 0, 1, 0]."),
    ])

    static let tools = ConfigSection("tools", "The tool a kiosk starts with, and each tool's brush in `[tools.NAME]`.",
        [ConfigKey("default", .choice(ToolKind.allCases.map(\.rawValue)), .string(ink.tool.rawValue), "The tool at start.")]
        + ToolKind.allCases.map { ConfigKey.table($0.rawValue, "The \($0.rawValue)'s brush.") })

    /// `[tools.pen]`, `[tools.calligraphy]`, …: a brush; the calligraphy nib has three keys more.
    static func tool(_ tool: ToolKind) -> ConfigSection {
        let brush = Brush.standard(tool)
        let width: String
        switch tool {
        case .pen: width = "Width in px at full pressure: width × curve(max(pressure, 0.025))."
        case .calligraphy: width = "The nib's length in px."
        case .eraser: width = "Removes every stroke it touches within this diameter (px)."
        case .highlighter, .debug: width = "Width in px."
        }
        var keys = [
            ConfigKey("width", .number(0.5...200), .number(brush.width), width),
            ConfigKey("color", .color, .color(brush.color), colorSummary(tool)),
        ]
        if tool == .calligraphy {
            keys += [
                ConfigKey("nib_thickness", .number(0.5...20), .number(brush.nibThickness), "The nib's thickness in px."),
                ConfigKey("lock_altitude", .number(0...90), .number(degrees(brush.azimuthLockAltitude)),
                          "Degrees: above this the pen is near upright and the nib keeps its direction."),
                ConfigKey("fallback_angle", .number(-180...180), .number(degrees(brush.fallbackNibAngle)),
                          "Degrees: the nib's direction for pens without tilt."),
            ]
        }
        return ConfigSection("tools.\(tool.rawValue)", "The \(tool.rawValue)'s brush.", keys)
    }

    private static func degrees(_ radians: Double) -> Double { radians * 180 / .pi }

    private static func colorSummary(_ tool: ToolKind) -> String {
        switch tool {
        case .highlighter: return "Translucent: a stroke does not darken where it crosses itself."
        case .eraser: return "The ring that shows where it will erase (the hover preview)."
        case .pen, .calligraphy, .debug: return "The ink's colour."
        }
    }

    private static let actions = PreferredAction.allCases.map(\.rawValue)
    /// The button whose hold erases by default.
    private static var holdEraser: HoldEraser {
        if ink.binding(ButtonCode.stylus).holdErases { return .stylus }
        return ink.binding(ButtonCode.stylus2).holdErases ? .stylus2 : .none
    }

    static let buttons = ConfigSection("buttons",
                                       "What a click of a pen's side button does (the iPad's double-tap on the pencil), and a tablet pad's.", [
        ConfigKey("stylus", .choice(actions), .string(ink.binding(ButtonCode.stylus).click.rawValue), "BTN_STYLUS, the lower side button."),
        ConfigKey("stylus2", .choice(actions), .string(ink.binding(ButtonCode.stylus2).click.rawValue), "BTN_STYLUS2, the upper side button."),
        ConfigKey("stylus3", .choice(actions), .string(ink.binding(ButtonCode.stylus3).click.rawValue), "BTN_STYLUS3."),
        ConfigKey("hold_eraser", .choice(HoldEraser.allCases.map(\.rawValue)), .string(holdEraser.rawValue),
                  "The button that erases while held."),
        ConfigKey("pad", .choice(actions), .string(ink.padButtonAction.rawValue), "Any tablet-pad button."),
        ConfigKey("click_max_ms", .number(50...2000), .number(ink.clickMaxDuration * 1000), "A longer press is a hold, not a click."),
        ConfigKey("click_while_drawing", .bool, .bool(ink.clickWhileDrawing), "Count clicks while the tip is down (usually an accident)."),
    ])

    static let hover = ConfigSection("hover", "The hover preview: the tool's footprint where the pen will land.", [
        ConfigKey("enabled", .bool, .bool(ink.hover.enabled), "Show the hover preview."),
        ConfigKey("fade", .number(0...1), .number(ink.hover.fade), "Fully visible up to this distance (0..1) …"),
        ConfigKey("max_z", .number(0...1), .number(ink.hover.maxZ),
                  "… invisible at this one: alpha = 1 - max(z - fade, 0) / (max_z - fade). Must be greater than fade."),
        ConfigKey("fixed_alpha", .number(0...1), .number(ink.hover.fixedAlpha), "The preview's alpha for pens that report no distance."),
    ])

    static let prediction = ConfigSection("prediction", "Prediction.", [
        ConfigKey("enabled", .bool, .bool(true), "Draw ink one refresh ahead of the pen (never kept: real samples replace it)."),
    ])

    static let log = ConfigSection("log", "The log: every line on stderr with its level; under systemd each carries its journal priority.", [
        ConfigKey("level", .choice(Logger.Level.allCases.map(\.rawValue)), .string(Logger.Level.info.rawValue),
                  "The lowest level written: \"trace\", \"debug\" (libinput's own debug messages too), \"info\", \"notice\", "
                  + "\"warning\", \"error\" or \"critical\"; `journalctl -p warning` then shows warnings and worse. "
                  + "`inkkiosk run --log-level` overrides it."),
    ])

    static let storage = ConfigSection("storage", "The stroke journal: every finished edit, synced, restored after a restart or power cut.", [
        ConfigKey("journal", .string, .string(""),
                  "e.g. \"/var/lib/inkkiosk/journal.inkj\"; \"\" = no journal. Compacted at start and whenever it grows past "
                  + "twice the notebook; in signature mode never compacted, and zeros are written over a signature's records "
                  + "before they are cut off."),
        ConfigKey("damaged_keep", .integer(0...1000), .integer(DamagedJournals.standard.limits.keep),
                  "Journals that could not be read at all are kept aside as JOURNAL.damaged.<UTC time>: this many "
                  + "(the oldest removed first; 0 = no limit). Not in signature mode: a signature's journal is overwritten "
                  + "with zeros and started anew (it may hold a customer's samples)."),
        ConfigKey("damaged_days", .number(0...3650), .number(DamagedJournals.standard.limits.maxAgeDays),
                  "… and none older than this many days (0 = no limit)."),
    ])

    static let limits = ConfigSection("limits", "Everything that grows on a kiosk left running for months.", [
        ConfigKey("undo_depth", .integer(0...10_000), .integer(screen.notebook.undoDepth),
                  "Undo steps kept per page; older steps are forgotten, their ink stays."),
        ConfigKey("page_cache_mb", .integer(0...4096), .integer(screen.notebook.pageCacheMB),
                  "RAM for pictures of the pages not on screen, so that turning to one is a copy, not a repaint "
                  + "(the page left longest ago goes first; a page without a picture is painted again from its ink). "
                  + "A page of handwriting takes about 0.2 MB at 1920x1080 (kept deflated); the default keeps a class's "
                  + "peak memory within 64 MiB, and a page without a picture takes up to 50 ms to turn to."),
        ConfigKey("outbox_keep", .integer(0...1_000_000), .integer(screen.capture.outboxRetention.keep),
                  "Signature captures kept in the outbox, and the API's outcomes (oldest removed after an Accept; 0 = no limit)."),
        ConfigKey("outbox_days", .number(0...3650), .number(screen.capture.outboxRetention.maxAgeDays),
                  "… and none older than this many days (0 = no limit)."),
        ConfigKey("saves_keep", .integer(0...1_000_000), .integer(screen.capture.savesRetention.keep),
                  "Classroom saves kept in the save directory (oldest removed after a Save; 0 = no limit)."),
        ConfigKey("saves_days", .number(0...3650), .number(screen.capture.savesRetention.maxAgeDays),
                  "… and none older than this many days (0 = no limit)."),
        ConfigKey("worksheet_mb", .integer(1...1024), .integer(screen.worksheets.maxMB),
                  "A worksheet PDF larger than this (MB) is refused, with a message on screen."),
        ConfigKey("worksheet_pages", .integer(1...1000), .integer(screen.worksheets.maxPages),
                  "… and one with more pages (each page is a notebook page)."),
        ConfigKey("worksheets_listed", .integer(1...1000), .integer(screen.worksheets.listed),
                  "The Worksheets list shows this many files at most (the rest counted, \"+N\")."),
        ConfigKey("worksheet_cache_mb", .integer(1...4096), .integer(screen.worksheets.cacheMB),
                  "RAM for the worksheet pages drawn ahead around the one shown (a text page takes about 0.4 MB at "
                  + "1920x1080, a scanned one up to 8 MB)."),
        ConfigKey("worksheet_copies_mb", .integer(0...65_536), .integer(screen.worksheets.copiesMB),
                  "Disk for worksheets opened from the USB stick, copied into WORKSHEETS/copies so the stick can be pulled "
                  + "out (the one opened longest ago goes first, never the one open)."),
        ConfigKey("worksheet_stuck_seconds", .number(1...3600), .number(screen.pdfHelper.stuckSeconds),
                  "The PDF helper on one page longer than this is killed, the page left blank and the screen says so; "
                  + "a Save may take this long per page."),
        ConfigKey("worksheet_helper_mb", .integer(128...16_384), .integer(screen.pdfHelper.memoryMB),
                  "The PDF helper's address space (MiB): a PDF that needs more fails, the kiosk goes on."),
        ConfigKey("worksheet_helper_cpu_seconds", .integer(10...86_400), .integer(screen.pdfHelper.cpuSeconds),
                  "The PDF helper's CPU time; a helper that used it up is replaced by a new one."),
        ConfigKey("worksheet_save_mb", .integer(1...65_536), .integer(screen.pdfHelper.fileMB),
                  "The largest file the PDF helper may write (MiB, its RLIMIT_FSIZE): a Save over a worksheet that would "
                  + "come out larger fails with a message, the kiosk goes on. A page comes out about its own size (a scanned "
                  + "page of 1.4 MB as 1.4 MB, its SVG 3.2 MB); one whose images poppler must decode and cairo compress "
                  + "again (JPEG 2000, JBIG2) several times that. A helper taken over can fill no more of the disk."),
        ConfigKey("document_mb", .integer(APILimits.documentMBRange), .integer(apiLimits.maxDocumentBytes >> 20),
                  "A PDF a host uploads to be signed (POST /documents), in MiB: larger is 413."),
        ConfigKey("documents", .integer(APILimits.documentsRange), .integer(apiLimits.maxDocuments),
                  "PDFs kept for hosts; a new one removes the oldest not in use."),
        ConfigKey("document_pages", .integer(APILimits.documentPagesRange), .integer(apiLimits.maxDocumentPages),
                  "… and one with more pages is refused (422), before its page tree is walked."),
        ConfigKey("document_objects", .integer(APILimits.documentObjectsRange), .integer(apiLimits.maxDocumentObjects),
                  "The PDF reader parses every value of an uploaded document (numbers, names, arrays, dictionaries…) once; "
                  + "one with more is refused (422). Each takes 50-200 bytes of RAM while the document is read (a 400-page "
                  + "manual has some 40 000)."),
        ConfigKey("document_inflate_mb", .integer(APILimits.documentInflateMBRange), .integer(apiLimits.maxDocumentInflatedBytes >> 20),
                  "MiB the reader may inflate from one document's compressed object and cross-reference streams (a zip "
                  + "bomb, or a file built to defeat the reader's caching, is refused with 422)."),
        ConfigKey("document_seconds", .number(APILimits.documentSecondsRange), .number(apiLimits.maxDocumentSeconds),
                  "An upload the reader has not read whole within this many seconds is refused (422), freeing its upload place."),
    ])

    static let pdfHelper = ConfigSection("pdf_helper", "Who the PDF helper (poppler, in its cage) runs as, and where it may not run.", [
        ConfigKey("uid", .integer(1...4_294_967_294), .integer(Int(screen.pdfHelper.uid)),
                  "The user the helper becomes when the kiosk runs as root (the appliance): one that owns none of the kiosk's "
                  + "files (65534: nobody). Fonts are world-readable, and the PDF comes to it as an open file."),
        ConfigKey("gid", .integer(1...4_294_967_294), .integer(Int(screen.pdfHelper.gid)),
                  "… and its group (65534: nogroup), with no supplementary groups."),
        ConfigKey("without_landlock", .choice(PDFHelperSettings.WithoutLandlock.allCases.map(\.rawValue)),
                  .string(screen.pdfHelper.withoutLandlock.rawValue),
                  "A kernel without Landlock (many vendor kernels for i.MX 8 and RK35xx are 5.10) and a kiosk not started as "
                  + "root: the helper would run as the kiosk's own user, able to read what the kiosk can. \"refuse\": it does "
                  + "not run, worksheets and documents are not opened, and the log and the screen say why; \"allow\": it runs "
                  + "with seccomp and its limits only. Its first log line says which (\"pdf helper N started: …\" or \"refused\")."),
    ])

    static let lockdown = ConfigSection("lockdown", "Whether keys may leave the kiosk, and the technicians' way out.", [
        ConfigKey("enabled", .bool, .bool(true),
                  "No key leaves the kiosk: every input device is taken exclusively, so no kernel handler sees a key "
                  + "(SysRq, Ctrl-Alt-Fn, Ctrl-Alt-Del, Ctrl-C); kernel.sysrq is set to 0 when the kiosk may (root), else "
                  + "deploy/sysctl.d does it. false: keys reach the kernel's handlers."),
        ConfigKey("service_keys", .keyChord, .string(""),
                  "For technicians: holding exactly these keys stops the kiosk cleanly (exit status 10, console back in "
                  + "text mode; the systemd unit then stays stopped and tty1 gets a login prompt), e.g. \"ctrl+alt+shift+s\". "
                  + "Letters and digits by their place on a US keyboard, whatever the layout. \"\" = none."),
    ])

    static let ui = ConfigSection("ui", "Sizes on the real screen, and every word on it (`[ui.text]`).", [
        ConfigKey("button_mm", .number(9...40), .number(screen.look.buttonMM),
                  "Height of every button and toolbar target in mm (9 mm is a child's fingertip)."),
        ConfigKey("dpi", .number(0...1200), .number(screen.look.dpi ?? 0),
                  "The screen's pixels per inch; 0 = from the screen's EDID size (96 if it reports none)."),
        .table("text", "Every word on screen."),
    ])

    static let uiTextPath = "ui.text"

    /// Built for the reference only: the reader checks `[ui.text]` against `UIText.configKeys`.
    static var uiText: ConfigSection {
        let words = UIText()
        return ConfigSection(uiTextPath, "Every word on screen, for translation. \"%@\" is replaced by a reason or a name, "
                             + "\"%d\" by a number. None may be empty.",
                             UIText.configKeys.map { key in
                                 let word = words[keyPath: key.path]
                                 return ConfigKey(key.key, .string, .string(word), key.summary)
                             })
    }

    static let signature = ConfigSection("signature", "Signature mode's captures: where they go and how they are kept.", [
        ConfigKey("outbox", .path, .string(screen.capture.outbox),
                  "Accepted signatures: a directory ID/ each, with ID.png, .svg, .inkml and .json (mode 0600)."),
        ConfigKey("encrypt_to", .path, .unset("none"),
                  "An X25519 public key (PEM): the PNG, SVG and InkML are then stored only encrypted to it (ID.png.hpke, …). "
                  + "Make the pair on the host: `inkkiosk keygen kiosk-signatures.key`. Read and checked at start."),
        ConfigKey("store_plaintext", .bool, .bool(screen.capture.storePlaintext),
                  "true: store the captures readable (no encrypt_to). Signature mode needs one of the two: with neither, "
                  + "or both, the kiosk does not start."),
        ConfigKey("sign_with", .path, .unset("none"),
                  "The device's private key (EC P-256 or RSA) and its X.509 certificate in one PEM file, for a PAdES "
                  + "signature on signed PDFs (read and checked at start). Make one: `inkkiosk keygen --signing FILE`."),
        ConfigKey("document_lock", .choice(DocumentLock.allCases.map(\.rawValue)), .string(screen.capture.documentLock.rawValue),
                  "What the device's signature forbids later changes of a signed PDF to do (validators then report them as "
                  + "breaking it): \"certify\" no change at all, \"certify-form-filling\" only filling in the form and signing, "
                  + "\"fields\" no field may change but empty signature fields. A certification must be a document's first "
                  + "signature: on a document signed already the fields are locked instead. Needs sign_with."),
        ConfigKey("min_review", .choice(DocumentToSign.Review.allCases.map(\.rawValue)), .string(screen.capture.minReview.rawValue),
                  "The least a signer pages through a host's PDF before Sign: a request's review may ask for more, never less."),
        ConfigKey("keep_signed_pdf", .bool, .bool(screen.capture.keepSignedPDF),
                  "true: a signed PDF is written to the outbox with its capture (ID.pdf, plain). false: it stays in the "
                  + "kiosk's memory only, for GET /signatures/ID/pdf, until the host acknowledges the capture, asks for the "
                  + "next signature, or the kiosk stops."),
    ])

    static let paletteLength = 1...16

    static let classroom = ConfigSection("classroom", "The classroom screen: saves, colours, widths, worksheets.", [
        ConfigKey("save_dir", .path, .string(screen.capture.saveDirectory),
                  "Save writes notebook-DATE-pageN.png and notebook-DATE.pdf here (a worksheet: TITLE-DATE.pdf and a PNG per page)."),
        ConfigKey("palette", .colors(paletteLength), .colors(screen.look.palette), "The colours the toolbar offers."),
        ConfigKey("widths", .numbers(0.1...10, count: 1...5), .numbers(screen.look.widths), "Width choices, times each tool's width."),
        ConfigKey("worksheets", .path, .string(screen.worksheets.folders[0]),
                  "The PDFs the Worksheets button lists; one chosen becomes the notebook (the notebook shown is saved "
                  + "first), its pages under the ink."),
        ConfigKey("worksheets_usb", .path, .unset("none"),
                  "A second folder, only read (a USB stick), e.g. \"/media/usb\"; listed when mounted. A worksheet opened "
                  + "from it is copied to WORKSHEETS/copies first, so its pages, a restart and Save do not need the stick."),
    ])

    static let api = ConfigSection("api", "The local signature API (signature mode): a host asks for a signature and gets the files. "
                                   + "Who may ask and what one client may cost: docs/API.md.", [
        ConfigKey("enabled", .bool, .bool(false), "false: the signature screen loops on its own (sign, Accept, next)."),
        ConfigKey("listen", .address, .string(APISettings.defaultAddress),
                  "\"127.0.0.1:7300\", \"[::1]:7300\" or \"unix:/run/inkkiosk/api.sock\" (mode 0660). Only loopback or a "
                  + "unix socket unless allow_remote = true."),
        ConfigKey("default_timeout", .number(0...3600), .number(screen.api.defaultTimeout ?? 0),
                  "Seconds a request waits for a signature when it names no timeout; 0 = forever."),
        ConfigKey("allow_remote", .bool, .bool(screen.api.allowRemote),
                  "true: listen may be reachable from other machines (plain HTTP; hosts need the token)."),
        ConfigKey("token", .choice(["none"]), .unset("a token on TCP"),
                  "\"none\": no token on TCP, every program on this machine may ask (loopback only). A token itself "
                  + "goes in token_file, never in this file."),
        ConfigKey("token_file", .path, .unset("api.token next to [signature] outbox"),
                  "The bearer token every TCP request must send; made at the first start when missing (256 random bits, "
                  + "64 hex characters, mode 0640). Stops the kiosk: under 128 bits, readable by others, writable by group "
                  + "or others, owned by a user other than the kiosk's or root, or in a directory another user owns or "
                  + "may write to (unless sticky). On the unix socket a token is asked for only when this is written."),
        ConfigKey("token_group", .group, .unset("the kiosk's own group"), "The group that may read a token the kiosk makes."),
        ConfigKey("allowed_hosts", .strings(anyHostName), .unset("none"),
                  "Names a request's Host may carry besides the listening address, localhost, 127.0.0.1 and [::1]; "
                  + "any other: 421 (DNS rebinding)."),
        ConfigKey("allowed_origins", .strings("origins such as \"https://pos.example\" (scheme, host, port; no path)"), .unset("none"),
                  "Web pages that may ask; a request with any other Origin, or a browser's (Sec-Fetch-*) without a listed "
                  + "Origin: 403."),
        ConfigKey("socket_users", .accounts("users"), .unset("root and the kiosk's own user"),
                  "Who may connect to the unix socket; others are closed (403) and logged. Replaces the default."),
        ConfigKey("socket_groups", .accounts("groups"), .unset("none"), "… and the members of these groups."),
        ConfigKey("documents_dir", .path, .unset("documents next to [signature] outbox"),
                  "Where hosts' PDFs to sign are kept (made 0700)."),
        ConfigKey("max_connections", .integer(APILimits.connectionsRange), .integer(apiLimits.maxConnections),
                  "Connections open at once. When all are taken, one that has not shown the token (a refused one, else "
                  + "the oldest, of the client holding the most) is closed for a newcomer; only when all have: 503."),
        ConfigKey("request_timeout", .number(APILimits.requestTimeoutRange), .number(apiLimits.requestTimeout),
                  "Seconds to send a whole request (line, headers, body); else 408 and closed."),
        ConfigKey("idle_timeout", .number(APILimits.idleTimeoutRange), .number(apiLimits.idleTimeout),
                  "Seconds a kept-alive connection may wait for its next request."),
        ConfigKey("max_request_line", .integer(APILimits.requestLineRange), .integer(apiLimits.maxRequestLine),
                  "Bytes of \"GET /path HTTP/1.1\"; longer: 414. At most max_header_bytes."),
        ConfigKey("max_header_bytes", .integer(APILimits.headerBytesRange), .integer(apiLimits.maxHeaderBytes),
                  "Bytes of the request line and headers; more: 431."),
        ConfigKey("max_body_bytes", .integer(APILimits.bodyBytesRange), .integer(apiLimits.maxBodyBytes),
                  "Bytes of a JSON body; a longer Content-Length: 413 before the body is read."),
        ConfigKey("max_waits", .integer(APILimits.waitsRange), .integer(apiLimits.maxWaits), "Long polls (?wait=) at once; one more: 503."),
        ConfigKey("longest_wait", .number(APILimits.longestWaitRange), .number(apiLimits.longestWait),
                  "Seconds a ?wait= may hold its connection; a longer wait is cut to it."),
        ConfigKey("max_connections_per_client", .integer(APILimits.perClientRange), .integer(apiLimits.maxConnectionsPerClient),
                  "Open at once from one client (IP address; user on the unix socket). When all are taken, its oldest "
                  + "that has not shown the token is closed for a newcomer (every local program is 127.0.0.1: none can "
                  + "hold the host's slots); one that has keeps its slot; only when all have: 503. At most max_connections."),
        ConfigKey("auth_failures", .integer(APILimits.authFailuresRange), .integer(apiLimits.authFailures),
                  "Wrong tokens from one client within auth_failure_window: then its wrong tokens get 429. A missing "
                  + "token is never counted, and the right one is always served."),
        ConfigKey("auth_failure_window", .number(APILimits.authWindowRange), .number(apiLimits.authFailureWindow),
                  "Seconds; a client held off gets 429 with Retry-After for a wrong token for this long."),
        ConfigKey("auth_clients_tracked", .integer(APILimits.authClientsRange), .integer(apiLimits.authClientsTracked),
                  "Clients whose wrong tokens are remembered (the oldest go first)."),
    ])

    private static let updates = UpdateSettings()
    private static let agent = UpdateAgentSettings()

    static let update = ConfigSection("update", "What the disk image's update engine needs of the kiosk (docs/DEPLOYMENT.md, "
                                      + "\"Updating\"): a hardware watchdog fed by the kiosk's loop, and two files that say "
                                      + "when the kiosk is ready and when it must not be interrupted. The image sets all four. "
                                      + "The keys from server on are the fleet's update agent's (`inkkiosk update-agent`, "
                                      + "docs/DEPLOYMENT.md \"Updating a fleet\"); it does not run unless server is set.", [
        ConfigKey("watchdog", .path, .unset("none"),
                  "The hardware watchdog, e.g. \"/dev/watchdog\": opened at start and fed from the kiosk's own loop every "
                  + "quarter of watchdog_timeout, so a loop that hangs stops feeding it and the machine resets (the image's "
                  + "boot loader then skips an unconfirmed slot). A clean stop disarms it (the magic close); a crash does not. "
                  + "A watchdog that cannot be opened or set is logged as an error; the kiosk draws on without it but "
                  + "never writes ready_file, so the image does not confirm that boot (an update that lost it rolls back)."),
        ConfigKey("watchdog_timeout", .integer(UpdateSettings.watchdogTimeoutRange), .integer(updates.watchdogTimeout),
                  "Seconds without a feed before the watchdog resets the machine (WDIOC_SETTIMEOUT; a driver may round it: "
                  + "the kiosk logs what it got). Keep it below the image's ik.update.confirm_after, so a hang within the "
                  + "stable period resets the machine before the boot is confirmed."),
        ConfigKey("ready_file", .path, .unset("none"),
                  "Written (atomically) once the first frame is on screen and the input devices are open, e.g. "
                  + "\"/run/inkkiosk/ready\": the image confirms a new slot only after it, plus the stable period. Removed "
                  + "at a clean stop."),
        ConfigKey("busy_file", .path, .unset("none"),
                  "Present while a session must not be interrupted, e.g. \"/run/inkkiosk/busy\", holding why (a host's "
                  + "signature request open, ink on the signature pad, a capture or a classroom save being written); "
                  + "absent otherwise. The image installs and reboots into an update only while it is absent."),
        ConfigKey("server", .string, .unset("none: no agent"),
                  "The fleet server's DDI base URL (Eclipse hawkBit or goosebit), https only, e.g. \"https://fleet.example.com\": "
                  + "the agent polls SERVER/TENANT/controller/v1/CONTROLLER_ID."),
        ConfigKey("tenant", .string, .string(agent.tenant), "The server's tenant (goosebit's and hawkBit's default: DEFAULT)."),
        ConfigKey("poll_interval", .integer(UpdateAgentSettings.pollIntervalRange), .integer(agent.pollInterval),
                  "Seconds between polls when the server names none; the server's sleep wins, held within "
                  + "\(PollSchedule.sleepBounds.lowerBound)…\(PollSchedule.sleepBounds.upperBound) s. Each wait is spread by ±10 %."),
        ConfigKey("backoff_max", .integer(UpdateAgentSettings.backoffMaxRange), .integer(agent.backoffMax),
                  "The longest wait after failed polls, seconds: the wait doubles from \(PollSchedule.firstBackoff) s up to it, "
                  + "each cut by up to half at random so that a fleet does not come back in step."),
        ConfigKey("window", .string, .unset("any time"),
                  "When a reboot into an update may happen, \"HH:MM-HH:MM\" local time (\"22:00-05:00\" runs over midnight). "
                  + "Downloads and installs happen any time; the reboot also waits for the kiosk to be idle (busy_file)."),
        ConfigKey("download_limit", .integer(UpdateAgentSettings.downloadLimitRange), .integer(agent.downloadLimit),
                  "Bytes per second a bundle's download may take; 0: no limit."),
        ConfigKey("max_bundle_mb", .integer(UpdateAgentSettings.maxBundleMBRange), .integer(agent.maxBundleMB),
                  "A bundle over this many MiB is refused (reported to the server as a failure), by its announced size "
                  + "and while it downloads. RAUC also checks that it fits the slot."),
        ConfigKey("download_dir", .path, .string(agent.downloadDir),
                  "Where a bundle is downloaded (on the data partition: a partial download resumes after a restart); "
                  + "the bundle is removed after its install."),
        ConfigKey("pending_file", .path, .string(agent.pendingFile),
                  "The record of an install whose outcome is told after the reboot (synced, mode 0600); on the data partition."),
        ConfigKey("identity_file", .path, .string(agent.identityFile),
                  "The device's controller_id and target_token (`key = value` lines), written at enrolment, never in the "
                  + "image. Refused unless a regular file of mode 0600 owned by the agent's user."),
        ConfigKey("ca_file", .path, .unset("the system's CAs"),
                  "A PEM file of the CAs to trust for server instead of the system's (a private server). TLS is always verified."),
        ConfigKey("allow_downgrade", .bool, .bool(agent.allowDowngrade),
                  "true: a bundle older than the running version is installed; false: refused and reported as a failure."),
        ConfigKey("update_command", .path, .string(agent.updateCommand),
                  "Called as `COMMAND install BUNDLE` and `COMMAND reboot` (the image's ik-update: RAUC, once busy_file is "
                  + "absent; exit status 75: busy, tried again later)."),
        ConfigKey("confirmed_file", .path, .string(agent.confirmedFile),
                  "Names the slot once the image has confirmed its boot; an update is reported a success only when it names "
                  + "the update's slot."),
        ConfigKey("confirm_wait", .integer(UpdateAgentSettings.confirmWaitRange), .integer(agent.confirmWait),
                  "Seconds after the agent starts in the update's slot that it waits for confirmed_file; after that the "
                  + "update is reported a failure (the boot was never confirmed, the next boot rolls back)."),
    ])
}
