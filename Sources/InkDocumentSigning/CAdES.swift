// SPDX-License-Identifier: Apache-2.0
import COpenSSL

/// The CMS a PAdES baseline B-B signature's /Contents holds (ETSI EN 319 142-1, 6.3; the CMS
/// part is CAdES, EN 319 122-1): SignedData, detached (the PDF's byte ranges are the content),
/// the signer's certificate in it, SHA-256, and exactly these signed attributes: content-type,
/// message-digest and ESS signing-certificate-v2 (which binds the certificate to the signature).
///
/// No signing-time attribute: PAdES puts the time in the signature dictionary's /M and says the
/// CMS shall not carry one. OpenSSL's `CMS_SignerInfo_sign` always adds it (before 3.2 no flag
/// stops it), so the signer info is built by OpenSSL with `CMS_CADES` (which adds the ESS
/// attribute) and signed here: the signed attributes' DER (a SET OF, sorted as DER wants)
/// signed with the key, the result put into the signer info.
enum CAdES {
    static func detachedSignature(over parts: [ArraySlice<UInt8>], key: OwnedKey, certificate: OwnedCertificate) throws -> [UInt8] {
        let digest = try OpenSSL.sha256(parts)
        let flags = UInt32(CMS_DETACHED | CMS_BINARY | CMS_PARTIAL)
        guard let cms = CMS_sign(nil, nil, nil, nil, flags) else { throw OpenSSL.failure("cannot start the CMS") }
        defer { CMS_ContentInfo_free(cms) }
        guard CMS_set_detached(cms, 1) == 1 else { throw OpenSSL.failure("cannot make the CMS detached") }
        let signerFlags = UInt32(CMS_CADES | CMS_NOSMIMECAP | CMS_BINARY | CMS_PARTIAL)
        guard let signer = CMS_add1_signer(cms, certificate.pointer, key.pointer, EVP_sha256(), signerFlags) else {
            throw OpenSSL.failure("cannot add the signer (CMS_add1_signer)")
        }
        guard CMS_signed_add1_attr_by_NID(signer, NID_pkcs9_contentType, V_ASN1_OBJECT, UnsafeRawPointer(OBJ_nid2obj(NID_pkcs7_data)), -1) == 1,
              CMS_signed_add1_attr_by_NID(signer, NID_pkcs9_messageDigest, V_ASN1_OCTET_STRING, digest, Int32(digest.count)) == 1
        else { throw OpenSSL.failure("cannot add the signed attributes") }
        guard CMS_signed_get_attr_by_NID(signer, NID_pkcs9_signingTime, -1) < 0 else {
            throw SigningError("the CMS has a signing-time attribute, which PAdES forbids")
        }

        let signature = try OpenSSL.sign(try signedAttributes(signer), with: key)
        guard let slot = CMS_SignerInfo_get0_signature(signer),
              ASN1_STRING_set(slot, signature, Int32(signature.count)) == 1
        else { throw OpenSSL.failure("cannot put the signature into the signer info") }
        return try OpenSSL.der("the CMS") { i2d_CMS_ContentInfo(cms, $0) }
    }

    /// The signed attributes as they are signed (RFC 5652, 5.4): a DER SET OF, not the [0]
    /// IMPLICIT the SignerInfo writes; the elements sorted by their encodings (X.690, 11.6),
    /// as OpenSSL sorts them when it writes the SignerInfo, so that both are the same bytes.
    static func signedAttributes(_ signer: OpaquePointer) throws -> [UInt8] {
        var encodings: [[UInt8]] = []
        for index in 0..<CMS_signed_get_attr_count(signer) {
            guard let attribute = CMS_signed_get_attr(signer, index) else { throw OpenSSL.failure("no signed attribute \(index)") }
            encodings.append(try OpenSSL.der("signed attribute \(index)") { i2d_X509_ATTRIBUTE(attribute, $0) })
        }
        encodings.sort { $0.lexicographicallyPrecedes($1) }
        return DER.tagged(0x31, encodings.flatMap { $0 })
    }
}

enum DER {
    /// A tag, a definite length (short form below 128, else long form), the contents.
    static func tagged(_ tag: UInt8, _ contents: [UInt8]) -> [UInt8] {
        var length: [UInt8] = []
        if contents.count < 0x80 {
            length = [UInt8(contents.count)]
        } else {
            var n = contents.count
            while n > 0 { length.insert(UInt8(n & 0xFF), at: 0); n >>= 8 }
            length.insert(0x80 | UInt8(length.count), at: 0)
        }
        return [tag] + length + contents
    }
}
