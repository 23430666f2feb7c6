// SPDX-License-Identifier: Apache-2.0
import Crypto
import FoundationEssentials
import Glibc
import InkCore
import InkDocument

/// One accepted signature, written to an outbox directory for the host system as a directory
/// of its own, `NAME/`, holding `NAME.png` (transparent, cropped to the ink with a margin),
/// `NAME.svg`, `NAME.inkml` (every sample, for verifying the dynamics) and `NAME.json`
/// (metadata with the SHA-256 of the other three). With `encryptTo` set, the PNG, SVG and
/// InkML are encrypted in memory before anything is written (`NAME.png.hpke`, … : `SealedFile`)
/// and the JSON, which holds no ink, says to which key. The four are written into a hidden
/// `.NAME.partial/` (mode 0700, each file created 0600), synced, and the directory is renamed
/// to `NAME/`: a host sees all four files or none, and a crash leaves only the hidden directory.
public struct SignatureCapture: Sendable {
    public struct Metadata: Codable, Sendable, Equatable {
        public var captureId: String
        public var started: String
        public var ended: String
        public var device: String
        public var screen: Screen
        public var strokes: Int
        public var samples: Int
        /// Of the other three files as they are in the directory (encrypted ones: their encrypted bytes).
        public var sha256: [String: String]
        /// Present when the PNG, SVG and InkML are encrypted.
        public var encryption: Encryption?
        /// Present when the capture signed a document (`NAME.pdf`).
        public var document: SignedDocument?

        public struct Screen: Codable, Sendable, Equatable {
            public var width: Int, height: Int, dpi: Double
        }

        /// The document signed, and where (`SignedPlace`'s keys: id, sha256, field, page,
        /// rect, review, lock): the capture is bound to its SHA-256 (in the sealed files'
        /// authenticated headers too); and what the update carried.
        public struct SignedDocument: Codable, Sendable, Equatable {
            public var place: SignedPlace
            /// Whether the update carries a digital signature (PAdES) besides the ink.
            public var digitallySigned: Bool
            /// The sealed InkML embedded in the PDF, if any.
            public var embedded: String?
            /// The pages the signer was shown before signing (1-based, in order).
            public var pagesShown: [Int]
            /// The SHA-256 of the signed PDF when it was not written beside the record
            /// (`[signature] keep_signed_pdf = false`: the host got it from memory); nil: it is
            /// `NAME.pdf`, its digest among the others'.
            public var unkeptPDF: String?

            enum CodingKeys: String, CodingKey { case digitallySigned, embedded, pagesShown, unkeptPDF = "unkeptPdfSha256" }

            public init(place: SignedPlace, digitallySigned: Bool, embedded: String?, pagesShown: [Int], unkeptPDF: String? = nil) {
                self.place = place; self.digitallySigned = digitallySigned; self.embedded = embedded; self.pagesShown = pagesShown
                self.unkeptPDF = unkeptPDF
            }

            // One flat object: the place's keys beside the others.
            public init(from decoder: any Decoder) throws {
                place = try SignedPlace(from: decoder)
                let c = try decoder.container(keyedBy: CodingKeys.self)
                digitallySigned = try c.decode(Bool.self, forKey: .digitallySigned)
                embedded = try c.decodeIfPresent(String.self, forKey: .embedded)
                pagesShown = try c.decode([Int].self, forKey: .pagesShown)
                unkeptPDF = try c.decodeIfPresent(String.self, forKey: .unkeptPDF)
            }

            public func encode(to encoder: any Encoder) throws {
                try place.encode(to: encoder)
                var c = encoder.container(keyedBy: CodingKeys.self)
                try c.encode(digitallySigned, forKey: .digitallySigned)
                try c.encodeIfPresent(embedded, forKey: .embedded)
                try c.encode(pagesShown, forKey: .pagesShown)
                try c.encodeIfPresent(unkeptPDF, forKey: .unkeptPDF)
            }

            /// `NAME.pdf` is in the capture's directory.
            public var pdfKept: Bool { unkeptPDF == nil }
        }

