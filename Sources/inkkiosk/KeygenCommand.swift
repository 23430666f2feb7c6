import ArgumentParser
import FoundationEssentials
import InkStorage

/// On the host: the key pair signatures are encrypted to (`[signature] encrypt_to`).
struct KeygenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keygen",
        abstract: "Make the X25519 key pair a signature kiosk encrypts its captures to (run it on the host).",
        discussion: """
            Writes the private key (PKCS#8 PEM, mode 0600) to KEY and the public key (PEM) beside it: \
            KEY with its .key ending replaced by .pub, or --public. Neither file is ever overwritten. \
            The private key stays on the host, for `inkkiosk decrypt`; only the public key goes on the \
            kiosk, named by [signature] encrypt_to. The files are the same as openssl's \
            (openssl genpkey -algorithm X25519; openssl pkey -pubout).
            """)

    @Argument(help: "Where to write the private key, e.g. kiosk-signatures.key.")
    var key: String

    @Option(name: .customLong("public"), help: "Where to write the public key (default: KEY with .pub for .key).")
    var publicKey: String?

    var publicPath: String {
        if let publicKey { return publicKey }
        return (key.hasSuffix(".key") ? String(key.dropLast(4)) : key) + ".pub"
    }

    func validate() throws {
        if publicPath == key { throw ValidationError("--public must name another file than the private key") }
    }

    func run() throws {
        try forbidCoreDumps()   // the private key is in memory
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
}
