// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: a host's PDF as `POST /documents` reads it in the kiosk's process (no
// poppler): the cross-references, the objects, the page tree and the signature fields
// (`PDFDocument.signable`), a place for the ink (`SignableDocument.place`), and the ink's
// incremental update. Anything may be refused; nothing may trap or grow past `PDFLimits`.
import InkCore
@testable import InkDocument

#if INKKIOSK_FUZZ_BUILD
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    fuzzPDF(data, size)
}
#endif

/// One input, as libFuzzer gives it (the fuzz build) or the seed replay of `swift test` does.
public func fuzzPDF(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let document = try? PDFDocument(bytes: Array(UnsafeBufferPointer(start: data, count: size))),
          let signable = try? document.signable() else { return 0 }
    let ink = VectorInk([InkPath([.move(Point(1, 1)), .line(Point(20, 5))], painting: .stroke(width: 1), color: RGBA(0, 0, 0))])
    for field in signable.signatureFields.prefix(2) {
        _ = try? signable.place(of: .field(field.name))
        _ = try? InkSigning.sign(document, with: ink, at: .field(field.name))
    }
    if !signable.pages.isEmpty {
        _ = try? InkSigning.sign(document, with: ink, at: .newField(name: "fuzz", pageIndex: 0, rect: PDFRect(10, 10, 110, 40)))
    }
    return 0
}
