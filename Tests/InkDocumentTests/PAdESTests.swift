// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import InkCore
@testable import InkDocument
@testable import InkDocumentSigning

private func ink(for rect: PDFRect) -> VectorInk { TestPDFs.ink(width: rect.width, height: rect.height) }

/// A fresh device identity, as `inkkiosk keygen --signing` makes it, in `directory`.
private func deviceSigner(in directory: String) throws -> DeviceSigner {
    try SigningIdentity.create(at: "\(directory)/device.pem", subject: "CN=Kiosk 12,O=Test Shop", days: 30)
}

/// Signs `target` of `document` with ink and a PAdES signature.
private func padesSign(_ document: PDFDocument, _ target: SignatureTarget, rect: PDFRect, signer: DeviceSigner,
                       time: Date = Date(timeIntervalSince1970: 1_790_000_000)) throws -> UpdatedPDF {
    var updated = try InkSigning.sign(document, with: ink(for: rect), at: target,
                                      signatureValue: signer.signatureValue(signingTime: time, name: "Kiosk 12",
                                                                            reason: "Contract of sale", location: "Shop"))
    try signer.complete(&updated)
    return updated
}

/// The signature dictionary of field `name`, as the signed file has it.
private func signatureDictionary(_ bytes: [UInt8], field name: String) throws -> PDFDictionary {
    let document = try PDFDocument(bytes: bytes)
    let field = try document.signable().signatureFields.first { $0.name == name }
    let reference = try #require(field?.reference, "no field \(name)")
    let value = try document.dictionary(.reference(reference))?["V"]
    let signature = try document.dictionary(value ?? .null)
    return try #require(signature, "the field \(name) has no signature dictionary")
}

private func byteRange(_ dictionary: PDFDictionary) -> [Int64] { dictionary["ByteRange"]?.arrayValue?.compactMap(\.integerValue) ?? [] }

@Suite struct PAdESSignatures {
    @Test func anExistingFieldIsSignedAndBothValidatorsSayTheSignatureIsValid() throws {
        let dir = try Tools.directory("pades-field")
        let signer = try deviceSigner(in: dir)
        let original = TestPDFs.contract()
        let document = try PDFDocument(bytes: original)
        let signed = try padesSign(document, .field("sign.customer"), rect: TestPDFs.customerRect, signer: signer)
        let outcome = try SignedFileCheck.verify(signed, original: original, name: "contract", directory: dir,
                                                 page: try document.pages()[1], inkedRects: [TestPDFs.customerRect])
        let path = outcome.signedPath

        let dictionary = try signatureDictionary(signed.bytes, field: "sign.customer")
        #expect(dictionary["SubFilter"] == .name("ETSI.CAdES.detached") && dictionary["Filter"] == .name("Adobe.PPKLite"))
        #expect(dictionary["M"] == .string(Array("D:20260921141320Z".utf8)))
        let range = byteRange(dictionary)
        #expect(range.count == 4 && range[0] == 0 && Int(range[2] + range[3]) == signed.bytes.count, "covers the whole file but /Contents: \(range)")
        #expect(signed.bytes[Int(range[1])] == UInt8(ascii: "<") && signed.bytes[Int(range[2]) - 1] == UInt8(ascii: ">"))

        let pdfsig = try SignatureValidators.pdfsigOutput(path)
        #expect(try SignatureValidators.pdfsigVerdicts(path) == ["Signature is Valid."], "\(pdfsig)")
        let pyHanko = try SignatureValidators.pyHanko(path)
        #expect(pyHanko.count == 1)
        for verdict in pyHanko {
            #expect(verdict.field == "sign.customer" && verdict.subFilter == "/ETSI.CAdES.detached")
            #expect(verdict.intact && verdict.valid && verdict.bottomLine && verdict.modificationLevel == "NONE", "pyHanko: \(verdict)")
            // PAdES B-B: content-type, message-digest, ESS signing-certificate-v2, and no signing-time (/M has it).
            #expect(verdict.signedAttributes == ["content_type", "message_digest", "signing_certificate_v2"], "\(verdict.signedAttributes)")
        }
    }

