// SPDX-License-Identifier: Apache-2.0
/// The PDF a notebook was opened on, as the journal remembers it: the file may be renamed,
/// replaced or gone after a restart, so it is known by its content (SHA-256) first.
public struct WorksheetRef: Sendable, Equatable {
    /// The file's SHA-256, 64 lowercase hex digits.
    public var sha256: String
    /// Where it was opened from.
    public var file: String
    /// What the list showed (its title, else its file name).
    public var title: String
    /// Its page count: the notebook's pages 1…pages lie on its pages 1…pages.
    public var pages: Int
    /// Its size in bytes (nil in journals written before it was recorded): when the file is gone
    /// from where it was, only files of this size are read to look for its content.
    public var bytes: Int?

    public init(sha256: String, file: String, title: String, pages: Int, bytes: Int? = nil) {
        self.sha256 = sha256; self.file = file; self.title = title; self.pages = pages; self.bytes = bytes
    }

    /// Whether `sha256` looks like one (a journal record with anything else is damaged).
    public static func isDigest(_ s: String) -> Bool {
        s.utf8.count == 64 && s.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }
}