        public struct Encryption: Codable, Sendable, Equatable {
            /// `SealedFile.scheme`.
            public var scheme: String
            /// Which key opens the files: the hex SHA-256 of its raw 32-byte public key.
            public var recipient: String
            /// The encrypted files, e.g. `ID.png.hpke`.
            public var files: [String]
        }
    }

    public var name: String
    public var strokes: [Stroke]
    public var screen: PixelSize
    public var dpi: Double
    public var device: String
    public var started: Date
    public var ended: Date
    /// Around the ink in the cropped PNG and SVG, in pixels.
    public var margin = 16.0
    /// When set, the PNG, SVG and InkML are stored only encrypted to this key.
    public var encryptTo: SealingKey? = nil
    /// The document signed, with the screen's rectangle that showed its field: the ink in it
    /// goes into the field (`NAME.pdf`).
    public var document: SignedOnScreen? = nil
    /// Signs the document's update digitally (PAdES), when set.
    public var digitalSigner: (any DocumentSealer)? = nil
    /// `[signature] keep_signed_pdf`: the signed PDF is written beside the others (`NAME.pdf`,
    /// plain: it is the document, for the host to keep); false: only returned (`Written.heldPDF`).
    public var keepSignedPDF = true
    /// Draws the PNG and SVG (storage does not render).
    public var exporter: any CaptureExporter

    public init(name: String, strokes: [Stroke], screen: PixelSize, dpi: Double, device: String, started: Date, ended: Date,
                exporter: any CaptureExporter) {
        self.name = name; self.strokes = strokes; self.screen = screen; self.dpi = dpi
        self.device = device; self.started = started; self.ended = ended; self.exporter = exporter
    }

    /// Writes the capture into `outbox/NAME/`; returns the four paths (the encrypted files' with
    /// `.hpke`). An empty signature is refused.
    @discardableResult
    public func write(to outbox: String) throws -> [String] {
        try store(in: outbox).paths
    }

    /// What `store` wrote, and the signed PDF it did not write (`keepSignedPDF` false).
    public struct Written: Sendable {
        public var paths: [String]
        public var heldPDF: [UInt8]?
    }

    /// `write`, with the signed PDF handed back when it is not to be kept on the disk.
    public func store(in outbox: String) throws -> Written {
        try write(to: outbox, stoppingAt: nil)
    }

    /// Where the tests stop a `write` as a crash would: nothing after it runs, nothing is tidied.
    enum Step: Equatable { case written(files: Int), renamed }

