// SPDX-License-Identifier: Apache-2.0
import Foundation
import Glibc
import Testing
@testable import InkAPI
import InkTestSupport

/// PDFs for the document API's tests, written by hand (as InkDocumentTests' `TestPDFs`, whose
/// contract this copies): each test knows exactly what is in the file it uploads.
enum DocumentPDFs {
    static func classic(_ objects: [String], trailer: String = "") -> [UInt8] {
        var pdf = Array("%PDF-1.4\n%\u{e2}\u{e3}\u{cf}\u{d3}\n".utf8)
        var offsets: [Int] = []
        for (i, body) in objects.enumerated() {
            offsets.append(pdf.count)
            pdf += Array("\(i + 1) 0 obj\n\(body)\nendobj\n".utf8)
        }
        let xref = pdf.count
        var table = "xref\n0 \(objects.count + 1)\n0000000000 65535 f \n"
        for o in offsets { table += String(format: "%010d 00000 n \n", o) }
        table += "trailer\n<< /Size \(objects.count + 1) /Root 1 0 R \(trailer) >>\nstartxref\n\(xref)\n%%EOF\n"
        return pdf + Array(table.utf8)
    }

    static func stream(_ content: String) -> String { "<< /Length \(content.utf8.count) >>\nstream\n\(content)\nendstream" }

    /// Two A4 pages; on page 2 the signature fields "sign.customer" (its /Rect given corners
    /// swapped) and "sign.witness" (a /V when `signedWitness`), and a text field "remarks".
    static func contract(signedWitness: Bool = false) -> [UInt8] {
        var objects = [
            "<< /Type /Catalog /Pages 2 0 R /AcroForm 8 0 R >>",
            "<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 /MediaBox [0 0 595 842] >>",
            "<< /Type /Page /Parent 2 0 R /Contents 5 0 R /Resources << /Font << /F1 7 0 R >> >> >>",
            "<< /Type /Page /Parent 2 0 R /Contents 6 0 R /Resources << /Font << /F1 7 0 R >> >> /Annots [10 0 R 11 0 R 12 0 R] >>",
            stream("BT /F1 24 Tf 72 760 Td (Contract of sale) Tj ET"),
            stream("BT /F1 18 Tf 72 760 Td (Signatures) Tj ET"),
            "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
            "<< /Fields [9 0 R 12 0 R] /DA (/Helv 0 Tf 0 g) >>",
            "<< /FT /Sig /T (sign) /Kids [10 0 R 11 0 R] >>",
            "<< /Type /Annot /Subtype /Widget /Parent 9 0 R /T (customer) /Rect [300 100 72 160] /P 4 0 R /F 4 >>",
            "<< /Type /Annot /Subtype /Widget /Parent 9 0 R /T (witness) /Rect [320 100 540 160] /P 4 0 R\(signedWitness ? " /V 13 0 R" : "") >>",
            "<< /Type /Annot /Subtype /Widget /FT /Tx /T (remarks) /Rect [72 200 540 230] /P 4 0 R >>",
        ]
        if signedWitness { objects.append("<< /Type /Sig /Filter /Adobe.PPKLite /ByteRange [0 0 0 0] /Contents <0000> >>") }
        let id = String(repeating: "1f", count: 16)
        return classic(objects, trailer: "/ID [<\(id)> <\(id)>]")
    }

    /// `pages` A4 pages of text, no form.
    static func plain(pages: Int = 2) -> [UInt8] {
        let kids = (0..<pages).map { "\(3 + 2 * $0) 0 R" }.joined(separator: " ")
        var objects = ["<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [\(kids)] /Count \(pages) /MediaBox [0 0 595 842] >>"]
        for i in 0..<pages {
            objects.append("<< /Type /Page /Parent 2 0 R /Contents \(4 + 2 * i) 0 R >>")
            objects.append(stream("BT 72 760 Td (Page \(i + 1)) Tj ET"))
        }
        return classic(objects)
    }

