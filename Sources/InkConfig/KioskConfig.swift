// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import Glibc
import InkCore
import InkAPI
import InkClassroom
import InkDisplay
import InkDocument
import InkDocumentSigning
import InkStorage
import Logging
import TOMLKit

/// The kiosk's configuration file (TOML), checked strictly: an unknown key, a wrong type or an
/// out-of-range value is an error naming the file, line and key, and the kiosk does not start
/// on a broken config. Every key is optional; a missing one keeps the built-in default.
/// Every table and key is defined in `ConfigSchema` (docs/CONFIGURATION.md is printed from it).
public struct KioskConfig: Sendable {
    public var card: String?
    public var connector: String?
    public var mode: String?
    public var allowVTSwitch: Bool?
    /// `[display] kms`: atomic or legacy KMS (nil: auto, or what the command line says).
    public var kms: KMSInterface?
    public var seat: String?
    public var journal: String?
    /// `[storage] damaged_keep`, `damaged_days`: journals put aside as unreadable.
    public var damagedJournals = DamagedJournals.standard
    public var prediction: Bool?
    /// What the file says about how input becomes ink; applied over the defaults.
    public var ink = InkSettingsPatch()
    /// The mode and its screen: `mode`, `[ui]`, `[signature]`, `[classroom]`, `[api]`.
    public var screen = ScreenSettings()
    public var lockdown = LockdownConfig()
    /// `[update]`: the watchdog, the ready and busy files.
    public var update = UpdateSettings()
    /// `[log] level`: the lowest level written to stderr (the journal); nil: info.
    public var logLevel: Logger.Level?

    public init() {}

    public static func load(path: String) throws -> KioskConfig {
        let text: String
        do { text = try String(contentsOfFile: path, encoding: .utf8) } catch {
            throw ConfigError(problems: [ConfigProblem(file: path, line: nil, key: "", message: "cannot read the file: \(errorText(error))")])
        }
        return try parse(text, file: path)
    }

