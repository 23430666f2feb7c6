// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import Glibc
import InkDocument

/// A PAdES baseline B-B signature (ETSI EN 319 142-1) on an ink update, in two steps around
/// `InkSigning.sign`:
///
///     let updated = try InkSigning.sign(document, with: ink, at: target,
///                                       signatureValue: signer.signatureValue(signingTime: now, ...))
///     try signer.complete(&updated)
///
/// The first adds the signature dictionary with placeholders (a /ByteRange of fixed width, a
/// /Contents of zeros) and makes it the field's /V; the second, once every byte of the file is
/// known, writes the real /ByteRange over its placeholder and the CMS into /Contents, in place:
/// nothing moves, so the cross-reference section stays right. How the ink is drawn is no concern
/// of either.
extension DeviceSigner {
    /// Bytes kept for the CMS (hex-encoded, twice as many in the file). A P-256 signature with
    /// its certificate takes about 1 KiB, RSA-4096 about 3; the rest leaves room for a longer
    /// chain or, later, a timestamp (B-T).
    public static let defaultContentsCapacity = 16 * 1024

    /// The /ByteRange placeholder: four numbers of ten digits, later overwritten by the real
    /// ones padded with spaces (a file past 9,999,999,999 bytes is far beyond `PDFLimits`).
    static let byteRangePlaceholder: PDFObject = .array([.integer(0)] + Array(repeating: .integer(9_999_999_999), count: 3))

    /// The hook for `InkSigning.sign`: adds the signature dictionary (/Type /Sig, /Filter
    /// /Adobe.PPKLite, /SubFilter /ETSI.CAdES.detached, /M `signingTime`, the placeholders,
    /// the `lock`'s /Reference, /Name, /Reason, /Location when given) and returns its reference
    /// as the field's /V. A lock other than `.none` also changes the catalog (a certification's
    /// /Perms) or the field (a field lock's /Lock): `DocumentLock`.
    public func signatureValue(signingTime: Date, lock: DocumentLock = .none, name: String? = nil, reason: String? = nil,
                               location: String? = nil, contentsCapacity: Int = DeviceSigner.defaultContentsCapacity) -> InkSigning.SignatureValue {
        { update, field in
            // Fixed keys first, in this order: `complete` finds the placeholders as the first
            // /ByteRange and /Contents after the object's start, before any text a caller gave.
            var dictionary = PDFDictionary([
                ("Type", .name("Sig")), ("Filter", .name("Adobe.PPKLite")), ("SubFilter", .name("ETSI.CAdES.detached")),
                ("ByteRange", Self.byteRangePlaceholder),
                ("Contents", .string([UInt8](repeating: 0, count: contentsCapacity))),
                ("M", .string(Array(PDFDate.text(signingTime).utf8))),
            ])
            let reference = try update.reserve()
            let references = try lock.references(signature: reference, field: field, in: &update)
            if !references.isEmpty { dictionary["Reference"] = .array(references) }
            if let name { dictionary["Name"] = .string(PDFText.encode(name)) }
            if let reason { dictionary["Reason"] = .string(PDFText.encode(reason)) }
            if let location { dictionary["Location"] = .string(PDFText.encode(location)) }
            try update.set(reference, .dictionary(dictionary))
            return .reference(reference)
        }
    }

    /// Fills in the signature `signatureValue` prepared: finds the update's one object with both
    /// placeholders, writes its /ByteRange (everything but the /Contents string) and the CMS
    /// over those bytes into /Contents. Refuses when there is no such object or more than one.
    public func complete(_ pdf: inout UpdatedPDF) throws {
        let candidates = pdf.objectRanges.filter { (try? Placeholders(in: pdf.bytes, object: $0.value)) != nil }
        guard let only = candidates.first, candidates.count == 1 else {
            throw SigningError(candidates.isEmpty
                ? "the update has no signature dictionary to complete (was signatureValue given to InkSigning.sign?)"
                : "the update has \(candidates.count) signature dictionaries to complete: name one")
        }
        try complete(&pdf, signatureDictionary: only.key)
    }

