// SPDX-License-Identifier: Apache-2.0
import Crypto
import InkCore
import FoundationEssentials
import InkLoop
import Glibc

// Signatures at rest: a capture's PNG, SVG and InkML encrypted to the host's X25519 public key
// (`[signature] encrypt_to`), so that a kiosk's disk holds no signature anyone can read; the
// host, with the private key, opens them (`inkkiosk decrypt`). One HPKE (RFC 9180) base-mode
// seal per file: DHKEM(X25519, HKDF-SHA256), HKDF-SHA256, ChaCha20-Poly1305.

/// Why a key file was refused, naming the file.
public struct KeyFileError: Error, CustomStringConvertible, Equatable {
    public var path: String
    public var problem: String
    /// The failed system call behind it, with its errno, if one was the cause.
    public var cause: SystemCallError?
    public var description: String { "\(path): \(problem)" + (cause.map { ": \(Errno.describe($0.errno))" } ?? "") }
    init(_ path: String, _ problem: String, cause: SystemCallError? = nil) { self.path = path; self.problem = problem; self.cause = cause }
}

/// The X25519 public key signatures are encrypted to: the PEM `openssl pkey -pubout` writes
/// (`-----BEGIN PUBLIC KEY-----`), or the base64 of the raw 32 bytes.
public struct SealingKey: Sendable, Equatable {
    /// The raw 32-byte public key (RFC 7748).
    public let rawRepresentation: Data
    /// SHA-256 of the raw key, 64 hex digits: names the key in the capture's JSON, the API's
    /// answers and the files' headers.
    public let fingerprint: String

    public init(rawRepresentation raw: some DataProtocol) throws {
        let bytes = Data(raw)
        guard bytes.count == 32 else { throw KeyFileError("", "an X25519 public key is 32 bytes, not \(bytes.count)") }
        rawRepresentation = bytes
        fingerprint = Self.fingerprint(of: bytes)
        // A low-order point (all zeros, for one) gives every sender the shared secret 0: anyone
        // could open what is sealed to it. Refused here, at start, not found at the first Accept.
        do {
            let point = try Curve25519.KeyAgreement.PublicKey(rawRepresentation: bytes)
            let secret = try Curve25519.KeyAgreement.PrivateKey().sharedSecretFromKeyAgreement(with: point)
            guard secret.withUnsafeBytes({ $0.contains { $0 != 0 } }) else {
                throw KeyFileError("", "not a usable X25519 public key: a low-order point, which would let anyone decrypt")
            }
        } catch let e as KeyFileError {
            throw e
        } catch {
            throw KeyFileError("", "not a usable X25519 public key (\(error))")
        }
    }

    /// Reads and checks the key file; every problem names the file.
    public static func load(path: String) throws -> SealingKey {
        try parse(try KeyText.read(path), path: path)
    }

    public static func parse(_ data: Data, path: String) throws -> SealingKey {
        let text = String(decoding: data, as: UTF8.self)
        let key: Data
        if let pem = try KeyText.pem(text, path: path) {
            switch pem.label {
            case "PUBLIC KEY":
                key = try KeyText.x25519(pem.der, prefix: KeyText.publicPrefix, what: "public", path: path)
            case "PRIVATE KEY", "ENCRYPTED PRIVATE KEY":
                throw KeyFileError(path, "this is a private key: the kiosk needs only the public key "
                                   + "(openssl pkey -in PRIVATE.key -pubout -out PUBLIC.pub); keep the private key off the kiosk")
            default:
                throw KeyFileError(path, "PEM \"\(pem.label)\" is not a public key (expected -----BEGIN PUBLIC KEY-----)")
            }
        } else {
            let word = text.trimmingSpacesAndNewlines()
            guard !word.isEmpty else { throw KeyFileError(path, "the file is empty") }
            guard let raw = Data(base64Encoded: word) else {
                throw KeyFileError(path, "not PEM (-----BEGIN PUBLIC KEY-----) and not the base64 of a raw 32-byte X25519 key")
            }
            guard raw.count == 32 else {
                throw KeyFileError(path, "wrong length: the base64 holds \(raw.count) bytes, an X25519 public key is 32")
            }
            key = raw
        }
        do { return try SealingKey(rawRepresentation: key) } catch let e as KeyFileError {
            throw KeyFileError(path, e.problem)
        }
    }