    public static func parse(_ text: String, file: String) throws -> KioskConfig {
        let root: TOMLTable
        do { root = try TOMLTable(string: text) } catch let e as TOMLParseError {
            throw ConfigError(problems: [ConfigProblem(file: file, line: Int(e.source.begin.line), key: "", message: "not valid TOML: \(e.description)")])
        }
        var r = ConfigReader(file: file, text: text)
        var c = KioskConfig()
        typealias S = ConfigSchema
        r.only(S.root, in: root)
        if let mode: KioskMode = r.choice("mode", in: root, of: S.root) { c.screen.mode = mode }
        readScreen(&r, root, into: &c.screen)

        if let t = r.table("display", in: root, at: "") {
            r.only(S.display, in: t)
            c.card = r.string("card", in: t, of: S.display).flatMap { $0.isEmpty ? nil : $0 }
            c.connector = r.string("connector", in: t, of: S.display).flatMap { $0.isEmpty ? nil : $0 }
            c.mode = r.string("mode", in: t, of: S.display).flatMap { $0.isEmpty ? nil : $0 }
            c.ink.rotation = r.rotation("rotation", in: t, of: S.display)
            c.allowVTSwitch = r.bool("allow_vt_switch", in: t, of: S.display)
            c.kms = r.choice("kms", in: t, of: S.display)
        }
        if let t = r.table("log", in: root, at: "") {
            r.only(S.log, in: t)
            c.logLevel = r.choice("level", in: t, of: S.log)
        }
        if let t = r.table("input", in: root, at: "") {
            r.only(S.input, in: t)
            c.seat = r.string("seat", in: t, of: S.input)
            c.ink.penOnlyAfterPen = r.number("pen_only_after_pen", in: t, of: S.input)
            c.ink.secondFingerCancel = r.number("second_finger_cancel", in: t, of: S.input)
            c.ink.leftHanded = r.bool("left_handed", in: t, of: S.input)
            c.ink.tipUpReachMM = r.number("tip_up_reach_mm", in: t, of: S.input)
        }
        if let v = root["device"] {
            if let devices = v.array {
                for (i, item) in devices.enumerated() {
                    let path = "device[\(i)]"
                    guard let t = item.table else { r.problem(path, "must be a table ([[device]])"); continue }
                    r.only(S.device, in: t, at: path)
                    guard let match = r.string("match", in: t, of: S.device, at: path), !match.isEmpty else {
                        r.problem("\(path).match", "is required: part of the device's name, as `inkkiosk devices` shows it"); continue
                    }
                    c.ink.devices.append(DeviceSettings(
                        match: match, rotation: r.rotation("rotation", in: t, of: S.device, at: path),
                        leftHanded: r.bool("left_handed", in: t, of: S.device, at: path),
                        pressureCurve: r.pressureCurve("pressure_curve", in: t, of: S.device, at: path),
                        calibration: r.numbers("calibration", in: t, of: S.device, at: path)?.map(Float.init)))
                }
            } else {
                r.problem("device", "must be an array of tables ([[device]])")
            }
        }
        if let t = r.table("tools", in: root, at: "") {
            r.only(S.tools, in: t)
            c.ink.tool = r.choice("default", in: t, of: S.tools)
            for tool in ToolKind.allCases {
                let keys = S.tool(tool)
                guard let b = r.table(tool.rawValue, in: t, at: "tools") else { continue }
                r.only(keys, in: b)
                var brush = Brush.standard(tool)
                if let w = r.number("width", in: b, of: keys) { brush.width = w }
                if let color = r.color("color", in: b, of: keys) { brush.color = color }
                if tool == .calligraphy {
                    if let n = r.number("nib_thickness", in: b, of: keys) { brush.nibThickness = n }
                    if let a = r.number("lock_altitude", in: b, of: keys) { brush.azimuthLockAltitude = a * .pi / 180 }
                    if let a = r.number("fallback_angle", in: b, of: keys) { brush.fallbackNibAngle = a * .pi / 180 }
                }
                c.ink.brushes[tool] = brush
            }
        }
        if let t = r.table("buttons", in: root, at: "") {
            r.only(S.buttons, in: t)
            c.ink.stylus = r.choice("stylus", in: t, of: S.buttons)
            c.ink.stylus2 = r.choice("stylus2", in: t, of: S.buttons)
            c.ink.stylus3 = r.choice("stylus3", in: t, of: S.buttons)
            c.ink.holdEraser = r.choice("hold_eraser", in: t, of: S.buttons)
            c.ink.pad = r.choice("pad", in: t, of: S.buttons)
            c.ink.clickMaxDuration = r.number("click_max_ms", in: t, of: S.buttons).map { $0 / 1000 }
            c.ink.clickWhileDrawing = r.bool("click_while_drawing", in: t, of: S.buttons)
        }
        if let t = r.table("hover", in: root, at: "") {
            r.only(S.hover, in: t)
            var hover = HoverFade()
            hover.enabled = r.bool("enabled", in: t, of: S.hover) ?? true
            if let v = r.number("fade", in: t, of: S.hover) { hover.fade = v }
            if let v = r.number("max_z", in: t, of: S.hover) { hover.maxZ = v }
            if let v = r.number("fixed_alpha", in: t, of: S.hover) { hover.fixedAlpha = v }
            if hover.maxZ <= hover.fade { r.problem("hover.max_z", "must be greater than hover.fade (\(hover.fade))") }
            c.ink.hover = hover
        }
        if let t = r.table("prediction", in: root, at: "") {
            r.only(S.prediction, in: t)
            c.prediction = r.bool("enabled", in: t, of: S.prediction)
        }
        if let t = r.table("storage", in: root, at: "") {
            r.only(S.storage, in: t)
            c.journal = r.string("journal", in: t, of: S.storage).flatMap { $0.isEmpty ? nil : $0 }
            if let v = r.integer("damaged_keep", in: t, of: S.storage) { c.damagedJournals.limits.keep = v }
            if let v = r.number("damaged_days", in: t, of: S.storage) { c.damagedJournals.limits.maxAgeDays = v }
        }
        if let t = r.table("lockdown", in: root, at: "") { c.lockdown = LockdownConfig(t, &r) }
        if let t = r.table("update", in: root, at: "") { c.update = UpdateSettings(t, &r) }
        if let t = r.table("cloud", in: root, at: "") { c.screen.cloud = CloudSettings(t, &r) }
        if c.screen.mode == .signature && !c.screen.capture.signatureStorageChosen && root["signature"]?.table?["encrypt_to"] == nil {
            // (A key written but unreadable has its own problem already.)
            r.problem(root["signature"] == nil ? "mode" : "signature", Self.unsealedSignatures)
        }
        guard r.problems.isEmpty else { throw ConfigError(problems: r.problems.sorted { ($0.line ?? 0) < ($1.line ?? 0) }) }
        return c
    }
}

