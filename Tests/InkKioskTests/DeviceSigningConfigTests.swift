// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import InkConfig
import InkDocument
import InkAPI
import InkDocumentSigning
import InkCore
@testable import InkKiosk
import InkTestSupport

/// `[signature] sign_with` and `inkkiosk keygen --signing`: the device's signing identity, read
/// when the config is, and made by the kiosk's own binary.
@Suite struct DeviceSigningConfig {
    let dir: String
    init() throws { dir = try Fixtures.outputDirectory("device-signing-\(UUID().uuidString.prefix(8))") }

    @Test func theConfigReadsTheIdentityOnceAndSaysWhereItIsWrong() throws {
        let signer = try SigningIdentity.create(at: "\(dir)/device.pem", subject: "CN=Kiosk 12,O=Shop", days: 10)
        let c = try KioskConfig.parse("mode = \"signature\"\n[signature]\nstore_plaintext = true\nsign_with = \"\(signer.path)\"\n", file: "k.toml")
        #expect(c.screen.capture.signWith == signer)
        let screen = try #require(c.screen.makeScreen(metrics: ScreenMetrics(size: screenSize, pixelsPerMM: 4)) as? SignatureScreen)
        #expect((screen.settings.digitalSigner as? DeviceSigner) == signer)
        #expect(try KioskConfig.parse("[signature]\noutbox = \"/tmp/o\"\n", file: "k.toml").screen.capture.signWith == nil)

        let keyOnly = "\(dir)/key-only.pem"
        let text = try String(contentsOfFile: signer.path, encoding: .utf8)
        try String(text[..<text.range(of: "-----BEGIN CERTIFICATE-----")!.lowerBound]).write(toFile: keyOnly, atomically: true, encoding: .utf8)
        for (value, message) in [
            ("/nonexistent/device.pem", "k.toml:3: signature.sign_with: /nonexistent/device.pem: cannot open it: No such file or directory"),
            ("device.pem", "k.toml:3: signature.sign_with: must be an absolute path (got \"device.pem\")"),
            (keyOnly, "k.toml:3: signature.sign_with: \(keyOnly): no certificate in it"),
        ] {
            do {
                _ = try KioskConfig.parse("[signature]\noutbox = \"/tmp/o\"\nsign_with = \"\(value)\"\n", file: "k.toml")
                Issue.record("\(value) was accepted")
            } catch let e as ConfigError {
                #expect(e.problems.count == 1 && e.description.hasPrefix(message), "\(e)")
            }
        }
    }

    /// `document_lock` is part of the device's signature: with sign_with it is taken, without
    /// it the config is refused at its line; `min_review` and `keep_signed_pdf` beside it.
    @Test func aDocumentLockNeedsTheDevicesIdentity() throws {
        let signer = try SigningIdentity.create(at: "\(dir)/device.pem", subject: "CN=Kiosk 12", days: 10)
        let c = try KioskConfig.parse("[signature]\nsign_with = \"\(signer.path)\"\ndocument_lock = \"certify-form-filling\"\n"
                                      + "min_review = \"first-page\"\nkeep_signed_pdf = false\n", file: "k.toml")
        #expect(c.screen.capture.documentLock == .certifyFormFilling && c.screen.capture.minReview == .firstPage)
        #expect(!c.screen.capture.keepSignedPDF)
        #expect(c.screen.capture.documentPolicy == DocumentPolicy(minReview: .firstPage, lock: .certifyFormFilling))
        let defaults = try KioskConfig.parse("[signature]\noutbox = \"/tmp/o\"\n", file: "k.toml").screen.capture
        #expect(defaults.documentLock == DocumentLock.none && defaults.minReview == DocumentToSign.Review.none && defaults.keepSignedPDF)
        for (text, message) in [
            ("[signature]\noutbox = \"/tmp/o\"\ndocument_lock = \"fields\"\n",
             "k.toml:3: signature.document_lock: document_lock = \"fields\" locks a signed PDF with the device's digital signature, "
             + "and [signature] names none: write sign_with"),
            ("[signature]\ndocument_lock = \"seal\"\n",
             "k.toml:2: signature.document_lock: \"seal\" is not one of \"none\", \"certify\", \"certify-form-filling\", \"fields\""),
            ("[signature]\nmin_review = \"skim\"\n", "k.toml:2: signature.min_review: \"skim\" is not one of \"none\", \"first-page\", \"all-pages\""),
        ] {
            do {
                _ = try KioskConfig.parse(text, file: "k.toml")
                Issue.record("\(text) was accepted")
            } catch let e as ConfigError {
                #expect(e.problems.count == 1 && e.description.hasPrefix(message), "\(e)")
            }
        }
        // Without a lock, no identity is needed.
        #expect(try KioskConfig.parse("[signature]\ndocument_lock = \"none\"\n", file: "k.toml").screen.capture.documentLock == DocumentLock.none)
    }

    @Test func keygenMakesTheIdentityAndCheckConfigNamesIt() throws {
        let binary = Fixtures.inkkioskBinary
        let pem = "\(dir)/kiosk.pem"
        let made = try run(binary, ["keygen", "--signing", pem, "--subject", "CN=Kiosk 7,O=Shop", "--days", "365"])
        #expect(made.status == 0 && made.stdout.contains("sign_with = "), "\(made.stdout)\(made.stderr)")
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: pem)[.posixPermissions] as? Int)
        #expect(mode == 0o600)
        let signer = try DeviceSigner(pemFile: pem)
        #expect(signer.subject == "/CN=Kiosk 7/O=Shop" && signer.keyDescription == "EC P-256")

        let again = try run(binary, ["keygen", "--signing", pem])
        #expect(again.status != 0 && again.stderr.contains("exists already: not overwritten"), "\(again.stderr)")
        #expect(try DeviceSigner(pemFile: pem) == signer, "the file is as it was")
        let both = try run(binary, ["keygen", "--signing", pem, "other.key"])
        #expect(both.status != 0 && both.stderr.contains("--signing makes one file"), "\(both.stderr)")

        let config = "\(dir)/kiosk.toml"
        try "[signature]\nsign_with = \"\(pem)\"\ndocument_lock = \"certify\"\n".write(toFile: config, atomically: true, encoding: .utf8)
        let checked = try run(binary, ["check-config", config])
        #expect(checked.status == 0 && checked.stdout.contains("PAdES signature by /CN=Kiosk 7/O=Shop (EC P-256) that certifies them: "
                                                               + "no later change allowed"), "\(checked.stdout)\(checked.stderr)")
    }
}