    static func fingerprint(of raw: Data) -> String {
        hexString(SHA256.hash(data: raw))
    }
}

/// The private key that opens sealed files: the PKCS#8 PEM `openssl genpkey -algorithm X25519`
/// writes (`-----BEGIN PRIVATE KEY-----`). Used on the host, never on the kiosk.
public struct OpeningKey: Sendable {
    let rawRepresentation: Data
    /// The matching public key.
    public let publicKey: SealingKey

    public init(rawRepresentation raw: some DataProtocol) throws {
        rawRepresentation = Data(raw)
        let key = try Curve25519.KeyAgreement.PrivateKey(rawRepresentation: rawRepresentation)
        publicKey = try SealingKey(rawRepresentation: key.publicKey.rawRepresentation)
    }

    public static func load(path: String) throws -> OpeningKey {
        try parse(try KeyText.read(path), path: path)
    }

    public static func parse(_ data: Data, path: String) throws -> OpeningKey {
        let text = String(decoding: data, as: UTF8.self)
        guard let pem = try KeyText.pem(text, path: path) else {
            throw KeyFileError(path, "not a PEM private key (expected -----BEGIN PRIVATE KEY-----, as openssl genpkey -algorithm X25519 writes)")
        }
        switch pem.label {
        case "PRIVATE KEY":
            let raw = try KeyText.x25519(pem.der, prefix: KeyText.privatePrefix, what: "private", path: path)
            do { return try OpeningKey(rawRepresentation: raw) } catch {
                throw KeyFileError(path, "not a usable X25519 private key (\((error as? KeyFileError)?.problem ?? "\(error)"))")
            }
        case "ENCRYPTED PRIVATE KEY":
            throw KeyFileError(path, "the private key is protected by a passphrase: write a plain copy for this run "
                               + "(openssl pkey -in \(path) -out PLAIN.key) and keep it as safe as the original")
        case "PUBLIC KEY":
            throw KeyFileError(path, "this is the public key: decrypting needs the private key")
        default:
            throw KeyFileError(path, "PEM \"\(pem.label)\" is not a private key (expected -----BEGIN PRIVATE KEY-----)")
        }
    }
}

extension SealingKey {
    /// SubjectPublicKeyInfo PEM, as `openssl pkey -pubout` writes it.
    public var pemRepresentation: String { KeyText.pem("PUBLIC KEY", KeyText.publicPrefix + rawRepresentation) }
}

extension OpeningKey {
    /// A new key pair, from the system's secure random generator.
    public static func generate() throws -> OpeningKey {
        try OpeningKey(rawRepresentation: Curve25519.KeyAgreement.PrivateKey().rawRepresentation)
    }

    /// PKCS#8 PEM, as `openssl genpkey -algorithm X25519` writes it.
    public var pemRepresentation: String { KeyText.pem("PRIVATE KEY", KeyText.privatePrefix + rawRepresentation) }

    /// Writes the private key to `path` (mode 0600) and the public key to `publicPath` (0644),
    /// each synced, never over an existing file; on failure neither is left behind.
    public func write(to path: String, publicKeyTo publicPath: String) throws {
        for p in [path, publicPath] where access(p, F_OK) == 0 {
            throw StorageError(description: "\(p) exists already: not overwritten (a key pair is made once; its captures need it)",
                               reason: "the key file exists already")
        }
        try KeyText.createNew(path, pemRepresentation, mode: 0o600)
        do {
            try KeyText.createNew(publicPath, publicKey.pemRepresentation, mode: 0o644)
            try DurableFile.sync(directoryOf: path)
            try DurableFile.sync(directoryOf: publicPath)
        } catch {
            unlink(path)
            throw error
        }
    }
}