extension KioskConfig {
    /// `[ui]` (sizes, every word on screen), `[signature]`, `[classroom]` and `[api]`.
    static func readScreen(_ r: inout ConfigReader, _ root: TOMLTable, into s: inout ScreenSettings) {
        typealias S = ConfigSchema
        if let t = r.table("ui", in: root, at: "") {
            r.only(S.ui, in: t)
            if let v = r.number("button_mm", in: t, of: S.ui) { s.look.buttonMM = v }
            if let v = r.number("dpi", in: t, of: S.ui) { s.look.dpi = v > 0 ? v : nil }
            if let text = r.table("text", in: t, at: "ui") {
                let keys = UIText.configKeys
                r.only(keys.map(\.key), in: text, at: S.uiTextPath)
                for (key, path, _) in keys {
                    guard let v = r.string(key, in: text, at: S.uiTextPath) else { continue }
                    if v.isEmpty { r.problem("\(S.uiTextPath).\(key)", "must not be empty") } else { s.look.text[keyPath: path] = v }
                }
            }
        }
        if let t = r.table("signature", in: root, at: "") {
            r.only(S.signature, in: t)
            if let v = r.path("outbox", in: t, of: S.signature) { s.capture.outbox = v }
            // Read once, here: a missing or wrong key stops the kiosk at start, and check-config says so.
            if let v = r.path("encrypt_to", in: t, of: S.signature) {
                do { s.capture.encryptTo = try SealingKey.load(path: v) } catch { r.problem("signature.encrypt_to", "\(error)") }
            }
            // The same for the signing identity: its key must match its certificate before the kiosk starts.
            if let v = r.path("sign_with", in: t, of: S.signature) {
                do { s.capture.signWith = try DeviceSigner(pemFile: v) } catch { r.problem("signature.sign_with", "\(error)") }
            }
            if let v: DocumentLock = r.choice("document_lock", in: t, of: S.signature) {
                s.capture.documentLock = v
                // The lock is part of the device's signature: without one there is nothing to lock with.
                if v != .none && t["sign_with"] == nil {
                    r.problem("signature.document_lock", "document_lock = \"\(v.rawValue)\" locks a signed PDF with the device's "
                              + "digital signature, and [signature] names none: write sign_with (inkkiosk keygen --signing FILE), "
                              + "or document_lock = \"none\"")
                }
            }
            if let v: DocumentToSign.Review = r.choice("min_review", in: t, of: S.signature) { s.capture.minReview = v }
            if let v = r.bool("keep_signed_pdf", in: t, of: S.signature) { s.capture.keepSignedPDF = v }
            if let v = r.bool("store_plaintext", in: t, of: S.signature) {
                s.capture.storePlaintext = v
                if v && t["encrypt_to"] != nil {
                    r.problem("signature.store_plaintext", "store_plaintext = true and encrypt_to contradict each other: "
                              + "keep encrypt_to (captures stored encrypted) or store_plaintext (stored readable), not both")
                }
            }
        }
        if let t = r.table("classroom", in: root, at: "") {
            r.only(S.classroom, in: t)
            if let v = r.path("save_dir", in: t, of: S.classroom) { s.capture.saveDirectory = v }
            if let v = r.path("worksheets", in: t, of: S.classroom) { s.worksheets.folders[0] = v }
            if let v = r.path("worksheets_usb", in: t, of: S.classroom) { s.worksheets.folders.append(v) }
            if let v = t["palette"] {
                if let colors = v.array?.enumerated().compactMap({ i, c -> RGBA? in
                    guard let text = c.string, let color = RGBA(hex: text) else {
                        r.problem("classroom.palette", "entry \(i + 1) must be a colour \"#rrggbb\" or \"#rrggbbaa\""); return nil
                    }
                    return color
                }), S.paletteLength.contains(colors.count) {
                    s.look.palette = colors
                } else {
                    r.problem("classroom.palette", "must be a list of \(S.paletteLength.lowerBound) to \(S.paletteLength.upperBound) colours, "
                              + "e.g. [\"#0d1759\", \"#cc1a1a\"]")
                }
            }
            if t["widths"] != nil {
                if let v = r.numberList("widths", in: t, of: S.classroom) { s.look.widths = v }
            }
        }
        if let t = r.table("pdf_helper", in: root, at: "") {
            r.only(S.pdfHelper, in: t)
            if let v = r.integer("uid", in: t, of: S.pdfHelper) { s.pdfHelper.uid = UInt32(v) }
            if let v = r.integer("gid", in: t, of: S.pdfHelper) { s.pdfHelper.gid = UInt32(v) }
            if let v: PDFHelperSettings.WithoutLandlock = r.choice("without_landlock", in: t, of: S.pdfHelper) { s.pdfHelper.withoutLandlock = v }
        }
        if let t = r.table("limits", in: root, at: "") {
            r.only(S.limits, in: t)
            if let v = r.integer("worksheet_cache_mb", in: t, of: S.limits) { s.worksheets.cacheMB = v }
            if let v = r.integer("worksheet_copies_mb", in: t, of: S.limits) { s.worksheets.copiesMB = v }
            if let v = r.number("worksheet_stuck_seconds", in: t, of: S.limits) { s.pdfHelper.stuckSeconds = v }
            if let v = r.integer("worksheet_helper_mb", in: t, of: S.limits) { s.pdfHelper.memoryMB = v }
            if let v = r.integer("worksheet_helper_cpu_seconds", in: t, of: S.limits) { s.pdfHelper.cpuSeconds = v }
            if let v = r.integer("worksheet_save_mb", in: t, of: S.limits) { s.pdfHelper.fileMB = v }
            if let v = r.integer("worksheet_mb", in: t, of: S.limits) { s.worksheets.maxMB = v }
            if let v = r.integer("worksheet_pages", in: t, of: S.limits) { s.worksheets.maxPages = v }
            if let v = r.integer("worksheets_listed", in: t, of: S.limits) { s.worksheets.listed = v }
            if let v = r.integer("undo_depth", in: t, of: S.limits) { s.notebook.undoDepth = v }
            if let v = r.integer("page_cache_mb", in: t, of: S.limits) { s.notebook.pageCacheMB = v }
            if let v = r.integer("outbox_keep", in: t, of: S.limits) { s.capture.outboxRetention.keep = v }
            if let v = r.number("outbox_days", in: t, of: S.limits) { s.capture.outboxRetention.maxAgeDays = v }
            if let v = r.integer("saves_keep", in: t, of: S.limits) { s.capture.savesRetention.keep = v }
            if let v = r.number("saves_days", in: t, of: S.limits) { s.capture.savesRetention.maxAgeDays = v }
            // The host's PDFs (`POST /documents`): a file's size and pages, and how many are kept.
            if let v = r.integer("document_mb", in: t, of: S.limits) { s.api.limits.maxDocumentBytes = v << 20 }
            if let v = r.integer("documents", in: t, of: S.limits) { s.api.limits.maxDocuments = v }
            if let v = r.integer("document_pages", in: t, of: S.limits) { s.api.limits.maxDocumentPages = v }
            if let v = r.integer("document_objects", in: t, of: S.limits) { s.api.limits.maxDocumentObjects = v }
            if let v = r.integer("document_inflate_mb", in: t, of: S.limits) { s.api.limits.maxDocumentInflatedBytes = v << 20 }
            if let v = r.number("document_seconds", in: t, of: S.limits) { s.api.limits.maxDocumentSeconds = v }
        }
        if let t = r.table("api", in: root, at: "") {
            r.only(S.api, in: t)
            let enabled = r.bool("enabled", in: t, of: S.api) ?? false
            let listen = r.string("listen", in: t, of: S.api) ?? APISettings.defaultAddress
            s.api.allowRemote = r.bool("allow_remote", in: t, of: S.api) ?? false
            s.api.tokenFile = r.path("token_file", in: t, of: S.api)
            if let v = r.path("documents_dir", in: t, of: S.api) { s.api.documentsDirectory = v }
            if let v = r.string("token", in: t, of: S.api) {
                if v == "none" {
                    s.api.tokenNone = true
                    if s.api.tokenFile != nil { r.problem("api.token", "token = \"none\" and token_file contradict each other: keep one") }
                } else {
                    r.problem("api.token", "may only be \"none\" (no token: every program on this machine may use the API); "
                              + "a token goes in token_file, never in this file")
                }
            }
            if let v = t["token_group"] {
                if let gid = Self.groupID(v) { s.api.tokenGroup = gid } else {
                    r.problem("api.token_group", "\(v.tomlValue) is not a group of this system (a name or a number)")
                }
            }
            s.api.access.allowedHosts = Self.list("allowed_hosts", in: t, &r) { text in
                guard let name = APIAccess.hostName(text), !name.contains("*") else {
                    return "\"\(text)\" is not a host name or IP address (no wildcards)"
                }
                return nil
            }.compactMap(APIAccess.hostName)
            s.api.access.allowedOrigins = Self.list("allowed_origins", in: t, &r) { text in
                let lower = APIAccess.normalizedOrigin(text)
                guard let scheme = ["http://", "https://"].first(where: lower.hasPrefix),
                      !lower.dropFirst(scheme.count).isEmpty, !lower.dropFirst(scheme.count).contains("/"), !lower.contains("*") else {
                    return "\"\(text)\" is not an origin such as \"https://pos.example\" or \"http://localhost:8080\" (scheme, host, port; no path)"
                }
                return nil
            }.map(APIAccess.normalizedOrigin)
            if let users = Self.ids("socket_users", in: t, &r, lookup: Self.userID) { s.api.access.socketUsers = users }
            s.api.access.socketGroups = Self.ids("socket_groups", in: t, &r, lookup: Self.groupID) ?? []
            // Checked even when the API is off: check-config then catches it before someone turns it on.
            do {
                let address = try APIAddress.parse(listen)
                if let refusal = address.refusal(allowRemote: s.api.allowRemote, hasToken: !s.api.tokenNone) {
                    r.problem(t["listen"] == nil ? "api" : "api.listen", refusal)
                }
                // A token that is there is read now: too weak or world-readable stops the kiosk at
                // start with this file and line (a missing one is made at the first start).
                if s.api.needsToken(address) && (enabled || s.api.tokenFile != nil) && access(s.apiTokenPath, F_OK) == 0 {
                    do { _ = try BearerToken.load(path: s.apiTokenPath) } catch {
                        r.problem(t["token_file"] == nil ? "api" : "api.token_file", "\(error)")
                    }
                }
            } catch {
                r.problem("api.listen", error.description)
            }
            s.api.address = enabled ? listen : nil
            if let v = r.number("default_timeout", in: t, of: S.api) { s.api.defaultTimeout = v > 0 ? v : nil }
            readAPILimits(&r, t, into: &s.api.limits)
        }
    }
}

