// SPDX-License-Identifier: Apache-2.0
import COpenSSL
import Glibc
import InkCore

/// A device's signing identity (`[signature] sign_with`): a private key (EC P-256 or RSA) and
/// its X.509 certificate, from one PEM file (`inkkiosk keygen --signing` makes one, self-signed).
///
/// Read and checked once, when the config is read; kept as the file's bytes and loaded into
/// libcrypto for each signature, so that the value is plain data (Sendable, no pointer to free).
public struct DeviceSigner: Sendable, Equatable {
    /// The file it was read from, for messages.
    public let path: String
    /// The certificate, DER: what the CMS embeds and the ESS attribute hashes.
    public let certificateDER: [UInt8]
    /// The certificate's subject, one line ("/CN=Kiosk 12/O=Shop").
    public let subject: String
    /// "EC P-256", "RSA 2048".
    public let keyDescription: String
    /// Something worth saying that does not stop signing: the certificate has expired, or is not valid yet.
    public let warning: String?
    private let pem: [UInt8]

    /// PEM files are a few kilobytes; a larger file is not one.
    static let largest = 256 * 1024

    public init(pemFile path: String) throws {
        try self.init(pem: try Self.readFile(path), path: path)
    }

    /// The identity from the PEM text `pem`; `path` names it in errors.
    public init(pem: [UInt8], path: String) throws {
        func problem(_ text: String) -> SigningError { SigningError("\(path): \(text)") }
        try OpenSSL.load()
        let text = String(decoding: pem, as: UTF8.self)
        guard text.contains("-----BEGIN ") else { throw problem("not PEM: no -----BEGIN line (a key and its certificate are expected)") }
        guard text.contains("PRIVATE KEY-----") else {
            throw problem("no private key in it (a -----BEGIN PRIVATE KEY----- block is expected next to the certificate)")
        }
        guard text.contains("-----BEGIN CERTIFICATE-----") else {
            throw problem("no certificate in it (a -----BEGIN CERTIFICATE----- block is expected next to the key)")
        }
        if text.contains("ENCRYPTED PRIVATE KEY") || text.contains("Proc-Type: 4,ENCRYPTED") {
            throw problem("the private key is encrypted: the kiosk signs unattended and has no password to give (openssl pkey -in FILE to decrypt it)")
        }
        let (key, certificate) = try Self.load(pem, path: path)
        ERR_clear_error()
        guard X509_check_private_key(certificate.pointer, key.pointer) == 1 else {
            ERR_clear_error()
            throw problem("the private key does not match the certificate's public key")
        }
        let kind = EVP_PKEY_get_base_id(key.pointer)
        let bits = EVP_PKEY_get_bits(key.pointer)
        switch kind {
        case EVP_PKEY_EC:
            guard bits == 256 else { throw problem("an EC key of \(bits) bits: only P-256 is supported (or RSA)") }
            keyDescription = "EC P-256"
        case EVP_PKEY_RSA:
            guard bits >= 2048 else { throw problem("an RSA key of \(bits) bits is too weak to sign with (2048 at least)") }
            keyDescription = "RSA \(bits)"
        default:
            throw problem("the key is neither EC P-256 nor RSA (libcrypto's key type \(kind))")
        }
        if X509_cmp_current_time(X509_get0_notAfter(certificate.pointer)) < 0 {
            warning = "\(path): the certificate has expired (validators will say so)"
        } else if X509_cmp_current_time(X509_get0_notBefore(certificate.pointer)) > 0 {
            warning = "\(path): the certificate is not valid yet (is the clock right?)"
        } else {
            warning = nil
        }
        self.path = path
        self.pem = pem
        certificateDER = try OpenSSL.certificateDER(certificate)
        subject = Self.subject(of: certificate)
    }

    public static func == (a: DeviceSigner, b: DeviceSigner) -> Bool { a.pem == b.pem && a.path == b.path }

    /// The key and the certificate in libcrypto, for one signature.
    func loaded() throws -> (key: OwnedKey, certificate: OwnedCertificate) { try Self.load(pem, path: path) }

    private static func load(_ pem: [UInt8], path: String) throws -> (key: OwnedKey, certificate: OwnedCertificate) {
        ERR_clear_error()
        let key = try OpenSSL.withBIO(pem) { bio in
            guard let key = ik_pem_read_private_key(bio) else { throw OpenSSL.failure("\(path): cannot read the private key") }
            return OwnedKey(key)
        }
        let certificate = try OpenSSL.withBIO(pem) { bio in
            guard let certificate = ik_pem_read_x509(bio) else { throw OpenSSL.failure("\(path): cannot read the certificate") }
            return OwnedCertificate(certificate)
        }
        return (key, certificate)
    }

    static func subject(of certificate: OwnedCertificate) -> String {
        guard let line = X509_NAME_oneline(X509_get_subject_name(certificate.pointer), nil, 0) else { return "?" }
        defer { ik_openssl_free(line) }
        return String(cString: line)
    }

    private static func readFile(_ path: String) throws -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw SigningError("\(path): cannot open it", cause: SystemCallError("open", path: path)) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw SigningError("\(path): cannot read it", cause: SystemCallError("fstat", path: path)) }
        guard info.st_mode & S_IFMT == S_IFREG else { throw SigningError("\(path): not a regular file") }
        guard info.st_size <= largest else { throw SigningError("\(path): \(info.st_size) bytes is too large for a key and certificate") }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16384)
        while true {
            let n = Glibc.read(fd, &buffer, buffer.count)
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw SigningError("\(path): cannot read it", cause: SystemCallError("read", path: path)) }
            if n == 0 { break }
            bytes += buffer.prefix(n)
            guard bytes.count <= largest else { throw SigningError("\(path): too large for a key and certificate") }
        }
        return bytes
    }
}