    func write(to outbox: String, stoppingAt stop: Step?) throws -> Written {
        guard Self.isCaptureName(name) else {
            throw StorageError(description: "capture name '\(name)' must be letters, digits, '-' or '_'",
                               reason: "the capture name must be letters, digits, '-' or '_'")
        }
        guard let crop = exporter.crop(strokes, screen: screen, margin: margin) else {
            throw StorageError("an empty signature is not accepted")
        }
        try DurableFile.prepareDirectory(outbox)
        let final = Self.directory(of: name, in: outbox)
        guard access(final, F_OK) != 0 else {
            throw StorageError(description: "\(final) exists already: capture \(name) was written before", reason: "this capture was written before")
        }
        let partial = "\(outbox)/.\(name)\(Self.partialSuffix)"
        try Self.removeTree(partial)   // an earlier attempt that failed half way
        guard mkdir(partial, 0o700) == 0 else { throw SystemCallError("create", path: partial) }
        var heldPDF: [UInt8]?
        do {
            var hashes: [String: String] = [:], written = 0
            // Each file is made in memory (and encrypted there), then created 0600 and synced;
            // returns its name and bytes as written.
            @discardableResult
            func produce(_ ext: String, _ bytes: () throws -> Data) throws -> (name: String, bytes: Data) {
                var file = "\(name).\(ext)", data = try bytes()
                if let encryptTo, Self.sealedExtensions.contains(ext) {
                    data = try SealedFile.seal(data, name: file, to: encryptTo, document: document?.document.sha256)
                    file += SealedFile.suffix
                }
                try DurableFile.create("\(partial)/\(file)", data)
                hashes[file] = Self.sha256(data)
                written += 1
                if stop == .written(files: written) { throw Stopped() }
                return (file, data)
            }
            for picture in CapturePicture.allCases {
                try produce(picture.rawValue) { try exporter.encode(picture, strokes, screen: screen, crop: crop) }
            }
            let inkml = try produce("inkml") { Data(InkMLWriter(dpi: dpi, deviceName: device).document(strokes).utf8) }
            // The sealed InkML as written goes into the PDF too (never the plain one).
            let sealedInkML = encryptTo == nil ? nil : inkml
            var signed: Metadata.SignedDocument?
            if let document {
                let made = try DocumentSignature(signed: document, strokes: strokes, signedAt: ended,
                                                 evidence: sealedInkML, signer: digitalSigner).make()
                signed = made.record
                if keepSignedPDF {
                    try produce("pdf") { Data(made.bytes) }
                } else {
                    // Never on the disk: the record names it by its digest, the caller holds it for the host.
                    signed?.unkeptPDF = Self.sha256(Data(made.bytes))
                    heldPDF = made.bytes
                }
            }
            let encryption = encryptTo.map {
                Metadata.Encryption(scheme: SealedFile.scheme, recipient: $0.fingerprint,
                                    files: Self.sealedExtensions.map { "\(name).\($0)\(SealedFile.suffix)" })
            }
            let meta = Metadata(captureId: name, started: Self.timestamp(started), ended: Self.timestamp(ended), device: device,
                                screen: .init(width: screen.width, height: screen.height, dpi: dpi), strokes: strokes.count,
                                samples: strokes.reduce(0) { $0 + $1.samples.count }, sha256: hashes, encryption: encryption,
                                document: signed)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try produce("json") { try encoder.encode(meta) }
            try DurableFile.sync(partial)   // the four names inside, before the directory can be seen
            guard rename(partial, final) == 0 else { throw SystemCallError("rename \(partial) to", path: final) }
            if stop == .renamed { throw Stopped() }
        } catch let stopped as Stopped {
            throw stopped
        } catch {
            try? Self.removeTree(partial)   // a half-written capture must not linger (or fill the disk further)
            throw error
        }
        try DurableFile.sync(outbox)   // the rename itself survives a power cut
        let paths = Self.fileNames(of: name, sealed: encryptTo != nil, document: document != nil && keepSignedPDF).map { "\(final)/\($0)" }
        return Written(paths: paths, heldPDF: heldPDF)
    }

    struct Stopped: Error {}

    /// The files of one capture, in the order `write` produces them (the JSON last); `pdf` only
    /// for a capture that signed a document.
    public static let extensions = ["png", "svg", "inkml", "pdf", "json"]
    /// The files that hold ink, encrypted when the kiosk has a key. (The signed PDF shows the
    /// signature as the paper would: it is the document, for the host to keep.)
    public static let sealedExtensions = ["png", "svg", "inkml"]

    /// A capture's file names, in `extensions` order: `NAME.png` or `NAME.png.hpke`, …, `NAME.json`;
    /// `document`: a signed PDF is among them.
    public static func fileNames(of name: String, sealed: Bool, document: Bool = false) -> [String] {
        extensions.filter { document || $0 != "pdf" }
            .map { "\(name).\($0)" + (sealed && sealedExtensions.contains($0) ? SealedFile.suffix : "") }
    }

    /// What a capture's directory is called while it is written: `.NAME.partial`.
    static let partialSuffix = ".partial"

    /// Where capture `name`'s files are once it is complete.
    public static func directory(of name: String, in outbox: String) -> String { "\(outbox)/\(name)" }

    /// Letters, digits, '-' or '_': safe as a file name, never leaves the outbox.
    public static func isCaptureName(_ name: String) -> Bool {
        !name.isEmpty && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
    }

    static func timestamp(_ date: Date) -> String {
        Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(date)
    }