    /// The contract encrypted by qpdf (AES-256, user password "u").
    static func encrypted() throws -> [UInt8] {
        let input = try temporaryFile(contract()), output = input + ".enc.pdf"
        defer { unlink(input); unlink(output) }
        let status = try run("/usr/bin/qpdf", ["--encrypt", "u", "o", "256", "--", input, output]).status
        try #require(status == 0, "qpdf --encrypt")
        return Array(try Data(contentsOf: URL(fileURLWithPath: output)))
    }
}

/// A file in the temporary directory holding `bytes`.
func temporaryFile(_ bytes: [UInt8]) throws -> String {
    let path = NSTemporaryDirectory() + "inkkiosk-doc-\(UUID().uuidString.prefix(8)).pdf"
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    return path
}

/// How curl reaches the server: a TCP port or a unix socket.
struct CurlEndpoint: Sendable {
    var base: String
    var options: [String] = []

    init(_ address: APIAddress) {
        switch address {
        case .tcp(let host, let port): base = "http://\(host):\(port)"
        case .unix(let path): base = "http://kiosk"; options = ["--unix-socket", path]
        }
    }
}

struct CurlReply {
    var code: Int
    var body: String
    var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]) ?? [:] }
    var error: String { json["error"] as? String ?? "" }
}

/// The real curl, on a thread of its own (a blocking child must not hold the server's threads).
/// `file`: sent as the body (`--data-binary @file`) with `type`; `json`: sent as JSON.
func curl(_ method: String, _ path: String, at endpoint: CurlEndpoint, json: String? = nil, file: String? = nil,
          type: String = "application/pdf", extra: [String] = []) async throws -> CurlReply {
    var arguments = endpoint.options + ["-s", "-S", "--max-time", "60", "-w", "\n%{http_code}", "-X", method] + extra
    if let json { arguments += ["-H", "Content-Type: application/json", "--data-binary", json] }
    if let file { arguments += ["-H", "Content-Type: \(type)", "-H", "Expect:", "--data-binary", "@\(file)"] }
    arguments.append(endpoint.base + path)
    let args = arguments
    let result = try await withCheckedThrowingContinuation { (c: CheckedContinuation<(status: Int32, stdout: String, stderr: String), any Error>) in
        Thread { c.resume(with: Result { try run("/usr/bin/curl", args) }) }.start()
    }
    // A refusal mid-body may close before curl has sent it all; the answer still came.
    let cut = try #require(result.stdout.lastIndex(of: "\n"), "curl \(args.joined(separator: " ")): \(result.stderr)")
    return CurlReply(code: Int(result.stdout[result.stdout.index(after: cut)...]) ?? -1, body: String(result.stdout[..<cut]))
}

/// A fresh documents directory (not yet made: the server makes it).
func temporaryDocumentsDirectory() -> String {
    NSTemporaryDirectory() + "inkkiosk-documents-\(UUID().uuidString.prefix(8))/documents"
}

/// The names in `directory`, sorted.
func filesIn(_ directory: String) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
}

/// The real server with a documents directory, over `transport`, for the length of `body`.
func withDocumentAPI(_ transport: Transport, limits: APILimits = APILimits(), directory: String? = nil,
                     desk: SignatureDesk? = nil, policy: DocumentPolicy = DocumentPolicy(),
                     _ body: (CurlEndpoint, SignatureDesk, String, APIAddress) async throws -> Void) async throws {
    let directory = directory ?? temporaryDocumentsDirectory()
    let address: APIAddress = switch transport {
    case .tcp: .tcp(host: "127.0.0.1", port: 0)
    case .unix: .unix(path: NSTemporaryDirectory() + "inkkiosk-docs-\(UUID().uuidString.prefix(8)).sock")
    }
    let desk = try desk ?? SignatureDesk(defaultTimeout: nil)
    let server = SignatureAPIServer(desk: desk, address: address, limits: limits, documentsDirectory: directory, documentPolicy: policy)
    try await server.start()
    let listening = try #require(await server.listeningAddress())
    do {
        try await body(CurlEndpoint(listening), desk, directory, listening)
    } catch {
        await server.stop()
        throw error
    }
    await server.stop()
}