public enum HoldEraser: String, Sendable, CaseIterable { case stylus, stylus2, none }

/// Settings a config (or the command line) changes; nil keeps what is there.
public struct InkSettingsPatch: Sendable {
    public var tool: ToolKind?
    public var rotation: Rotation?
    public var leftHanded: Bool?
    public var penOnlyAfterPen: Double?
    public var secondFingerCancel: Double?
    public var tipUpReachMM: Double?
    public var brushes: [ToolKind: Brush] = [:]
    public var stylus: PreferredAction?
    public var stylus2: PreferredAction?
    public var stylus3: PreferredAction?
    public var holdEraser: HoldEraser?
    public var pad: PreferredAction?
    public var clickMaxDuration: Double?
    public var clickWhileDrawing: Bool?
    public var hover: HoverFade?
    public var devices: [DeviceSettings] = []
    /// Applied to every brush (the command line's --pressure-curve).
    public var pressureCurve: PressureCurve?

    public init() {}

    public func apply(to s: inout InteractionSettings) {
        if let tool { s.tool = tool }
        if let rotation { s.rotation = rotation }
        if let leftHanded { s.leftHanded = leftHanded }
        if let penOnlyAfterPen { s.penOnlyAfterPen = penOnlyAfterPen }
        if let secondFingerCancel { s.secondFingerCancelWindow = secondFingerCancel }
        if let tipUpReachMM { s.tipUp.maxMM = tipUpReachMM }
        for (tool, brush) in brushes { s.brushes[tool] = brush }
        if let pressureCurve { for (tool, b) in s.brushes { var b = b; b.pressureCurve = pressureCurve; s.brushes[tool] = b } }
        let holds = holdEraser ?? (s.buttons.first { $0.value.holdErases }.map { $0.key == ButtonCode.stylus ? .stylus : .stylus2 } ?? .none)
        for (code, action) in [(ButtonCode.stylus, stylus), (ButtonCode.stylus2, stylus2), (ButtonCode.stylus3, stylus3)] {
            let click = action ?? s.binding(code).click
            let erases = (code == ButtonCode.stylus && holds == .stylus) || (code == ButtonCode.stylus2 && holds == .stylus2)
            s.buttons[code] = ButtonBinding(click: click, holdErases: erases)
        }
        if let pad { s.padButtonAction = pad }
        if let clickMaxDuration { s.clickMaxDuration = clickMaxDuration }
        if let clickWhileDrawing { s.clickWhileDrawing = clickWhileDrawing }
        if let hover { s.hover = hover }
        if !devices.isEmpty { s.devices = devices }
    }
}