    /// Removes what a crash or power cut in the middle of `write` left in `outbox`: hidden
    /// `.NAME.partial/` directories (the ink is still in the journal: the signer sees it again
    /// and a new Accept writes it whole), and what the earlier flat layout could leave (hidden
    /// temporary files, a capture's files without its JSON). Returns what it removed.
    /// Only for start-up: a `write` running meanwhile would lose its files.
    @discardableResult
    public static func sweep(outbox: String) throws -> [String] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: outbox) else { return [] }
        let present = Set(names)
        var removed: [String] = []
        for name in names.sorted() {
            let path = "\(outbox)/\(name)"
            if name.hasPrefix(".") && name.hasSuffix(partialSuffix) {
                try removeTree(path)
                removed.append(name + "/")
                continue
            }
            let url = URL(fileURLWithPath: name)
            let ext = url.pathExtension, base = url.deletingPathExtension().lastPathComponent
            let temporary = name.hasPrefix(".") && name.hasSuffix(".tmp")
            let orphan = !name.hasPrefix(".") && extensions.dropLast().contains(ext) && !present.contains("\(base).json")
            guard temporary || orphan else { continue }
            guard unlink(path) == 0 else { throw SystemCallError("remove", path: path) }
            removed.append(name)
        }
        if !removed.isEmpty { try DurableFile.sync(outbox) }
        return removed
    }

    /// A complete capture found in the outbox.
    public struct Stored: Sendable, Equatable {
        public var name: String
        public var metadata: Metadata
        /// The paths of its four files, in `extensions` order.
        public var paths: [String]
    }

    /// The complete captures in `outbox` (directories named as captures, with a readable JSON),
    /// by name. A directory whose JSON cannot be read is left out and named in `problems`.
    public static func stored(outbox: String) -> (captures: [String: Stored], problems: [String]) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: outbox)) ?? []
        var found: [String: Stored] = [:], problems: [String] = []
        for name in names where isCaptureName(name) {
            let dir = directory(of: name, in: outbox)
            var isDir = false
            guard FileManager.default.fileExists(atPath: dir, isDirectory: &isDir), isDir else { continue }
            let json = "\(dir)/\(name).json"
            do {
                let meta = try JSONDecoder().decode(Metadata.self, from: Data(contentsOf: URL(fileURLWithPath: json)))
                found[name] = Stored(name: name, metadata: meta,
                                     paths: fileNames(of: name, sealed: meta.encryption != nil,
                                                      document: meta.document?.pdfKept == true).map { "\(dir)/\($0)" })
            } catch {
                problems.append("\(json): \(error)")
            }
        }
        return (found, problems)
    }

    /// Removes capture `name`'s files and directory from `outbox` (the host has taken them:
    /// biometric data must not linger). The JSON goes first, so that what a crash leaves is
    /// never taken for a whole capture. Returns false when there was nothing to remove.
    @discardableResult
    public static func remove(_ name: String, outbox: String) throws -> Bool {
        guard isCaptureName(name) else {
            throw StorageError(description: "capture name '\(name)' must be letters, digits, '-' or '_'",
                               reason: "the capture name must be letters, digits, '-' or '_'")
        }
        let dir = directory(of: name, in: outbox)
        guard access(dir, F_OK) == 0 else { return false }
        try removeTree(dir, first: "\(name).json")
        try DurableFile.sync(outbox)
        return true
    }

    /// Removes a directory of plain files (`first` before the others), then the directory.
    static func removeTree(_ dir: String, first: String? = nil) throws {
        guard let files = try? FileManager.default.contentsOfDirectory(atPath: dir) else {
            guard unlink(dir) == 0 || errno == ENOENT else { throw SystemCallError("remove", path: dir) }
            return
        }
        for file in files.filter({ $0 == first }) + files.filter({ $0 != first }) {
            guard unlink("\(dir)/\(file)") == 0 || errno == ENOENT else { throw SystemCallError("remove", path: "\(dir)/\(file)") }
        }
        guard rmdir(dir) == 0 || errno == ENOENT else { throw SystemCallError("remove", path: dir) }
    }

    static func sha256(_ data: Data) -> String {
        // swift-crypto's (BoringSSL, already in the binary for the sealing): OpenSSL's libcrypto
        // was 4.7 MB of the appliance's image for this one digest.
        hexString(SHA256.hash(data: data))
    }

}