/// Reading and checking key files.
enum KeyText {
    /// SubjectPublicKeyInfo for X25519 (OID 1.3.101.110), then the 32 key bytes.
    static let publicPrefix: [UInt8] = [0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x6e, 0x03, 0x21, 0x00]
    /// PKCS#8 v1 PrivateKeyInfo for X25519, then the 32 key bytes.
    static let privatePrefix: [UInt8] = [0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x6e, 0x04, 0x22, 0x04, 0x20]
    /// Key files are a few hundred bytes; a larger file is not one.
    static let largest = 64 * 1024

    static func read(_ path: String) throws -> Data {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw KeyFileError(path, "cannot open it", cause: SystemCallError("open", path: path)) }
        let handle = OwnedFileDescriptor(fd)
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw KeyFileError(path, "cannot read it", cause: SystemCallError("fstat", path: path)) }
        guard info.st_mode & S_IFMT == S_IFREG else { throw KeyFileError(path, "not a regular file") }
        guard info.st_size <= largest else { throw KeyFileError(path, "\(info.st_size) bytes is too large for a key file") }
        do { return try handle.readToEnd() ?? Data() } catch { throw KeyFileError(path, "cannot read it: \(error)") }
    }

    /// The one PEM block the text holds (label and DER), or nil when the text is not PEM at all.
    /// Anything else around the block, a second block, a label that does not match, or a body
    /// that is not base64 is refused.
    static func pem(_ text: String, path: String) throws -> (label: String, der: Data)? {
        let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingSpaces() }.filter { !$0.isEmpty }
        guard lines.contains(where: { $0.hasPrefix("-----BEGIN") }) else { return nil }
        func label(_ line: String, _ word: String) -> String? {
            let head = "-----\(word) ", tail = "-----"
            guard line.hasPrefix(head), line.hasSuffix(tail), line.count >= head.count + tail.count else { return nil }
            return String(line.dropFirst(head.count).dropLast(tail.count))
        }
        guard let first = lines.first, let begin = label(first, "BEGIN") else {
            throw KeyFileError(path, "malformed PEM: text before the -----BEGIN line")
        }
        guard let endIndex = lines.firstIndex(where: { $0.hasPrefix("-----END") }) else {
            throw KeyFileError(path, "malformed PEM: no -----END \(begin)----- line (is the file cut short?)")
        }
        guard label(lines[endIndex], "END") == begin else {
            throw KeyFileError(path, "malformed PEM: -----BEGIN \(begin)----- ends with \(lines[endIndex])")
        }
        guard endIndex == lines.count - 1 else { throw KeyFileError(path, "malformed PEM: more after the -----END line (one key per file)") }
        let body = lines[1..<endIndex]
        guard !body.contains(where: { $0.contains(":") }) else {
            throw KeyFileError(path, "PEM with headers (a legacy encrypted key?) is not supported")
        }
        guard let der = Data(base64Encoded: body.joined()), !der.isEmpty else {
            throw KeyFileError(path, "malformed PEM: the body is not base64")
        }
        return (begin, der)
    }

    /// The 32 key bytes after `prefix`, or a reason naming what the DER is instead.
    static func x25519(_ der: Data, prefix: [UInt8], what: String, path: String) throws -> Data {
        let bytes = [UInt8](der)
        // The algorithm's OID, where both structures keep it (after the version, for PKCS#8).
        let oidAt = what == "public" ? 4 : 7
        let oid = bytes.count > oidAt + 5 && bytes[oidAt] == 0x06 && bytes[oidAt + 1] == 0x03 ? Array(bytes[oidAt + 2 ..< oidAt + 5]) : []
        let others: [[UInt8]: String] = [[0x2b, 0x65, 0x70]: "Ed25519", [0x2b, 0x65, 0x6f]: "X448", [0x2b, 0x65, 0x71]: "Ed448"]
        if let name = others[oid] {
            throw KeyFileError(path, "not an X25519 key: this is an \(name) \(what) key; make one with openssl genpkey -algorithm X25519")
        }
        guard oid == [0x2b, 0x65, 0x6e] else {
            let kind = Self.contains(bytes, [0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01]) ? "this is an RSA \(what) key"
                : Self.contains(bytes, [0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01]) ? "this is an EC (NIST curve) \(what) key"
                : "its DER names another algorithm"
            throw KeyFileError(path, "not an X25519 key: \(kind); make one with openssl genpkey -algorithm X25519")
        }
        let expected = prefix.count + 32
        guard bytes.count == expected else {
            throw KeyFileError(path, "wrong length: an X25519 \(what) key is \(expected) bytes of DER, this one is \(bytes.count)")
        }
        guard bytes.starts(with: prefix) else {
            throw KeyFileError(path, "an X25519 \(what) key, but not in the form openssl writes (\(what == "public" ? "SubjectPublicKeyInfo" : "PKCS#8 v1"))")
        }
        return Data(bytes.suffix(32))
    }

    /// A PEM block: base64 lines of 64 characters between the BEGIN and END lines.
    static func pem(_ label: String, _ der: some Collection<UInt8>) -> String {
        let body = Data(der).base64EncodedString()
        var lines: [Substring] = []
        var rest = Substring(body)
        while !rest.isEmpty { lines.append(rest.prefix(64)); rest = rest.dropFirst(64) }
        return "-----BEGIN \(label)-----\n" + lines.joined(separator: "\n") + "\n-----END \(label)-----\n"
    }

    /// Creates `path` with `text` (it must not exist; not through a link), synced; removed again on failure.
    static func createNew(_ path: String, _ text: String, mode: mode_t) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        guard fd >= 0 else {
            if errno == EEXIST { throw StorageError(description: "\(path) exists already: not overwritten", reason: "the file exists already") }
            throw SystemCallError("create", path: path)
        }
        defer { close(fd) }
        do {
            try DurableFile.writeAll(fd, Array(text.utf8), path)
            guard fsync(fd) == 0 else { throw SystemCallError("sync", path: path) }
        } catch {
            unlink(path)
            throw error
        }
    }

    private static func contains(_ bytes: [UInt8], _ part: [UInt8]) -> Bool {
        guard bytes.count >= part.count else { return false }
        return (0...(bytes.count - part.count)).contains { bytes[$0 ..< $0 + part.count].elementsEqual(part) }
    }
}