extension KioskConfig {
    /// Why signature mode does not start without `[signature] encrypt_to` or `store_plaintext`.
    public static let unsealedSignatures = "signature mode stores captures encrypted, and [signature] names no key: "
        + "make a key pair on the host with `inkkiosk keygen signature.key` (the private key, mode 0600: it stays "
        + "on the host, for `inkkiosk decrypt`; beside it signature.pub), copy signature.pub to the kiosk and write "
        + "encrypt_to = \"/etc/inkkiosk/signature.pub\" under [signature]; or write store_plaintext = true there "
        + "to store the signatures readable by anyone who can read the disk"

    /// A list of strings, each checked by `bad` (a message, or nil when it is fine); at most 64.
    static func list(_ key: String, in t: TOMLTable, _ r: inout ConfigReader, _ bad: (String) -> String?) -> [String] {
        guard let v = t[key] else { return [] }
        guard let items = v.array, items.count <= 64 else { r.problem("api.\(key)", "must be a list of at most 64 strings"); return [] }
        var out: [String] = []
        for item in items {
            guard let text = item.string else { r.problem("api.\(key)", "must be a list of strings, not \(item.tomlValue)"); continue }
            if let why = bad(text) { r.problem("api.\(key)", why); continue }
            out.append(text)
        }
        return out
    }

