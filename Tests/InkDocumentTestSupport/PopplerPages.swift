// SPDX-License-Identifier: Apache-2.0
/// poppler's word on a document, from `pdfinfo -f 1 -l LAST FILE` (poppler-utils): how many
/// pages, and each page's size (its crop box, in points) and rotation. poppler draws the review
/// the signer reads, so its page count and sizes must be ours.
public struct PopplerPages: Sendable, Equatable {
    public var count: Int
    /// Width, height (points) and rotation of each page, as pdfinfo prints them.
    public var pages: [(width: Double, height: Double, rotation: Int)]

    public static func == (a: PopplerPages, b: PopplerPages) -> Bool {
        a.count == b.count && a.pages.count == b.pages.count
            && zip(a.pages, b.pages).allSatisfy { $0.width == $1.width && $0.height == $1.height && $0.rotation == $1.rotation }
    }

    /// The arguments for pages 1 to `last` (before the file's path).
    public static func arguments(last: Int) -> [String] { ["-f", "1", "-l", "\(max(last, 1))"] }

    public init?(pdfinfo output: String) {
        var count: Int?
        var sizes: [Int: (Double, Double)] = [:], rotations: [Int: Int] = [:]
        for line in output.split(separator: "\n") {
            let words = line.split(separator: " ", omittingEmptySubsequences: true)
            if words.first == "Pages:", words.count == 2 { count = Int(words[1]) }
            // "Page    1 size: 595.276 x 841.89 pts (A4)", "Page    1 rot:  0"
            guard words.count >= 4, words[0] == "Page", let n = Int(words[1]) else { continue }
            if words[2] == "size:", words.count >= 6, let w = Double(words[3]), words[4] == "x", let h = Double(words[5]) {
                sizes[n] = (w, h)
            } else if words[2] == "rot:", let r = Int(words[3]) {
                rotations[n] = r
            }
        }
        guard let count else { return nil }
        self.count = count
        pages = (1...max(count, 1)).compactMap { n in sizes[n].map { ($0.0, $0.1, rotations[n] ?? 0) } }
    }

    /// How our reading differs from poppler's: the page count, each page's crop box size (to
    /// pdfinfo's printed precision) and rotation.
    public func differences(from ours: DocumentReading) -> [String] {
        var out: [String] = []
        if count != ours.pages.count { out.append("\(ours.pages.count) pages (ours) against \(count) (poppler)") }
        for (i, (page, theirs)) in zip(ours.pages, pages).enumerated() {
            let w = page.cropBox[2] - page.cropBox[0], h = page.cropBox[3] - page.cropBox[1]
            // pdfinfo prints %g: six significant digits.
            func close(_ a: Double, _ b: Double) -> Bool { abs(a - b) <= max(0.01, abs(a) * 2e-6) }
            if !close(w, theirs.width) || !close(h, theirs.height) {
                out.append("page \(i + 1): \(w) x \(h) (ours) against \(theirs.width) x \(theirs.height) (poppler)")
            }
            if page.rotation != theirs.rotation { out.append("page \(i + 1): rotation \(page.rotation) (ours) against \(theirs.rotation) (poppler)") }
        }
        return out
    }
}
