// TEMPORARY until the vink branch lands (removed at its merge).
import FoundationEssentials
import InkCore
public struct EmbeddedFile: Sendable {
    public var name: String; public var bytes: [UInt8]; public var mimeType: String; public var description: String?; public var modified: Date?
    public init(name: String, bytes: [UInt8], mimeType: String, description: String?, modified: Date?) {
        self.name = name; self.bytes = bytes; self.mimeType = mimeType; self.description = description; self.modified = modified
    }
}
extension VectorInk {
    public init(strokes: [Stroke], shownIn area: Rect, fieldSize: (width: Double, height: Double)) {
        let s = min(fieldSize.width / area.width, fieldSize.height / area.height)
        self.init(strokes.map { st in
            InkPath(st.samples.enumerated().map { i, p in
                let q = Point((p.location.x - area.minX) * s, fieldSize.height - (p.location.y - area.minY) * s)
                return i == 0 ? .move(q) : .line(q) }, painting: .stroke(width: 2 * s), color: st.brush.color)
        })
    }
}
extension InkSigning {
    public static func sign(_ document: PDFDocument, with ink: VectorInk, at target: SignatureTarget, attachments: [EmbeddedFile],
                            signatureValue: SignatureValue? = nil) throws -> UpdatedPDF {
        try sign(document, with: ink, at: target, signatureValue: signatureValue)
    }
}
