// SPDX-License-Identifier: Apache-2.0
/// Why a PDF could not be read or updated: what was wrong, where (a byte offset in the file, or
/// in a decoded stream when the context says so), and what was being read when it happened,
/// outermost first ("the page tree", "object 12 0"). Every failure of this module is one of these.
public struct PDFError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The bytes are not what the PDF format says they must be.
        case malformed
        /// Valid PDF this reader does not handle (a filter, a predictor, a kind of object).
        case unsupported
        /// The file is encrypted (/Encrypt in its trailer): its strings and streams cannot be
        /// read, and an update could not be written without its key.
        case encrypted
        /// A count, length, size or depth beyond `PDFLimits`.
        case tooLarge
        /// The caller asked for something the document does not allow (no such field, a field
        /// already signed, a page out of range, ink that is not finite).
        case refused
        /// The bytes admit more than one reading: readers (poppler, Acrobat, pdf.js, qpdf) could
        /// show different pages, or the update would write back another document than the one
        /// shown (a key given twice, an object no cross-reference lists, a /Count that lies, …).
        case ambiguous
        /// Reading it needs more work than the document's `PDFReadLimits` allow (values parsed,
        /// bytes inflated, time): a file built to be slow, or one far bigger than a contract.
        case overBudget
    }

    public var kind: Kind
    public var message: String
    /// Where in the bytes being read (the file's, or a decoded stream's as the context says).
    public var offset: Int?
    /// What was being read, outermost first.
    public var context: [String]

    public init(_ kind: Kind, _ message: String, at offset: Int? = nil, context: [String] = []) {
        self.kind = kind; self.message = message; self.offset = offset; self.context = context
    }

    static func malformed(_ message: String, at offset: Int? = nil) -> PDFError { PDFError(.malformed, message, at: offset) }
    static func tooLarge(_ message: String, at offset: Int? = nil) -> PDFError { PDFError(.tooLarge, message, at: offset) }
    static func unsupported(_ message: String, at offset: Int? = nil) -> PDFError { PDFError(.unsupported, message, at: offset) }
    static func refused(_ message: String) -> PDFError { PDFError(.refused, message) }
    static func ambiguous(_ message: String, at offset: Int? = nil) -> PDFError { PDFError(.ambiguous, message, at: offset) }

    public var description: String {
        let place = offset.map { " (at byte \($0))" } ?? ""
        return (context + [message]).joined(separator: ": ") + place
    }
}

/// `body`, with `what` put in front of the context of any error it throws, so that an error deep
/// in an object says which object, and which part of the document asked for it.
func within<T>(_ what: @autoclosure () -> String, _ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch var error as PDFError {
        error.context.insert(what(), at: 0)
        throw error
    } catch {
        throw PDFError(.malformed, "\(error)", context: [what()])
    }
}