    /// A list of users or groups, by name or number, as ids; nil when the key is not there.
    static func ids(_ key: String, in t: TOMLTable, _ r: inout ConfigReader, lookup: (TOMLValueConvertible) -> UInt32?) -> [UInt32]? {
        guard let v = t[key] else { return nil }
        guard let items = v.array, items.count <= 64 else { r.problem("api.\(key)", "must be a list of at most 64 names or numbers"); return nil }
        var out: [UInt32] = []
        for item in items {
            guard let id = lookup(item) else {
                r.problem("api.\(key)", "\(item.tomlValue) is not a \(key == "socket_users" ? "user" : "group") of this system (a name or a number)")
                continue
            }
            out.append(id)
        }
        return out
    }

    static func userID(_ v: TOMLValueConvertible) -> UInt32? {
        if let n = v.int { return n >= 0 && n < Int(UInt32.max) ? UInt32(n) : nil }
        guard let name = v.string else { return nil }
        var entry = passwd(), found: UnsafeMutablePointer<passwd>?
        var storage = [CChar](repeating: 0, count: 4096)
        guard getpwnam_r(name, &entry, &storage, storage.count, &found) == 0, found != nil else { return nil }
        return UInt32(entry.pw_uid)
    }

    static func groupID(_ v: TOMLValueConvertible) -> UInt32? {
        if let n = v.int { return n >= 0 && n < Int(UInt32.max) ? UInt32(n) : nil }
        guard let name = v.string else { return nil }
        var entry = group(), found: UnsafeMutablePointer<group>?
        var storage = [CChar](repeating: 0, count: 16_384)
        guard getgrnam_r(name, &entry, &storage, storage.count, &found) == 0, found != nil else { return nil }
        return UInt32(entry.gr_gid)
    }