    @Test func aNewFieldIsSignedToo() throws {
        let dir = try Tools.directory("pades-new-field")
        let signer = try deviceSigner(in: dir)
        let original = TestPDFs.contract()
        let document = try PDFDocument(bytes: original)
        let rect = PDFRect(72, 300, 272, 360)
        let signed = try padesSign(document, .newField(name: "clerk", pageIndex: 0, rect: rect), rect: rect, signer: signer)
        let outcome = try SignedFileCheck.verify(signed, original: original, name: "contract", directory: dir,
                                                 page: try document.pages()[0], inkedRects: [rect])
        #expect(try SignatureValidators.pdfsigVerdicts(outcome.signedPath) == ["Signature is Valid."])
        let pyHanko = try SignatureValidators.pyHanko(outcome.signedPath)
        #expect(pyHanko.map(\.field) == ["clerk"] && pyHanko.allSatisfy { $0.intact && $0.valid }, "\(pyHanko)")
    }

    /// Either signer first: each update only fills a field, which pyHanko's diff analysis allows
    /// after a signature (form filling): the widget keeps its keys (no /P added to one its page
    /// lists already).
    @Test(arguments: [["sign.witness", "sign.customer"], ["sign.customer", "sign.witness"]])
    func aSecondSignatureLeavesTheFirstOneValid(order: [String]) throws {
        let dir = try Tools.directory("pades-twice-\(order[0])")
        let signer = try deviceSigner(in: dir)
        let original = TestPDFs.contract()
        let rects = ["sign.witness": TestPDFs.witnessRect, "sign.customer": TestPDFs.customerRect]
        let first = try padesSign(try PDFDocument(bytes: original), .field(order[0]), rect: rects[order[0]]!, signer: signer)
        let afterFirst = try PDFDocument(bytes: first.bytes)
        let second = try padesSign(afterFirst, .field(order[1]), rect: rects[order[1]]!, signer: signer,
                                   time: Date(timeIntervalSince1970: 1_790_000_600))
        let outcome = try SignedFileCheck.verify(second, original: original, earlier: first.bytes, name: "contract", directory: dir,
                                                 page: try afterFirst.pages()[1], inkedRects: [TestPDFs.customerRect, TestPDFs.witnessRect])
        #expect(second.bytes.starts(with: first.bytes), "the first signature's bytes are untouched")
        let firstRange = byteRange(try signatureDictionary(first.bytes, field: order[0]))
        let secondRange = byteRange(try signatureDictionary(second.bytes, field: order[1]))
        #expect(byteRange(try signatureDictionary(second.bytes, field: order[0])) == firstRange, "the first signature's /ByteRange is as it was")
        #expect(Int(firstRange[2] + firstRange[3]) == first.bytes.count, "the first signature covers the file it signed")
        #expect(Int(secondRange[2] + secondRange[3]) == second.bytes.count, "the second covers all of it, the first signature too")

        let pdfsig = try SignatureValidators.pdfsigOutput(outcome.signedPath)
        #expect(try SignatureValidators.pdfsigVerdicts(outcome.signedPath) == ["Signature is Valid.", "Signature is Valid."], "\(pdfsig)")
        let pyHanko = try SignatureValidators.pyHanko(outcome.signedPath)
        #expect(pyHanko.map(\.field).sorted() == ["sign.customer", "sign.witness"])
        #expect(pyHanko.count == 2 && pyHanko.allSatisfy { $0.intact && $0.valid && $0.bottomLine }, "\(pyHanko)")
        #expect(pyHanko.first { $0.field == order[0] }?.modificationLevel == "FORM_FILLING", "\(pyHanko)")
    }