/// Why a sealed file could not be opened, naming the file.
public struct SealedFileError: Error, CustomStringConvertible, Equatable {
    public enum Kind: Sendable, Equatable { case notSealed, unsupported, truncated, wrongKey, authentication, badName }
    public var kind: Kind
    public var description: String
}

/// One file encrypted to a `SealingKey`. The format (all numbers big-endian):
///
/// | bytes | field |
/// | --- | --- |
/// | 8 | magic `INKSEAL` and a zero byte |
/// | 1 | format version: 1, or 2 when bound to a document |
/// | 2, 2, 2 | the HPKE ciphersuite's ids (RFC 9180): KEM 0x0020 DHKEM(X25519, HKDF-SHA256), KDF 0x0001 HKDF-SHA256, AEAD 0x0003 ChaCha20-Poly1305 |
/// | 32 | SHA-256 of the recipient's raw public key (which key opens it) |
/// | 2 + n | the plain file's name, UTF-8 (`ID.png`): which capture, which file |
/// | 2 + 32 | version 2 only: the SHA-256 of the document the capture signed |
/// | 2 + n | the encapsulated key (32 bytes for X25519) |
/// | rest | the ciphertext, with its 16-byte tag |
///
/// HPKE base mode, `info` = "inkkiosk signature v1"; the whole header is the AAD, so a file
/// renamed into another capture, or any header byte changed, fails to open; a capture bound to
/// a document cannot be passed off for another one (its hash is authenticated with the ink).
public enum SealedFile {
    /// Appended to a sealed file's plain name: `ID.png.hpke`.
    public static let suffix = ".hpke"
    static let magic: [UInt8] = Array("INKSEAL".utf8) + [0]
    static let version: UInt8 = 1
    /// With the document's hash in the header.
    static let boundVersion: UInt8 = 2
    static let info = Data("inkkiosk signature v1".utf8)
    static var suite: HPKE.Ciphersuite { .Curve25519_SHA256_ChachaPoly }
    static let suiteIDs: [UInt16] = [0x0020, 0x0001, 0x0003]
    /// The scheme, as the capture's JSON names it.
    public static let scheme = "HPKE base, DHKEM(X25519, HKDF-SHA256), HKDF-SHA256, ChaCha20-Poly1305; inkkiosk sealed file v1"

