// SPDX-License-Identifier: Apache-2.0
import COpenSSL
import InkCore

/// libcrypto's objects owned by Swift: each freed once, when its owner goes.
final class OwnedKey {
    let pointer: OpaquePointer
    init(_ pointer: OpaquePointer) { self.pointer = pointer }
    deinit { EVP_PKEY_free(pointer) }
}

final class OwnedCertificate {
    let pointer: OpaquePointer
    init(_ pointer: OpaquePointer) { self.pointer = pointer }
    deinit { X509_free(pointer) }
}

/// Calls into libcrypto, each failure with what was being done and libcrypto's own reasons.
enum OpenSSL {
    /// libcrypto, which the kiosk does not link (COpenSSL's libcrypto.c): loaded before the first
    /// call into it. Every way into this module's use of it (a device's identity read or made)
    /// calls this first.
    static func load() throws {
        var error: UnsafePointer<CChar>?
        guard ik_crypto_load(&error) == 0 else {
            throw SigningError(error.map { String(cString: $0) } ?? "cannot load OpenSSL's libcrypto")
        }
    }

    /// libcrypto's queued errors (emptied), as text: "what: reason; reason".
    static func failure(_ what: String) -> SigningError {
        var reasons: [String] = []
        while true {
            let code = ERR_get_error()
            guard code != 0 else { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            reasons.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(truncatingIfNeeded: $0) }, as: UTF8.self))
        }
        return SigningError(reasons.isEmpty ? what : "\(what): \(reasons.joined(separator: "; "))")
    }

    /// `body` given a read-only memory BIO over `bytes`.
    static func withBIO<T>(_ bytes: [UInt8], _ body: (OpaquePointer) throws -> T) throws -> T {
        try bytes.withUnsafeBytes { raw in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { throw failure("cannot make a memory BIO") }
            defer { BIO_free(bio) }
            return try body(bio)
        }
    }

    /// What `write` puts into a fresh memory BIO.
    static func written(_ what: String, _ write: (OpaquePointer) -> Int32) throws -> [UInt8] {
        guard let bio = BIO_new(BIO_s_mem()) else { throw failure("cannot make a memory BIO") }
        defer { BIO_free(bio) }
        guard write(bio) == 1 else { throw failure(what) }
        var data: UnsafePointer<UInt8>?
        let count = ik_bio_mem_data(bio, &data)
        guard let data, count > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: Int(count)))
    }

    /// The DER of an object through its `i2d_*` function.
    static func der(_ what: String, _ encode: (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>) -> Int32) throws -> [UInt8] {
        var out: UnsafeMutablePointer<UInt8>?
        let count = encode(&out)
        guard count > 0, let out else { throw failure("cannot encode \(what)") }
        defer { ik_openssl_free(out) }
        return Array(UnsafeBufferPointer(start: out, count: Int(count)))
    }

    static func certificateDER(_ certificate: OwnedCertificate) throws -> [UInt8] {
        try der("the certificate") { i2d_X509(certificate.pointer, $0) }
    }

    static func sha256(_ parts: [ArraySlice<UInt8>]) throws -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw failure("cannot make a digest context") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1 else { throw failure("cannot start SHA-256") }
        for part in parts {
            let ok = part.withUnsafeBytes { EVP_DigestUpdate(context, $0.baseAddress, $0.count) }
            guard ok == 1 else { throw failure("cannot hash with SHA-256") }
        }
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard EVP_DigestFinal_ex(context, &digest, &length) == 1 else { throw failure("cannot finish SHA-256") }
        return Array(digest.prefix(Int(length)))
    }

    /// `message` signed with SHA-256 by `key`: an ECDSA-Sig-Value (DER) for EC, PKCS#1 v1.5 for RSA.
    static func sign(_ message: [UInt8], with key: OwnedKey) throws -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw failure("cannot make a signing context") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key.pointer) == 1 else { throw failure("cannot start signing") }
        var length = 0
        guard EVP_DigestSign(context, nil, &length, message, message.count) == 1 else { throw failure("cannot size the signature") }
        var signature = [UInt8](repeating: 0, count: length)
        guard EVP_DigestSign(context, &signature, &length, message, message.count) == 1 else { throw failure("cannot sign") }
        return Array(signature.prefix(length))
    }
}

/// What went wrong signing, or making or loading a signing identity.
public struct SigningError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, in the signing's terms ("/etc/inkkiosk/device.pem: cannot open it").
    public var problem: String
    /// The failed system call behind it, with its errno, if one was the cause.
    public var cause: SystemCallError?
    public init(_ problem: String, cause: SystemCallError? = nil) {
        self.problem = problem
        self.cause = cause
    }
    public var description: String { cause.map { "\(problem): \(Errno.describe($0.errno))" } ?? problem }
}