    @Test func aByteChangedInsideTheSignedRangeMakesTheSignatureInvalid() throws {
        let dir = try Tools.directory("pades-tampered")
        let signer = try deviceSigner(in: dir)
        let original = TestPDFs.contract()
        let signed = try padesSign(try PDFDocument(bytes: original), .field("sign.customer"), rect: TestPDFs.customerRect, signer: signer)
        // "one pen tablet" becomes "two pen tablet": the same length, the file still reads.
        let text = Array("(The customer buys one".utf8)
        let at = try #require(signed.bytes.indices.first { signed.bytes[$0...].starts(with: text) }) + text.count - 3
        var tampered = signed.bytes
        tampered.replaceSubrange(at..<(at + 3), with: Array("two".utf8))
        let goodPath = "\(dir)/signed.pdf", badPath = "\(dir)/tampered.pdf"
        try Tools.write(signed.bytes, to: goodPath)
        try Tools.write(tampered, to: badPath)
        #expect(try SignatureValidators.pdfsigVerdicts(goodPath) == ["Signature is Valid."])
        let verdicts = try SignatureValidators.pdfsigVerdicts(badPath)
        let pdfsig = try SignatureValidators.pdfsigOutput(badPath)
        #expect(verdicts == ["Digest Mismatch."], "pdfsig on the tampered file: \(pdfsig)")
        let pyHanko = try SignatureValidators.pyHanko(badPath)
        #expect(pyHanko.count == 1 && pyHanko.allSatisfy { !$0.intact }, "\(pyHanko)")
    }

    @Test func anRSAKeyAndCertificateMadeByOpenSSLSignToo() throws {
        let dir = try Tools.directory("pades-rsa")
        let openssl = try #require(Tools.which("openssl"), "openssl is needed")
        let made = try Tools.run(openssl, ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "\(dir)/key.pem",
                                           "-out", "\(dir)/cert.pem", "-subj", "/CN=RSA Kiosk", "-days", "2"])
        try #require(made.status == 0, "openssl req: \(made.stderr)")
        // One file, the certificate first this time: the order does not matter.
        try Tools.write(try Tools.read("\(dir)/cert.pem") + Tools.read("\(dir)/key.pem"), to: "\(dir)/device.pem")
        let signer = try DeviceSigner(pemFile: "\(dir)/device.pem")
        #expect(signer.keyDescription == "RSA 2048" && signer.subject == "/CN=RSA Kiosk")
        let original = TestPDFs.contract()
        let signed = try padesSign(try PDFDocument(bytes: original), .field("sign.customer"), rect: TestPDFs.customerRect, signer: signer)
        try Tools.write(signed.bytes, to: "\(dir)/signed.pdf")
        #expect(try SignatureValidators.pdfsigVerdicts("\(dir)/signed.pdf") == ["Signature is Valid."])
        let pyHanko = try SignatureValidators.pyHanko("\(dir)/signed.pdf")
        #expect(pyHanko.count == 1 && pyHanko.allSatisfy { $0.intact && $0.valid }, "\(pyHanko)")
    }

    @Test func completeRefusesAnUpdateWithoutPlaceholdersAndACMSThatDoesNotFit() throws {
        let dir = try Tools.directory("pades-refusals")
        let signer = try deviceSigner(in: dir)
        let document = try PDFDocument(bytes: TestPDFs.contract())
        var plain = try InkSigning.sign(document, with: ink(for: TestPDFs.customerRect), at: .field("sign.customer"))
        #expect(throws: SigningError.self) { try signer.complete(&plain) }

        var small = try InkSigning.sign(document, with: ink(for: TestPDFs.customerRect), at: .field("sign.customer"),
                                        signatureValue: signer.signatureValue(signingTime: Date(), contentsCapacity: 64))
        do {
            try signer.complete(&small)
            Issue.record("a 64-byte /Contents took the CMS")
        } catch let error as SigningError {
            #expect(error.description.contains("more than the 64"), "\(error)")
        }
        var twice = try InkSigning.sign(document, with: ink(for: TestPDFs.customerRect), at: .field("sign.customer"),
                                        signatureValue: signer.signatureValue(signingTime: Date()))
        try signer.complete(&twice)
        #expect(throws: SigningError.self, "a completed signature is not completed again") { try signer.complete(&twice) }
    }
}