    /// `plain` (the file called `name`) encrypted to `key`, header first: what goes on disk.
    /// `document`: the hex SHA-256 of the document the capture signs, authenticated with it.
    public static func seal(_ plain: some DataProtocol, name: String, to key: SealingKey, document: String? = nil) throws -> Data {
        let recipient = try Curve25519.KeyAgreement.PublicKey(rawRepresentation: key.rawRepresentation)
        var sender = try HPKE.Sender(recipientKey: recipient, ciphersuite: suite, info: info)
        let digest = try document.map { hex -> [UInt8] in
            guard let bytes = bytes(ofHex: hex), bytes.count == 32 else {
                throw StorageError(description: "'\(hex)' is not a SHA-256 to bind a capture to", reason: "not a SHA-256 to bind a capture to")
            }
            return bytes
        }
        let header = try Self.header(name: name, fingerprint: key.rawRepresentation, encapsulatedKey: sender.encapsulatedKey, document: digest)
        let sealed = try sender.seal(plain, authenticating: header)
        return header + sealed
    }

    /// What a sealed file's header says, read without a key.
    public struct Header: Sendable, Equatable {
        /// The plain file's name, e.g. `ID.png`.
        public var name: String
        /// The recipient key's fingerprint (hex SHA-256 of its raw bytes).
        public var fingerprint: String
        var encapsulatedKey: Data
        /// The hex SHA-256 of the document the capture signed (format version 2), else nil.
        public var document: String?
        /// The header's length: the ciphertext follows it.
        var length: Int
    }

    /// Whether `data` starts as a sealed file does (its magic).
    public static func looksSealed(_ data: Data) -> Bool { data.starts(with: magic) }

    public static func header(of data: Data, file: String) throws(SealedFileError) -> Header {
        let bytes = [UInt8](data.prefix(64 * 1024))
        guard bytes.starts(with: magic) else {
            throw SealedFileError(kind: .notSealed, description: "\(file): not an encrypted inkkiosk file (it does not start with INKSEAL)")
        }
        var at = magic.count
        func take(_ n: Int) throws(SealedFileError) -> ArraySlice<UInt8> {
            guard n <= bytes.count - at else {
                throw SealedFileError(kind: .truncated, description: "\(file): truncated: the file ends inside its header")
            }
            defer { at += n }
            return bytes[at ..< at + n]
        }
        func number() throws(SealedFileError) -> Int { let b = try take(2); return Int(b.first!) << 8 | Int(b.last!) }
        let version = try take(1).first!
        guard version == Self.version || version == Self.boundVersion else {
            throw SealedFileError(kind: .unsupported, description: "\(file): format version \(version); this inkkiosk reads versions 1 and 2")
        }
        let ids = [try number(), try number(), try number()]
        guard ids == suiteIDs.map(Int.init) else {
            let shown = ids.map { "0x" + String($0, radix: 16) }.joined(separator: ", ")
            throw SealedFileError(kind: .unsupported, description: "\(file): unsupported HPKE ciphersuite (KEM, KDF, AEAD = \(shown))")
        }
        let fingerprint = hexString(try take(32))
        let nameBytes = try take(try number())
        let name = String(decoding: nameBytes, as: UTF8.self)
        var document: String?
        if version == Self.boundVersion {
            let digest = try take(try number())
            guard digest.count == 32 else {
                throw SealedFileError(kind: .unsupported, description: "\(file): a document hash of \(digest.count) bytes, not 32")
            }
            document = hexString(digest)
        }
        let encapsulated = Data(try take(try number()))
        return Header(name: name, fingerprint: fingerprint, encapsulatedKey: encapsulated, document: document, length: at)
    }

