// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
@testable import InkDocument

/// What every signed file must pass: the original an exact prefix; qpdf finds nothing wrong;
/// poppler finds the same text; the page shows ink inside each signed field and nothing new
/// outside them; this reader reads it back with the update's section first.
enum SignedFileCheck {
    struct Outcome {
        var signedPath: String
        var comparisons: [RenderComparison]
    }

    /// `original` is the unsigned file (for the text and the picture before), `earlier` the
    /// bytes the update was appended to (the original, or an earlier update).
    @discardableResult
    static func verify(_ updated: UpdatedPDF, original: [UInt8], earlier: [UInt8]? = nil, name: String, directory: String,
                       page: PDFPage, inkedRects: [PDFRect], sourceLocation: SourceLocation = #_sourceLocation) throws -> Outcome {
        let base = earlier ?? original
        #expect(updated.bytes.count > base.count, sourceLocation: sourceLocation)
        #expect(updated.bytes.starts(with: base), "the bytes it was appended to are an exact prefix", sourceLocation: sourceLocation)
        #expect(updated.originalCount == base.count, sourceLocation: sourceLocation)

        let originalPath = "\(directory)/\(name).pdf", signedPath = "\(directory)/\(name)-signed.pdf"
        try Tools.write(original, to: originalPath)
        try Tools.write(updated.bytes, to: signedPath)

        if Tools.qpdf != nil {
            let problems = try Tools.qpdfProblems(signedPath)
            #expect(problems == nil, "\(problems ?? "")", sourceLocation: sourceLocation)
        } else {
            print("qpdf is not installed (apt-get install qpdf): \(signedPath) not checked by it")
        }
        #expect(try Tools.text(signedPath) == Tools.text(originalPath), "poppler reads the same text", sourceLocation: sourceLocation)

        let before = try Tools.render(originalPath, page: page.index)
        let after = try Tools.render(signedPath, page: page.index)
        #expect(before.width == after.width && before.height == after.height, sourceLocation: sourceLocation)
        var comparisons: [RenderComparison] = []
        for rect in inkedRects {
            let comparison = RenderComparison(before: before, after: after, crop: page.cropBox, rects: [rect])
            #expect(comparison.inked >= 100, "ink shows inside \(rect): \(comparison.inked) pixels darker", sourceLocation: sourceLocation)
            comparisons.append(comparison)
        }
        let all = RenderComparison(before: before, after: after, crop: page.cropBox, rects: inkedRects)
        #expect(all.strayOutside == 0, "no ink outside the fields: \(all.strayOutside) pixels, the first at \(all.firstStray.map { "\($0)" } ?? "-")",
                sourceLocation: sourceLocation)

        let reread = try PDFDocument(bytes: updated.bytes)
        #expect(reread.crossReference.newestOffset == updated.crossReferenceOffset, sourceLocation: sourceLocation)
        #expect(try reread.pages().count == PDFDocument(bytes: original).pages().count, sourceLocation: sourceLocation)
        return Outcome(signedPath: signedPath, comparisons: comparisons)
    }
}