@Suite struct DeviceSigningIdentities {
    @Test func keygenWritesAKeyAndASelfSignedCertificateInOneFileNeverOverwritten() throws {
        let dir = try Tools.directory("identity")
        let path = "\(dir)/device.pem"
        let signer = try SigningIdentity.create(at: path, subject: "CN=Kiosk 12,O=Shop,C=DE", days: 3650)
        #expect(signer.keyDescription == "EC P-256" && signer.subject == "/CN=Kiosk 12/O=Shop/C=DE" && signer.warning == nil)
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
        #expect(mode == 0o600)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.hasPrefix("-----BEGIN PRIVATE KEY-----") && text.contains("-----BEGIN CERTIFICATE-----"))
        #expect(try DeviceSigner(pemFile: path) == signer)

        let before = try Tools.read(path)
        do {
            try SigningIdentity.create(at: path, subject: "CN=Other", days: 1)
            Issue.record("an existing file was overwritten")
        } catch let error as SigningError {
            #expect(error.description == "\(path) exists already: not overwritten")
        }
        #expect(try Tools.read(path) == before)

        // The certificate as openssl reads it: self-signed, for signing, not a CA.
        let openssl = try #require(Tools.which("openssl"), "openssl is needed")
        let x509 = try Tools.run(openssl, ["x509", "-in", path, "-noout", "-text"])
        #expect(x509.stdout.contains("Digital Signature, Non Repudiation") && x509.stdout.contains("CA:FALSE"), "\(x509.stdout)")
        #expect(x509.stdout.contains("Issuer: CN = Kiosk 12, O = Shop, C = DE") && x509.stdout.contains("Subject: CN = Kiosk 12, O = Shop, C = DE"))
        #expect(x509.stdout.contains("prime256v1") && x509.stdout.contains("ecdsa-with-SHA256"))
    }

    @Test func anExpiredCertificateIsAWarningNotAnError() throws {
        let pem = try SigningIdentity.generate(subject: "CN=Old", days: 1, startingDaysAgo: 10)
        let signer = try DeviceSigner(pem: pem, path: "old.pem")
        #expect(signer.warning == "old.pem: the certificate has expired (validators will say so)")
        let fresh = try DeviceSigner(pem: try SigningIdentity.generate(subject: "CN=New", days: 1), path: "new.pem")
        #expect(fresh.warning == nil)
    }

    @Test func badSubjectsAndDaysAreRefused() throws {
        #expect(throws: SigningError.self) { try SigningIdentity.generate(subject: "Kiosk 12", days: 10) }
        #expect(throws: SigningError.self) { try SigningIdentity.generate(subject: "XX=1", days: 10) }
        #expect(throws: SigningError.self) { try SigningIdentity.generate(subject: "CN=Kiosk", days: 0) }
    }

    @Test func filesThatAreNoIdentityAreRefusedNamingTheFile() throws {
        let dir = try Tools.directory("identity-refused")
        let good = try SigningIdentity.create(at: "\(dir)/good.pem", subject: "CN=Good", days: 10)
        let other = try SigningIdentity.create(at: "\(dir)/other.pem", subject: "CN=Other", days: 10)
        let goodText = try String(contentsOfFile: good.path, encoding: .utf8)
        let otherText = try String(contentsOfFile: other.path, encoding: .utf8)
        func block(_ text: String, _ label: String) -> String {
            let begin = text.range(of: "-----BEGIN \(label)-----")!, end = text.range(of: "-----END \(label)-----\n")!
            return String(text[begin.lowerBound..<end.upperBound])
        }
        let cases: [(name: String, text: String?, message: String)] = [
            ("missing.pem", nil, "cannot open it: No such file or directory"),
            ("key-only.pem", block(goodText, "PRIVATE KEY"), "no certificate in it"),
            ("cert-only.pem", block(goodText, "CERTIFICATE"), "no private key in it"),
            ("mismatch.pem", block(goodText, "PRIVATE KEY") + block(otherText, "CERTIFICATE"), "the private key does not match the certificate"),
            ("text.pem", "hello\n", "not PEM"),
        ]
        for (name, text, message) in cases {
            let path = "\(dir)/\(name)"
            if let text { try text.write(toFile: path, atomically: true, encoding: .utf8) }
            do {
                _ = try DeviceSigner(pemFile: path)
                Issue.record("\(name) was taken")
            } catch let error as SigningError {
                #expect(error.description.hasPrefix("\(path): ") && error.description.contains(message), "\(error)")
                // A file that cannot be read keeps the system call's errno, not only its words.
                #expect(error.cause?.errno == (text == nil ? ENOENT : nil), "\(name): \(String(describing: error.cause))")
            }
        }
    }
}
