// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import Glibc

/// What `GET /signatures/{id}/{kind}` serves for an accepted capture: which file, with which
/// headers. Plain files go with their own type; an encrypted one (`[signature] encrypt_to`) as
/// `application/octet-stream`, named `ID.png.hpke` (Content-Disposition), with
/// `Inkkiosk-Encrypted-To: <key fingerprint>` saying so. No HTTP types here: the server only
/// copies `contentType` and `headers` into its answer.
public struct CaptureDownload: Sendable, Equatable {
    /// The kinds a host may ask for, each with its type when plain.
    public static let types = ["png": "image/png", "svg": "image/svg+xml", "inkml": "application/inkml+xml", "json": "application/json",
                               "pdf": "application/pdf"]
    /// The header that marks an encrypted file, with the key's fingerprint as its value.
    public static let encryptedHeader = "Inkkiosk-Encrypted-To"
    /// What an encrypted file is served as.
    public static let encryptedType = "application/octet-stream"

    public var path: String
    public var contentType: String
    /// Headers beside Content-Type, by name.
    public var headers: [String: String]

    /// Nil for a kind that is not one of `types`, and for "pdf" when the capture has no signed PDF.
    public init?(kind: String, of files: CaptureFiles) {
        guard let plainType = Self.types[kind] else { return nil }
        if kind == "pdf" && files.pdf == nil { return nil }
        path = ["png": files.png, "svg": files.svg, "inkml": files.inkml, "json": files.json, "pdf": files.pdf ?? ""][kind] ?? ""
        // The signed PDF is encrypted only if the kiosk wrote it so (`ID.pdf.hpke`).
        if let key = files.encryptedTo, kind != "json", kind != "pdf" || path.hasSuffix(".hpke") {
            contentType = Self.encryptedType
            let name = URL(fileURLWithPath: path).lastPathComponent
            headers = [Self.encryptedHeader: key, "Content-Disposition": "attachment; filename=\"\(name)\""]
        } else {
            contentType = plainType
            headers = [:]
        }
    }
}
