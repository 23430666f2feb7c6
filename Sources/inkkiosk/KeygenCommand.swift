// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import InkCommandLine
import FoundationEssentials
import InkDocumentSigning
import InkStorage

/// On the host: the key pair signatures are encrypted to (`[signature] encrypt_to`). With
/// --signing, on or for the kiosk: the device's signing identity (`[signature] sign_with`).
struct KeygenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keygen",
        abstract: "Make the X25519 key pair a signature kiosk encrypts its captures to (run it on the host); "
            + "with --signing, a device's signing key and self-signed certificate.",
        discussion: """
            Writes the private key (PKCS#8 PEM, mode 0600) to KEY and the public key (PEM) beside it: \
            KEY with its .key ending replaced by .pub, or --public. Neither file is ever overwritten. \
            The private key stays on the host, for `inkkiosk decrypt`; only the public key goes on the \
            kiosk, named by [signature] encrypt_to. The files are the same as openssl's \
            (openssl genpkey -algorithm X25519; openssl pkey -pubout).

            With --signing FILE instead of KEY: an EC P-256 private key and a self-signed X.509 \
            certificate for it (key usage digitalSignature, nonRepudiation; --subject, --days) in \
            one PEM file (mode 0600, never overwritten), for [signature] sign_with: the PAdES \
            signature on signed PDFs. A certificate from the shop's CA may replace the self-signed \
            one later (the same file: key, then certificate).
            """)

    @Argument(help: "Where to write the private key, e.g. kiosk-signatures.key.")
    var key: String?

    @Option(help: ArgumentHelp("Make a device signing identity instead: the key and its self-signed certificate in this PEM file.",
                               valueName: "file"))
    var signing: String?

    @Option(help: "With --signing: the certificate's subject, e.g. \"CN=Kiosk 12,O=Shop\" (CN, O, OU, L, ST, C, serialNumber, emailAddress).")
    var subject = "CN=inkkiosk"

    @Option(help: "With --signing: how many days the certificate is valid.")
    var days = 3650

    @Option(name: .customLong("public"), help: "Where to write the public key (default: KEY with .pub for .key).")
    var publicKey: String?

    var publicPath: String {
        if let publicKey { return publicKey }
        let key = key ?? ""
        return (key.hasSuffix(".key") ? String(key.dropLast(4)) : key) + ".pub"
    }

    func validate() throws {
        if signing != nil {
            if key != nil || publicKey != nil { throw ValidationError("--signing makes one file: no KEY or --public with it") }
            if !(1...36_500).contains(days) { throw ValidationError("--days must be 1 to 36500") }
            return
        }
        guard let key else { throw ValidationError("name the private key's file (KEY), or give --signing FILE") }
        if publicPath == key { throw ValidationError("--public must name another file than the private key") }
    }

    func run() throws {
        try forbidCoreDumps()   // the private key is in memory
        if let signing { return try makeSigningIdentity(signing) }
        let key = key ?? ""
        do {
            let pair = try OpeningKey.generate()
            try pair.write(to: key, publicKeyTo: publicPath)
            print("""
                \(key): the private key (mode 0600): keep it on the host, for inkkiosk decrypt --key \(key)
                \(publicPath): the public key, fingerprint \(pair.publicKey.fingerprint)
                On the kiosk: copy \(publicPath) to /etc/inkkiosk/signature.pub and write under [signature]:
                  encrypt_to = "/etc/inkkiosk/signature.pub"
                """)
        } catch {
            throw CleanExit.message("\(error)", code: 1)
        }
    }

    private func makeSigningIdentity(_ path: String) throws {
        do {
            let signer = try SigningIdentity.create(at: path, subject: subject, days: days)
            print("""
                \(path): the device's signing key and its self-signed certificate (\(signer.keyDescription), \(signer.subject), \(days) days; mode 0600)
                On the kiosk: copy it to /etc/inkkiosk/device.pem (mode 0600, owned by the kiosk's user, inkkiosk) and write under [signature]:
                  sign_with = "/etc/inkkiosk/device.pem"
                """)
        } catch {
            throw CleanExit.message("\(error)", code: 1)
        }
    }
}