    /// `[api]`'s limits (docs/API.md): what one client may cost the kiosk.
    static func readAPILimits(_ r: inout ConfigReader, _ t: TOMLTable, into l: inout APILimits) {
        let api = ConfigSchema.api
        if let v = r.integer("max_connections", in: t, of: api) { l.maxConnections = v }
        if let v = r.number("request_timeout", in: t, of: api) { l.requestTimeout = v }
        if let v = r.number("idle_timeout", in: t, of: api) { l.idleTimeout = v }
        if let v = r.integer("max_request_line", in: t, of: api) { l.maxRequestLine = v }
        if let v = r.integer("max_header_bytes", in: t, of: api) { l.maxHeaderBytes = v }
        if let v = r.integer("max_body_bytes", in: t, of: api) { l.maxBodyBytes = v }
        if let v = r.integer("max_waits", in: t, of: api) { l.maxWaits = v }
        if let v = r.number("longest_wait", in: t, of: api) { l.longestWait = v }
        if let v = r.integer("max_connections_per_client", in: t, of: api) { l.maxConnectionsPerClient = v }
        if let v = r.integer("auth_failures", in: t, of: api) { l.authFailures = v }
        if let v = r.number("auth_failure_window", in: t, of: api) { l.authFailureWindow = v }
        if let v = r.integer("auth_clients_tracked", in: t, of: api) { l.authClientsTracked = v }
        if l.maxConnectionsPerClient > l.maxConnections && t["max_connections_per_client"] != nil {
            r.problem("api.max_connections_per_client",
                      "max_connections_per_client (\(l.maxConnectionsPerClient)) must not be more than max_connections (\(l.maxConnections))")
        }
        if l.maxRequestLine > l.maxHeaderBytes {
            r.problem(t["max_request_line"] == nil ? "api.max_header_bytes" : "api.max_request_line",
                      "max_request_line (\(l.maxRequestLine)) must not be more than max_header_bytes (\(l.maxHeaderBytes)): the line is part of the head")
        }
    }
}
