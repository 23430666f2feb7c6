// SPDX-License-Identifier: Apache-2.0
import InkConfig
import Foundation
import Glibc
import Testing
import InkCore
import InkRender
@testable import InkStorage
import InkAPI
@testable import InkKiosk
import InkTestSupport

/// A real key pair, made by openssl as docs/DEPLOYMENT.md says: the private key (PKCS#8 PEM) and the
/// public key (SubjectPublicKeyInfo PEM).
func opensslKeyPair(in dir: String, _ name: String, algorithm: String = "X25519") throws -> (key: String, pub: String) {
    let openssl = try #require(which("openssl"), "openssl is needed to make real key pairs")
    let key = "\(dir)/\(name).key", pub = "\(dir)/\(name).pub"
    let generated = try run(openssl, algorithm == "EC" ? ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", key]
                                                       : ["genpkey", "-algorithm", algorithm, "-out", key])
    try #require(generated.status == 0, "openssl genpkey: \(generated.stderr)")
    let extracted = try run(openssl, ["pkey", "-in", key, "-pubout", "-out", pub])
    try #require(extracted.status == 0, "openssl pkey: \(extracted.stderr)")
    return (key, pub)
}

/// The fingerprint as a host computes it with openssl and sha256sum: SHA-256 of the raw 32-byte key.
func opensslFingerprint(_ pub: String) throws -> String {
    let der = pub + ".der"
    let converted = try run(try #require(which("openssl")), ["pkey", "-pubin", "-in", pub, "-outform", "DER", "-out", der])
    try #require(converted.status == 0, "\(converted.stderr)")
    let raw = pub + ".raw"
    try Data(contentsOf: URL(fileURLWithPath: der)).suffix(32).write(to: URL(fileURLWithPath: raw))
    let sum = try run("/usr/bin/sha256sum", [raw])
    return String(sum.stdout.prefix(64))
}

extension Data {
    func contains(_ text: String) -> Bool { range(of: Data(text.utf8)) != nil }
    func contains(bytes: [UInt8]) -> Bool { range(of: Data(bytes)) != nil }
}

/// The round trip needs real X25519 key pairs made by openssl (installed by `make deps`): a
/// machine without it fails here rather than skipping.
@Suite struct SignatureEncryption {
    let dir: String
    let strokes: [Stroke]

    init() throws {
        dir = try Fixtures.outputDirectory("sealing-\(UUID().uuidString.prefix(8))")
        strokes = try replay("zigzag").pipeline.document.strokes
    }

    func capture(_ name: String, to key: SealingKey? = nil) -> SignatureCapture {
        var c = SignatureCapture(name: name, strokes: strokes, screen: screenSize, dpi: 96, device: "Wacom Intuos5 touch M Pen",
                                 started: Date(timeIntervalSince1970: 1_790_000_000), ended: Date(timeIntervalSince1970: 1_790_000_004),
                                 exporter: CairoCaptureExporter())
        c.encryptTo = key
        return c
    }

    func bytes(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    /// A file's bytes as they are, but for one thing the encryption has nothing to do with: cairo
    /// numbers the SVG's groups with a counter of its own across the process (`id="surface896"`),
    /// so two SVGs of the same strokes made one after the other differ there. That number is
    /// blanked; every other byte must be equal. (`theSealedBytesAreTheBytesGiven` checks an SVG exactly.)
    func comparable(_ data: Data) -> Data {
        guard data.starts(with: Data("<?xml".utf8)) else { return data }
        let text = String(decoding: data, as: UTF8.self)
        return Data(text.replacingOccurrences(of: #"surface[0-9]+"#, with: "surface#", options: .regularExpression).utf8)
    }

    @Test func theSealedBytesAreTheBytesGiven() throws {
        let pair = try opensslKeyPair(in: dir, "exact")
        let key = try SealingKey.load(path: pair.pub), opening = try OpeningKey.load(path: pair.key)
        let svg = try Exporter(size: screenSize, background: .transparent).svgData(strokes)
        #expect(svg.starts(with: Data("<?xml".utf8)) && svg.count > 1000)
        for (name, plain) in [("sig-x.svg", svg), ("sig-x.png", Data()), ("sig-x.inkml", Data(repeating: 0x41, count: 1 << 20))] {
            let sealed = try SealedFile.seal(plain, name: name, to: key)
            let header = try SealedFile.header(of: sealed, file: name)
            #expect(sealed.count == plain.count + header.length + 16, "the header, the bytes, the tag")
            let opened = try SealedFile.open(sealed, file: name, with: opening)
            #expect(opened.name == name && opened.plain == plain)
            #expect(try SealedFile.seal(plain, name: name, to: key) != sealed, "a fresh ephemeral key every time")
        }
    }

    @Test func anEncryptedCaptureHoldsNoSignatureInTheClearAndDecryptsToThePlainFiles() throws {
        let pair = try opensslKeyPair(in: dir, "host")
        let key = try SealingKey.load(path: pair.pub)
        #expect(key.fingerprint == (try opensslFingerprint(pair.pub)), "the fingerprint a host computes with openssl")

        let plainOutbox = "\(dir)/plain", sealedOutbox = "\(dir)/sealed"
        let id = "sig-0001"
        let plain = try capture(id).write(to: plainOutbox)
        let sealed = try capture(id, to: key).write(to: sealedOutbox)
        #expect(sealed == ["png.hpke", "svg.hpke", "inkml.hpke", "json"].map { "\(sealedOutbox)/\(id)/\(id).\($0)" })
        #expect(try FileManager.default.contentsOfDirectory(atPath: sealedOutbox) == [id], "no temporary files")
        #expect(try FileManager.default.contentsOfDirectory(atPath: "\(sealedOutbox)/\(id)").sorted()
                == sealed.map { URL(fileURLWithPath: $0).lastPathComponent }.sorted())
        #expect(mode("\(sealedOutbox)/\(id)") == 0o700)
        for path in sealed { #expect(mode(path) == 0o600, "\(path)") }

        // Nothing in the outbox shows the signature: no PNG, no SVG, no InkML, not even a piece.
        let plainPNG = try bytes(plain[0]), plainInkML = try bytes(plain[2])
        for name in try FileManager.default.subpathsOfDirectory(atPath: sealedOutbox) {
            let path = "\(sealedOutbox)/\(name)"
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else { continue }
            let data = try bytes(path)
            #expect(!data.contains(bytes: [0x89, 0x50, 0x4e, 0x47]) && !data.contains("IHDR") && !data.contains("IDAT"), "PNG bytes in \(path)")
            for text in ["<ink", "<svg", "<?xml", "<trace", "w3.org", "<path"] { #expect(!data.contains(text), "\(text) in \(path)") }
            #expect(data.range(of: plainInkML.subdata(in: 400..<432)) == nil && data.range(of: plainPNG.subdata(in: 100..<132)) == nil)
        }

        // The JSON holds no ink, and says which key opens the files; its sums are the stored bytes'.
        let meta = try JSONDecoder().decode(SignatureCapture.Metadata.self, from: try bytes(sealed[3]))
        #expect(meta.encryption == .init(scheme: SealedFile.scheme, recipient: key.fingerprint,
                                         files: ["\(id).png.hpke", "\(id).svg.hpke", "\(id).inkml.hpke"]))
        let sums = try run("/usr/bin/sha256sum", Array(sealed.prefix(3)))
        for line in sums.stdout.split(separator: "\n") {
            let parts = line.split(separator: " ", omittingEmptySubsequences: true)
            #expect(meta.sha256[URL(fileURLWithPath: String(parts[1])).lastPathComponent] == String(parts[0]))
        }
        #expect(meta.sha256.count == 3 && meta.samples == strokes.reduce(0) { $0 + $1.samples.count })
        let plainMeta = try JSONDecoder().decode(SignatureCapture.Metadata.self, from: try bytes(plain[3]))
        let plainJSON = try bytes(plain[3])
        #expect(plainMeta.encryption == nil && !plainJSON.contains("encryption"), "a plain capture's JSON is as before")

        // The host's private key gives back exactly the files an unencrypted kiosk writes.
        let opening = try OpeningKey.load(path: pair.key)
        #expect(opening.publicKey == key)
        let out = "\(dir)/opened"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: false)
        for (sealedPath, plainPath) in zip(sealed.prefix(3), plain.prefix(3)) {
            let written = try SealedFile.decrypt(file: sealedPath, with: opening, into: out)
            #expect(written == "\(out)/\(URL(fileURLWithPath: plainPath).lastPathComponent)")
            #expect(try comparable(bytes(written)) == comparable(bytes(plainPath)), "\(written) is byte for byte the plain capture's")
            #expect(mode(written) == 0o600)
        }

        // The kiosk finds the capture again after a restart, encrypted, and serves it as such.
        let stored = try #require(SignatureCapture.stored(outbox: sealedOutbox).captures[id])
        #expect(stored.paths == sealed)
        let files = OutboxArchive.files(stored)
        #expect(files.encryptedTo == key.fingerprint && files.png == sealed[0] && files.json == sealed[3])
        let png = try #require(CaptureDownload(kind: "png", of: files))
        #expect(png.path == sealed[0] && png.contentType == "application/octet-stream")
        #expect(png.headers == ["Inkkiosk-Encrypted-To": key.fingerprint, "Content-Disposition": "attachment; filename=\"\(id).png.hpke\""])
        let json = try #require(CaptureDownload(kind: "json", of: files))
        #expect(json.contentType == "application/json" && json.headers.isEmpty && json.path == sealed[3])
        let plainFiles = OutboxArchive.files(try #require(SignatureCapture.stored(outbox: plainOutbox).captures[id]))
        #expect(plainFiles.encryptedTo == nil)
        let plainPNG2 = try #require(CaptureDownload(kind: "png", of: plainFiles))
        #expect(plainPNG2.contentType == "image/png" && plainPNG2.headers.isEmpty && plainPNG2.path == plain[0])
        #expect(CaptureDownload(kind: "svg", of: plainFiles)?.contentType == "image/svg+xml" && CaptureDownload(kind: "svg", of: plainFiles)?.headers == [:])
        #expect(CaptureDownload(kind: "pdf", of: plainFiles) == nil)
    }

    /// A capture that signed a document is bound to it: the document's SHA-256 is in the
    /// sealed header, authenticated with the ink; another hash in its place opens nothing.
    @Test func aCaptureBoundToADocumentSaysWhichAndCannotBeRebound() throws {
        let host = try opensslKeyPair(in: dir, "bound")
        let key = try SealingKey.load(path: host.pub), opening = try OpeningKey.load(path: host.key)
        let digest = String(repeating: "ab", count: 32), other = String(repeating: "cd", count: 32)
        let sealed = try SealedFile.seal(Data("<ink/>".utf8), name: "sig-b.inkml", to: key, document: digest)
        #expect(try SealedFile.header(of: sealed, file: "f").document == digest)
        #expect(try SealedFile.open(sealed, file: "f", with: opening).plain == Data("<ink/>".utf8))
        var rebound = sealed
        let at = try #require(sealed.indices.first { sealed[$0...].starts(with: [0xab, 0xab, 0xab, 0xab]) })
        rebound.replaceSubrange(at ..< at + 32, with: [UInt8](repeating: 0xcd, count: 32))
        #expect(try SealedFile.header(of: rebound, file: "f").document == other)
        #expect(throws: SealedFileError.self) { try SealedFile.open(rebound, file: "f", with: opening) }
        #expect(try SealedFile.header(of: SealedFile.seal(Data(), name: "sig-b.png", to: key), file: "f").document == nil)
        #expect(throws: (any Error).self) { try SealedFile.seal(Data(), name: "sig-b.png", to: key, document: "not-a-hash") }
    }

    @Test func aWrongKeyATamperedByteAndAMovedFileAreRefused() throws {
        let host = try opensslKeyPair(in: dir, "host"), other = try opensslKeyPair(in: dir, "other")
        let key = try SealingKey.load(path: host.pub)
        let opening = try OpeningKey.load(path: host.key), stranger = try OpeningKey.load(path: other.key)
        let sealed = try capture("sig-a", to: key).write(to: "\(dir)/outbox")
        let png = try bytes(sealed[0])
        let header = try SealedFile.header(of: png, file: sealed[0])
        #expect(header.name == "sig-a.png" && header.fingerprint == key.fingerprint && header.encapsulatedKey.count == 32)

        func refusal(_ data: Data, with key: OpeningKey = opening) -> SealedFileError? {
            do { _ = try SealedFile.open(data, file: "x.png.hpke", with: key); return nil } catch { return error }
        }
        let wrong = try #require(refusal(png, with: stranger))
        #expect(wrong.kind == .wrongKey && wrong.description.hasPrefix("x.png.hpke: this file was not encrypted to this key"), "\(wrong)")
        #expect(wrong.description.contains(key.fingerprint))

        // Any changed byte: in the ciphertext, its tag, the sealed name, the encapsulated key, the version.
        let nameAt = 8 + 1 + 6 + 32 + 2
        for (at, what) in [(png.count / 2, "ciphertext"), (png.count - 1, "tag"), (nameAt, "name"), (header.length - 1, "encapsulated key")] {
            var tampered = png
            tampered[at] ^= 0x01
            let error = try #require(refusal(tampered), "\(what)")
            #expect(error.kind == .authentication && error.description.contains("x.png.hpke: authentication failed"), "\(what): \(error)")
        }
        var otherFingerprint = png
        otherFingerprint[8 + 1 + 6] ^= 0x80
        #expect(refusal(otherFingerprint)?.kind == .wrongKey)
        var version = png
        version[8] = 3
        #expect(refusal(version)?.description == "x.png.hpke: format version 3; this inkkiosk reads versions 1 and 2")
        // A file bound to no document made to say it is bound (version 2): the header is
        // authenticated, so nothing opens (whatever the bytes read as).
        var bound = png
        bound[8] = 2
        #expect(refusal(bound) != nil)
        #expect(refusal(png.prefix(header.length - 3))?.kind == .truncated)
        #expect(refusal(png.prefix(header.length + 10))?.kind == .truncated)
        #expect(refusal(png.dropLast())?.kind == .authentication)
        #expect(refusal(Data("{\"captureId\": 1}".utf8))?.kind == .notSealed)

        // A file moved into another capture under that capture's name is noticed; a file merely
        // saved under another name (a download) opens under the name sealed inside it.
        let b = "\(dir)/b"
        try FileManager.default.createDirectory(atPath: b, withIntermediateDirectories: false)
        try png.write(to: URL(fileURLWithPath: "\(b)/sig-b.png.hpke"))
        #expect { try SealedFile.decrypt(file: "\(b)/sig-b.png.hpke", with: opening) } throws: {
            "\($0)".contains("holds sig-a.png, not sig-b.png: it was renamed or moved from another capture")
        }
        try png.write(to: URL(fileURLWithPath: "\(b)/download.bin"))
        #expect(try SealedFile.decrypt(file: "\(b)/download.bin", with: opening) == "\(b)/sig-a.png")
        #expect { try SealedFile.decrypt(file: "\(b)/download.bin", with: opening) } throws: { "\($0)".contains("exists already: not overwritten") }
        #expect(try FileManager.default.contentsOfDirectory(atPath: b).sorted() == ["download.bin", "sig-a.png", "sig-b.png.hpke"])

        // A name inside that could leave the output directory is never written, even sealed properly.
        let evil = try SealedFile.seal(Data("x".utf8), name: "../evil.png", to: key)
        #expect(refusal(evil)?.kind == .badName)
    }

    @Test func keyFilesAreCheckedStrictlyAndNameTheFile() throws {
        let x = try opensslKeyPair(in: dir, "x"), ed = try opensslKeyPair(in: dir, "ed", algorithm: "ED25519")
        let ec = try opensslKeyPair(in: dir, "ec", algorithm: "EC")
        let key = try SealingKey.load(path: x.pub)
        func write(_ name: String, _ text: String) throws -> String {
            let path = "\(dir)/\(name)"
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            return path
        }
        // The raw 32 bytes in base64 are the same key.
        let raw = try write("raw.b64", key.rawRepresentation.base64EncodedString() + "\n")
        #expect(try SealingKey.load(path: raw) == key)

        func problem(_ load: () throws -> Any) -> String {
            do { _ = try load(); return "accepted" } catch { return "\(error)" }
        }
        let pem = try String(contentsOfFile: x.pub, encoding: .utf8)
        let der = try #require(Data(base64Encoded: pem.split(separator: "\n").dropFirst().dropLast().joined()))
        let short = "-----BEGIN PUBLIC KEY-----\n\(der.dropLast(2).base64EncodedString())\n-----END PUBLIC KEY-----\n"
        let cases: [(String, String)] = [
            (x.key, "\(x.key): this is a private key: the kiosk needs only the public key"),
            (ed.pub, "\(ed.pub): not an X25519 key: this is an Ed25519 public key"),
            (ec.pub, "\(ec.pub): not an X25519 key: this is an EC (NIST curve) public key"),
            (try write("hello", "hello\n"), "\(dir)/hello: not PEM (-----BEGIN PUBLIC KEY-----) and not the base64 of a raw 32-byte X25519 key"),
            (try write("short.b64", Data(count: 31).base64EncodedString()), "\(dir)/short.b64: wrong length: the base64 holds 31 bytes"),
            (try write("short.pub", short), "\(dir)/short.pub: wrong length: an X25519 public key is 44 bytes of DER, this one is 42"),
            (try write("cut.pub", String(pem.split(separator: "\n").dropLast().joined(separator: "\n"))), "\(dir)/cut.pub: malformed PEM: no -----END"),
            (try write("empty.pub", "\n"), "\(dir)/empty.pub: the file is empty"),
            (try write("zero.b64", Data(count: 32).base64EncodedString()), "\(dir)/zero.b64: not a usable X25519 public key: a low-order point"),
            (try write("one.b64", Data([1] + [UInt8](repeating: 0, count: 31)).base64EncodedString()), "\(dir)/one.b64: not a usable X25519 public key: a low-order point"),
            ("\(dir)/missing.pub", "\(dir)/missing.pub: cannot open it: No such file or directory"),
            (dir, "\(dir): not a regular file"),
        ]
        for (path, expected) in cases {
            let said = problem { try SealingKey.load(path: path) }
            #expect(said.hasPrefix(expected), "\(path): \(said)")
        }
        // A file that cannot be opened keeps the system call's errno, not only its words.
        let missing = #expect(throws: KeyFileError.self) { try SealingKey.load(path: "\(dir)/missing.pub") }
        #expect(missing?.cause?.errno == ENOENT && missing?.cause?.path == "\(dir)/missing.pub")
        let privateCases: [(String, String)] = [
            (x.pub, "\(x.pub): this is the public key: decrypting needs the private key"),
            (ed.key, "\(ed.key): not an X25519 key: this is an Ed25519 private key"),
            (raw, "\(raw): not a PEM private key"),
        ]
        for (path, expected) in privateCases {
            let said = problem { try OpeningKey.load(path: path) }
            #expect(said.hasPrefix(expected), "\(path): \(said)")
        }
    }

    @Test func theConfigReadsTheKeyOnceAndSaysWhereItIsWrong() throws {
        let pair = try opensslKeyPair(in: dir, "config")
        let key = try SealingKey.load(path: pair.pub)
        let c = try KioskConfig.parse("mode = \"signature\"\n[signature]\nencrypt_to = \"\(pair.pub)\"\n", file: "k.toml")
        #expect(c.screen.capture.encryptTo == key)
        let screen = try #require(c.screen.makeScreen(metrics: ScreenMetrics(size: screenSize, pixelsPerMM: 4)) as? SignatureScreen)
        #expect(screen.settings.encryptTo == key)
        #expect(try KioskConfig.parse("[signature]\noutbox = \"/tmp/o\"\n", file: "k.toml").screen.capture.encryptTo == nil)

        for (value, message) in [
            (pair.key, "k.toml:3: signature.encrypt_to: \(pair.key): this is a private key"),
            ("/nonexistent/signature.pub", "k.toml:3: signature.encrypt_to: /nonexistent/signature.pub: cannot open it: No such file or directory"),
            ("signature.pub", "k.toml:3: signature.encrypt_to: must be an absolute path (got \"signature.pub\")"),
        ] {
            do {
                _ = try KioskConfig.parse("[signature]\noutbox = \"/tmp/o\"\nencrypt_to = \"\(value)\"\n", file: "k.toml")
                Issue.record("\(value) was accepted")
            } catch let e as ConfigError {
                #expect(e.problems.count == 1 && e.description.hasPrefix(message), "\(e)")
            }
        }
    }

    var binary: String { Fixtures.inkkioskBinary }

    @Test func theCommandLineChecksTheKeyAndDecryptsOnTheHost() throws {
        let pair = try opensslKeyPair(in: dir, "cli"), other = try opensslKeyPair(in: dir, "other")
        let key = try SealingKey.load(path: pair.pub)

        // check-config names the key (its fingerprint), or the line that is wrong.
        let good = "\(dir)/good.toml", bad = "\(dir)/bad.toml"
        try "mode = \"signature\"\n[signature]\nencrypt_to = \"\(pair.pub)\"\n".write(toFile: good, atomically: true, encoding: .utf8)
        try "[signature]\nencrypt_to = \"\(pair.key)\"\n".write(toFile: bad, atomically: true, encoding: .utf8)
        let checked = try run(binary, ["check-config", good])
        #expect(checked.status == 0 && checked.stdout.contains(key.fingerprint), "\(checked.stdout)\(checked.stderr)")
        let refused = try run(binary, ["check-config", bad])
        #expect(refused.status != 0 && refused.stderr.contains("\(bad):2: signature.encrypt_to: \(pair.key): this is a private key"), "\(refused.stderr)")
        // The kiosk itself does not start on it (before it touches the screen).
        let notStarted = try run(binary, ["run", "--config", bad])
        #expect(notStarted.status != 0 && notStarted.stderr.contains("not starting") && notStarted.stderr.contains("\(bad):2: signature.encrypt_to"))

        let id = "20261123T060412Z-3fa91c"
        let plain = try capture(id).write(to: "\(dir)/plain")
        let sealed = try capture(id, to: key).write(to: "\(dir)/sealed")
        let capture = "\(dir)/sealed/\(id)"

        // A whole capture directory, into --out (created).
        let out = "\(dir)/host"
        let opened = try run(binary, ["decrypt", "--key", pair.key, "--out", out, capture])
        #expect(opened.status == 0, "\(opened.stderr)")
        #expect(opened.stdout.split(separator: "\n") == ["inkml", "png", "svg"].map { "\(out)/\(id).\($0)"[...] })
        for path in plain.prefix(3) {
            let name = URL(fileURLWithPath: path).lastPathComponent
            #expect(try comparable(bytes("\(out)/\(name)")) == comparable(bytes(path)), "\(name)")
        }
        #expect(mode(out) == 0o700)

        // Never over an existing file; the others still come out.
        let again = try run(binary, ["decrypt", "--key", pair.key, "--out", out, sealed[0]])
        #expect(again.status != 0 && again.stderr.contains("\(out)/\(id).png exists already: not overwritten"), "\(again.stderr)")

        // The wrong key, a changed byte, a public key for a private one, a JSON: clear refusals, nothing written.
        let elsewhere = "\(dir)/elsewhere"
        let wrongKey = try run(binary, ["decrypt", "--key", other.key, "--out", elsewhere, sealed[1]])
        #expect(wrongKey.status != 0 && wrongKey.stderr.contains("\(sealed[1]): this file was not encrypted to this key"), "\(wrongKey.stderr)")
        let tamperedDir = "\(dir)/tampered"
        try FileManager.default.createDirectory(atPath: tamperedDir, withIntermediateDirectories: false)
        var damaged = try bytes(sealed[2])
        damaged[damaged.count - 20] ^= 0x40
        let tampered = "\(tamperedDir)/\(id).inkml.hpke"
        try damaged.write(to: URL(fileURLWithPath: tampered))
        let authentication = try run(binary, ["decrypt", "--key", pair.key, "--out", elsewhere, tampered])
        #expect(authentication.status != 0 && authentication.stderr.contains("\(tampered): authentication failed"), "\(authentication.stderr)")
        let publicKey = try run(binary, ["decrypt", "--key", pair.pub, sealed[0]])
        #expect(publicKey.status != 0 && publicKey.stderr.contains("\(pair.pub): this is the public key"), "\(publicKey.stderr)")
        let json = try run(binary, ["decrypt", "--key", pair.key, "--out", elsewhere, sealed[3]])
        #expect(json.status != 0 && json.stderr.contains("\(sealed[3]): not an encrypted inkkiosk file"), "\(json.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere).isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: tamperedDir) == ["\(id).inkml.hpke"])

        // Beside the encrypted files by default.
        let beside = try run(binary, ["decrypt", "--key", pair.key, sealed[0]])
        #expect(beside.status == 0 && beside.stdout == "\(capture)/\(id).png\n", "\(beside.stdout)\(beside.stderr)")
    }
}

extension SignatureEncryption {
    /// `inkkiosk keygen` makes the pair openssl would: the private key 0600, the public key
    /// beside it; openssl reads both, and what is sealed to the public key the CLI decrypts
    /// with the private one. It never writes over a key.
    @Test func keygenMakesAPairOpensslReadsAndDecryptOpens() throws {
        let key = "\(dir)/made.key", pub = "\(dir)/made.pub"
        let made = try run(binary, ["keygen", key])
        #expect(made.status == 0, "\(made.stderr)")
        #expect(mode(key) == 0o600)
        let sealing = try SealingKey.load(path: pub)
        #expect(made.stdout.contains(sealing.fingerprint) && made.stdout.contains("encrypt_to = \"/etc/inkkiosk/signature.pub\""), "\(made.stdout)")
        #expect(try opensslFingerprint(pub) == sealing.fingerprint)
        let derived = try run(try #require(which("openssl")), ["pkey", "-in", key, "-pubout"])
        let written = try String(contentsOfFile: pub, encoding: .utf8)
        #expect(derived.status == 0 && derived.stdout == written, "\(derived.stderr)")

        let id = "20261123T060412Z-4b1d2e"
        let sealed = try capture(id, to: sealing).write(to: "\(dir)/keygen-outbox")
        let opened = try run(binary, ["decrypt", "--key", key, "--out", "\(dir)/keygen-plain", "\(dir)/keygen-outbox/\(id)"])
        #expect(opened.status == 0 && opened.stdout.split(separator: "\n").count == 3, "\(opened.stderr)")
        #expect(try ImageSurface.readPNG("\(dir)/keygen-plain/\(id).png").size.width > 100)
        #expect(sealed.allSatisfy { !$0.hasSuffix(".png") })

        let before = try bytes(key)
        let again = try run(binary, ["keygen", key])
        #expect(again.status != 0 && again.stderr.contains("\(key) exists already: not overwritten"), "\(again.stderr)")
        #expect(try bytes(key) == before)
        let other = try run(binary, ["keygen", "\(dir)/second.key", "--public", pub])
        #expect(other.status != 0 && other.stderr.contains("\(pub) exists already"), "\(other.stderr)")
        #expect(!FileManager.default.fileExists(atPath: "\(dir)/second.key"), "nothing half made")
    }
}

/// Signature mode stores no capture in plaintext unless the config says so in as many words
/// (`[signature] store_plaintext = true`); without a key it does not start, and says where
/// and how to make one.
@Suite struct SealedByDefault {
    let dir: String
    let profile = Fixtures.packageDirectory.appendingPathComponent("config/signature.toml").path
    var binary: String { Fixtures.inkkioskBinary }

    init() throws { dir = try Fixtures.outputDirectory("sealed-\(UUID().uuidString.prefix(8))") }

    func problems(_ text: String, file: String = "k.toml") -> [String] {
        do { _ = try KioskConfig.parse(text, file: file); return [] } catch let e as ConfigError {
            return e.problems.map(\.description)
        } catch { return ["\(error)"] }
    }

    /// The line `[signature]` is on in the shipped profile.
    var signatureLine: Int {
        let lines = (try? String(contentsOfFile: profile, encoding: .utf8))?.split(separator: "\n", omittingEmptySubsequences: false) ?? []
        return (lines.firstIndex { $0 == "[signature]" } ?? -2) + 1
    }

    @Test func withoutAKeyOrStorePlaintextSignatureModeIsRefused() throws {
        let refusal = KioskConfig.unsealedSignatures
        #expect(refusal.contains("inkkiosk keygen") && refusal.contains("encrypt_to") && refusal.contains("store_plaintext = true"))
        // The shipped profile: the file, the [signature] line, what to do.
        #expect(problems(try String(contentsOfFile: profile, encoding: .utf8), file: profile) == ["\(profile):\(signatureLine): signature: \(refusal)"])
        // No [signature] at all: the mode's line; store_plaintext = false written out: still refused.
        #expect(problems("# a kiosk\nmode = \"signature\"\n") == ["k.toml:2: mode: \(refusal)"])
        #expect(problems("mode = \"signature\"\n[signature]\nstore_plaintext = false\n") == ["k.toml:2: signature: \(refusal)"])
        // Plaintext when asked for; other modes need neither.
        let plain = try KioskConfig.parse("mode = \"signature\"\n[signature]\nstore_plaintext = true\n", file: "k.toml")
        #expect(plain.screen.capture.storePlaintext && plain.screen.capture.signatureStorageChosen)
        #expect(problems("mode = \"classroom\"\n") == [] && problems("[signature]\noutbox = \"/srv/o\"\n") == [])
        #expect(problems("[signature]\nstore_plaintext = \"yes\"\n") == ["k.toml:2: signature.store_plaintext: must be true or false, not a string"])
    }

    @Test func aKeyAndStorePlaintextTogetherAreRefusedWithTheirLine() throws {
        let pair = try OpeningKey.generate()
        try pair.write(to: "\(dir)/both.key", publicKeyTo: "\(dir)/both.pub")
        #expect(problems("mode = \"signature\"\n[signature]\nencrypt_to = \"\(dir)/both.pub\"\n\nstore_plaintext = true\n")
                == ["k.toml:5: signature.store_plaintext: store_plaintext = true and encrypt_to contradict each other: "
                    + "keep encrypt_to (captures stored encrypted) or store_plaintext (stored readable), not both"])
        let sealed = try KioskConfig.parse("mode = \"signature\"\n[signature]\nencrypt_to = \"\(dir)/both.pub\"\nstore_plaintext = false\n", file: "k.toml")
        #expect(sealed.screen.capture.encryptTo == pair.publicKey && !sealed.screen.capture.storePlaintext)
    }

    /// The binary: check-config and run say the same, and run stops before it touches a screen;
    /// signature mode chosen on the command line is held to the same rule.
    @Test func theKioskDoesNotStartWithoutAKey() throws {
        let checked = try run(binary, ["check-config", profile])
        #expect(checked.status == 1 && checked.stderr.contains("\(profile):\(signatureLine): signature: signature mode stores captures encrypted"),
                "\(checked.stderr)")
        let refused = try run(binary, ["run", "--config", profile, "--card", "/nonexistent/card0"])
        #expect(refused.status == 1 && refused.stderr.contains("not starting") && refused.stderr.contains("inkkiosk keygen"), "\(refused.stderr)")

        let draw = "\(dir)/draw.toml", plain = "\(dir)/plain.toml"
        try "[ui]\nbutton_mm = 14\n".write(toFile: draw, atomically: true, encoding: .utf8)
        try "[signature]\nstore_plaintext = true\n".write(toFile: plain, atomically: true, encoding: .utf8)
        let flagged = try run(binary, ["run", "--config", draw, "--kiosk-mode", "signature", "--card", "/nonexistent/card0"])
        #expect(flagged.status == 1 && flagged.stderr.contains("\(draw): --kiosk-mode signature: signature mode stores captures encrypted"),
                "\(flagged.stderr)")
        let bare = try run(binary, ["run", "--kiosk-mode", "signature", "--card", "/nonexistent/card0"])
        #expect(bare.status == 1 && bare.stderr.contains("--kiosk-mode signature without --config: signature mode stores"), "\(bare.stderr)")
        // Plaintext asked for: past the rule, on to the screen (which is not there).
        let past = try run(binary, ["run", "--config", plain, "--kiosk-mode", "signature", "--card", "/nonexistent/card0"])
        #expect(past.status == 1 && !past.stderr.contains("stores captures encrypted") && past.stderr.contains("/nonexistent/card0"), "\(past.stderr)")
    }
}