    /// Fills in the signature dictionary `reference`, one the update wrote with `signatureValue`'s placeholders.
    public func complete(_ pdf: inout UpdatedPDF, signatureDictionary reference: PDFReference) throws {
        guard let range = pdf.objectRanges[reference] else {
            throw SigningError("object \(reference) is not one the update wrote")
        }
        let slots = try Placeholders(in: pdf.bytes, object: range)
        let total = pdf.bytes.count
        // The signed bytes: from the start to the `<` of /Contents, and from after its `>` to the end.
        let byteRange = [0, slots.contents.lowerBound, slots.contents.upperBound, total - slots.contents.upperBound]
        var rangeText = Array(byteRange.map(String.init).joined(separator: " ").utf8)
        guard rangeText.count <= slots.byteRange.count else {
            throw SigningError("the /ByteRange \(byteRange) does not fit its placeholder (\(slots.byteRange.count) characters)")
        }
        rangeText += [UInt8](repeating: 0x20, count: slots.byteRange.count - rangeText.count)
        pdf.bytes.replaceSubrange(slots.byteRange, with: rangeText)

        let (key, certificate) = try loaded()
        let cms = try CAdES.detachedSignature(over: [pdf.bytes[0..<byteRange[1]], pdf.bytes[byteRange[2]..<total]],
                                              key: key, certificate: certificate)
        let capacity = (slots.contents.count - 2) / 2
        guard cms.count <= capacity else {
            throw SigningError("the signature's CMS is \(cms.count) bytes, more than the \(capacity) its /Contents keeps: "
                               + "give signatureValue a larger contentsCapacity")
        }
        let digits = Array("0123456789ABCDEF".utf8)
        var hex: [UInt8] = []
        hex.reserveCapacity(slots.contents.count - 2)
        for b in cms { hex.append(digits[Int(b >> 4)]); hex.append(digits[Int(b & 15)]) }
        hex += [UInt8](repeating: UInt8(ascii: "0"), count: slots.contents.count - 2 - hex.count)
        pdf.bytes.replaceSubrange((slots.contents.lowerBound + 1)..<(slots.contents.upperBound - 1), with: hex)
    }
}

/// Where the placeholders are in a signature dictionary's written bytes (`n g obj … endobj`).
struct Placeholders {
    /// Between the `[` and `]` of /ByteRange.
    var byteRange: Range<Int>
    /// The /Contents hex string, `<` and `>` included: what the signature does not cover.
    var contents: Range<Int>

    init(in bytes: [UInt8], object: Range<Int>) throws {
        let area = bytes[object]
        guard let rangeKey = Self.find(Array("/ByteRange [".utf8), in: area),
              let rangeEnd = area[rangeKey.upperBound...].firstIndex(of: UInt8(ascii: "]")),
              area[rangeKey.upperBound..<rangeEnd].elementsEqual("0 9999999999 9999999999 9999999999".utf8)
        else { throw SigningError("object at byte \(object.lowerBound) has no /ByteRange placeholder") }
        guard let contentsKey = Self.find(Array("/Contents <".utf8), in: area[rangeEnd...]),
              let contentsEnd = area[contentsKey.upperBound...].firstIndex(of: UInt8(ascii: ">")),
              contentsEnd > contentsKey.upperBound,
              area[contentsKey.upperBound..<contentsEnd].allSatisfy({ $0 == UInt8(ascii: "0") })
        else { throw SigningError("object at byte \(object.lowerBound) has no /Contents placeholder (or it was filled already)") }
        byteRange = rangeKey.upperBound..<rangeEnd
        contents = (contentsKey.upperBound - 1)..<(contentsEnd + 1)
    }

    private static func find(_ needle: [UInt8], in haystack: ArraySlice<UInt8>) -> Range<Int>? {
        guard haystack.count >= needle.count else { return nil }
        var i = haystack.startIndex
        while i + needle.count <= haystack.endIndex {
            if haystack[i] == needle[0], haystack[i..<(i + needle.count)].elementsEqual(needle) { return i..<(i + needle.count) }
            i += 1
        }
        return nil
    }
}

/// A date as PDF writes it (ISO 32000-1, 7.9.4), in UTC: `D:20260126143000Z`.
enum PDFDate {
    static func text(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "D:\(parts.tm_year + 1900)\(two(parts.tm_mon + 1))\(two(parts.tm_mday))"
            + "\(two(parts.tm_hour))\(two(parts.tm_min))\(two(parts.tm_sec))Z"
    }
}
