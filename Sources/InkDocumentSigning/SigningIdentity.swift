// SPDX-License-Identifier: Apache-2.0
import COpenSSL
import Glibc
import InkCore

/// A new device signing identity (`inkkiosk keygen --signing`): an EC P-256 key and a
/// self-signed X.509 v3 certificate for it (key usage digitalSignature and nonRepudiation, not a
/// CA), in one PEM file, key first. Self-signed is a start: a validator checks the signature's
/// integrity with it, and a shop that wants trust replaces the certificate by one its CA issued.
public enum SigningIdentity {
    /// The subject's attributes from `CN=Kiosk 12,O=Shop` (no escaped commas: a kiosk's name needs none).
    public static func subjectAttributes(_ subject: String) throws -> [(key: String, value: String)] {
        let known: Set<String> = ["CN", "O", "OU", "C", "L", "ST", "serialNumber", "emailAddress"]
        let parts = subject.split(separator: ",").map { $0.trimmingCharacters(in: " ") }
        guard !parts.isEmpty else { throw SigningError("the subject is empty (e.g. \"CN=Kiosk 12,O=Shop\")") }
        return try parts.map { part in
            guard let equals = part.firstIndex(of: "=") else { throw SigningError("'\(part)' in the subject is not KEY=VALUE") }
            let key = String(part[..<equals]), value = String(part[part.index(after: equals)...])
            guard known.contains(key) else {
                throw SigningError("'\(key)' in the subject is not one of \(known.sorted().joined(separator: ", "))")
            }
            guard !value.isEmpty else { throw SigningError("'\(key)' in the subject has no value") }
            if key == "C", value.count != 2 { throw SigningError("C in the subject must be a two-letter country code (got '\(value)')") }
            return (key, value)
        }
    }

    /// The PEM text of a new key and its certificate, valid from now for `days` days.
    public static func generate(subject: String, days: Int) throws -> [UInt8] {
        try generate(subject: subject, days: days, startingDaysAgo: 0)
    }

    /// The same, its validity starting `startingDaysAgo` days ago (the tests' expired certificates).
    static func generate(subject: String, days: Int, startingDaysAgo: Int) throws -> [UInt8] {
        guard (1...36_500).contains(days) else { throw SigningError("--days must be 1 to 36500 (got \(days))") }
        let attributes = try subjectAttributes(subject)
        try OpenSSL.load()
        guard let rawKey = ik_ec_p256_generate() else { throw OpenSSL.failure("cannot make an EC P-256 key") }
        let key = OwnedKey(rawKey)
        guard let rawCertificate = X509_new() else { throw OpenSSL.failure("cannot make a certificate") }
        let certificate = OwnedCertificate(rawCertificate)
        let x = certificate.pointer

        guard X509_set_version(x, 2) == 1 else { throw OpenSSL.failure("cannot set the certificate's version") }
        // A random positive serial of 127 bits (RFC 5280: at most 20 bytes, unique per issuer).
        guard let serial = BN_new() else { throw OpenSSL.failure("cannot make the serial") }
        defer { BN_free(serial) }
        guard BN_rand(serial, 127, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY) == 1,
              BN_to_ASN1_INTEGER(serial, X509_get_serialNumber(x)) != nil
        else { throw OpenSSL.failure("cannot set the serial") }
        guard X509_time_adj_ex(X509_getm_notBefore(x), Int32(-startingDaysAgo), 0, nil) != nil,
              X509_time_adj_ex(X509_getm_notAfter(x), Int32(days - startingDaysAgo), 0, nil) != nil
        else { throw OpenSSL.failure("cannot set the validity") }

        guard let name = X509_NAME_new() else { throw OpenSSL.failure("cannot make the subject") }
        defer { X509_NAME_free(name) }
        for (field, value) in attributes {
            let bytes = Array(value.utf8)
            guard X509_NAME_add_entry_by_txt(name, field, MBSTRING_UTF8, bytes, Int32(bytes.count), -1, 0) == 1 else {
                throw OpenSSL.failure("cannot put \(field)=\(value) into the subject")
            }
        }
        guard X509_set_subject_name(x, name) == 1, X509_set_issuer_name(x, name) == 1, X509_set_pubkey(x, key.pointer) == 1 else {
            throw OpenSSL.failure("cannot set the subject and key")
        }
        for (nid, value) in [(NID_basic_constraints, "critical,CA:FALSE"),
                             (NID_key_usage, "critical,digitalSignature,nonRepudiation"),
                             (NID_subject_key_identifier, "hash")] {
            guard let extensionValue = ik_self_signed_extension(x, nid, value) else { throw OpenSSL.failure("cannot make the extension \(value)") }
            defer { X509_EXTENSION_free(extensionValue) }
            guard X509_add_ext(x, extensionValue, -1) == 1 else { throw OpenSSL.failure("cannot add the extension \(value)") }
        }
        guard X509_sign(x, key.pointer, EVP_sha256()) > 0 else { throw OpenSSL.failure("cannot sign the certificate") }

        let keyPEM = try OpenSSL.written("cannot write the key") { PEM_write_bio_PrivateKey($0, key.pointer, nil, nil, 0, nil, nil) }
        let certificatePEM = try OpenSSL.written("cannot write the certificate") { PEM_write_bio_X509($0, x) }
        return keyPEM + certificatePEM
    }

    /// Writes a new identity to `path` (mode 0600; never over an existing file, nor through a
    /// link), synced, and returns it as read back.
    @discardableResult
    public static func create(at path: String, subject: String, days: Int) throws -> DeviceSigner {
        let pem = try generate(subject: subject, days: days)
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            let failure = SystemCallError("create", path: path)
            if failure.errno == EEXIST { throw SigningError("\(path) exists already: not overwritten") }
            throw SigningError("cannot create \(path)", cause: failure)
        }
        do {
            defer { close(fd) }
            var written = 0
            while written < pem.count {
                let n = pem[written...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { throw SigningError("cannot write \(path)", cause: SystemCallError("write", path: path)) }
                written += n
            }
            guard fsync(fd) == 0 else { throw SigningError("cannot sync \(path)", cause: SystemCallError("fsync", path: path)) }
            return try DeviceSigner(pem: pem, path: path)
        } catch {
            unlink(path)
            throw error
        }
    }
}

private extension Substring {
    func trimmingCharacters(in set: String) -> String {
        var s = self
        while let c = s.first, set.contains(c) { s.removeFirst() }
        while let c = s.last, set.contains(c) { s.removeLast() }
        return String(s)
    }
}