    /// The plain file (and its name) of a sealed one; `file` names it in errors.
    public static func open(_ data: Data, file: String, with key: OpeningKey) throws(SealedFileError) -> (name: String, plain: Data) {
        let header = try header(of: data, file: file)
        guard header.fingerprint == key.publicKey.fingerprint else {
            throw SealedFileError(kind: .wrongKey, description: "\(file): this file was not encrypted to this key "
                                  + "(it was encrypted to key \(header.fingerprint); this key's public half is \(key.publicKey.fingerprint))")
        }
        guard isPlainName(header.name) else {
            throw SealedFileError(kind: .badName, description: "\(file): the name inside, \"\(header.name)\", is not a capture's file name")
        }
        let body = data.dropFirst(header.length)
        guard body.count >= 16 else {
            throw SealedFileError(kind: .truncated, description: "\(file): truncated: \(body.count) bytes after the header, "
                                  + "fewer than the 16-byte authentication tag")
        }
        do {
            let privateKey = try Curve25519.KeyAgreement.PrivateKey(rawRepresentation: key.rawRepresentation)
            var recipient = try HPKE.Recipient(privateKey: privateKey, ciphersuite: suite, info: info, encapsulatedKey: header.encapsulatedKey)
            let plain = try recipient.open(body, authenticating: data.prefix(header.length))
            return (header.name, plain)
        } catch {
            throw SealedFileError(kind: .authentication, description: "\(file): authentication failed: the file was changed, "
                                  + "cut short or damaged after it was encrypted (nothing was decrypted)")
        }
    }

    /// A capture's file name, `ID.png`, `ID.svg` or `ID.inkml`: safe to write anywhere.
    public static func isPlainName(_ name: String) -> Bool {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 2 && SignatureCapture.isCaptureName(String(parts[0])) && SignatureCapture.sealedExtensions.contains(String(parts[1]))
    }

    static func header(name: String, fingerprint raw: Data, encapsulatedKey: Data, document: [UInt8]? = nil) throws -> Data {
        let nameBytes = Array(name.utf8)
        guard nameBytes.count <= 1024, encapsulatedKey.count <= 1024 else { throw StorageError("name or key too long to seal") }
        func number(_ n: Int) -> [UInt8] { [UInt8(n >> 8), UInt8(n & 0xff)] }
        var out = magic + [document == nil ? version : boundVersion] + suiteIDs.flatMap { number(Int($0)) }
        out += SHA256.hash(data: raw)
        out += number(nameBytes.count) + nameBytes
        if let document { out += number(document.count) + document }
        out += number(encapsulatedKey.count) + encapsulatedKey
        return Data(out)
    }

    /// Opens each sealed file and writes its plain file into `directory` (by default beside it)
    /// under the name sealed inside (`ID.png`), created 0600, never over an existing file.
    /// A sealed file whose own name (`X.hpke`) says another capture's file is refused: it was
    /// moved from another capture. Returns the path written.
    public static func decrypt(file: String, with key: OpeningKey, into directory: String? = nil) throws -> String {
        let input = Glibc.open(file, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw SystemCallError("open", path: file) }
        let data: Data
        do { data = try OwnedFileDescriptor(input).readToEnd() ?? Data() } catch {
            throw StorageError("\(file): cannot read it", cause: error)
        }
        let (name, plain) = try open(data, file: file, with: key)
        let base = URL(fileURLWithPath: file).lastPathComponent
        if base.hasSuffix(suffix), String(base.dropLast(suffix.count)) != name {
            throw SealedFileError(kind: .badName, description: "\(file): holds \(name), not \(base.dropLast(suffix.count)): "
                                  + "it was renamed or moved from another capture")
        }
        let dir = directory ?? URL(fileURLWithPath: file).deletingLastPathComponent().path
        let out = "\(dir)/\(name)"
        let fd = Glibc.open(out, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            if errno == EEXIST { throw StorageError(description: "\(out) exists already: not overwritten", reason: "the file exists already") }
            throw SystemCallError("create", path: out)
        }
        do {
            defer { close(fd) }
            try DurableFile.writeAll(fd, plain, out)
            guard fsync(fd) == 0 else { throw SystemCallError("sync", path: out) }
        } catch {
            unlink(out)
            throw error
        }
        return out
    }
}
