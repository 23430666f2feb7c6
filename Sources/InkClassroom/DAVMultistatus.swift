// SPDX-License-Identifier: Apache-2.0
import CExpat

/// One file or folder of a PROPFIND answer: what the hand-out poll and the hand-in need.
public struct DAVResource: Sendable, Equatable {
    /// The path the server names it by, percent-decoded ("/remote.php/dav/files/t7/Class 7b/Hand-out/Maps.pdf").
    public var path: String
    public var isFolder: Bool
    /// The ETag with its quotes, as `If-Match` wants it back; nil when the server sent none.
    public var etag: String?
    public var bytes: Int64?
    public var lastModified: String?

    public init(path: String, isFolder: Bool, etag: String? = nil, bytes: Int64? = nil, lastModified: String? = nil) {
        self.path = path; self.isFolder = isFolder; self.etag = etag; self.bytes = bytes; self.lastModified = lastModified
    }

    /// An ETag as `If-Match` wants it: in quotes (Nextcloud quotes them in PROPFIND answers,
    /// WsgiDAV does not); a weak one (`W/"…"`) as it is; nil for nothing.
    public static func quotedETag(_ raw: String?) -> String? {
        guard let raw, !raw.isEmpty else { return nil }
        if raw.hasPrefix("\"") || raw.hasPrefix("W/") { return raw }
        return "\"\(raw)\""
    }

    /// The last segment of the path ("Maps.pdf"), a folder's without its slash.
    public var name: String {
        var trimmed = Substring(path)
        while trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        return String(trimmed.split(separator: "/", omittingEmptySubsequences: false).last ?? "")
    }
}

/// Why a PROPFIND answer was not used: the server's words are not trusted to be well formed or small.
public struct DAVAnswerError: Error, Sendable, Equatable, CustomStringConvertible {
    public var problem: String
    public var description: String { "the WebDAV answer cannot be used: \(problem)" }
}

/// Reads a WebDAV multistatus (RFC 4918, 207) with Expat, namespace-aware: only `DAV:` elements
/// count, whatever prefix the server gives them. Properties are taken from a `propstat` whose
/// status is 200 only (a server lists the ones it does not have under 404). A document type
/// declaration ends the parse: an answer has none, and entities are how a hostile one grows.
public enum DAVMultistatus {
    /// At most this many bytes of text in one element (an href, an ETag).
    public static let maxTextBytes = 4096

    public static func parse(_ xml: [UInt8], maxResources: Int) throws(DAVAnswerError) -> [DAVResource] {
        guard let parser = XML_ParserCreateNS(nil, CChar(UInt8(ascii: "|"))) else {
            throw DAVAnswerError(problem: "Expat could not make a parser")
        }
        defer { XML_ParserFree(parser) }
        let reader = Reader(maxResources: maxResources, parser: parser)
        let context = Unmanaged.passRetained(reader)
        defer { context.release() }
        XML_SetUserData(parser, context.toOpaque())
        XML_SetElementHandler(parser, { data, name, _ in
            Reader.from(data).start(name.map { String(cString: $0) } ?? "")
        }, { data, name in
            Reader.from(data).end(name.map { String(cString: $0) } ?? "")
        })
        XML_SetCharacterDataHandler(parser, { data, text, length in
            guard let text, length > 0 else { return }
            Reader.from(data).text(UnsafeRawBufferPointer(start: text, count: Int(length)))
        })
        XML_SetStartDoctypeDeclHandler(parser, { data, _, _, _, _ in
            Reader.from(data).refuse("it declares a document type (an answer has none)")
        })
        let status = xml.withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { chars in
                XML_Parse(parser, chars.baseAddress, Int32(clamping: chars.count), 1)
            }
        }
        if let problem = reader.problem { throw DAVAnswerError(problem: problem) }
        guard status == XML_STATUS_OK else {
            let line = XML_GetCurrentLineNumber(parser)
            let message = XML_ErrorString(XML_GetErrorCode(parser)).map { String(cString: $0) } ?? "unknown"
            throw DAVAnswerError(problem: "not well-formed XML at line \(line): \(message)")
        }
        guard reader.sawMultistatus else { throw DAVAnswerError(problem: "no DAV:multistatus element") }
        return reader.resources
    }

    /// Expat's callbacks land here: a stack of the elements open, the response being read.
    private final class Reader {
        let maxResources: Int
        let parser: XML_Parser
        var resources: [DAVResource] = []
        var problem: String?
        var sawMultistatus = false
        private var stack: [String] = []
        private var text: [UInt8] = []
        private var href: String?
        private var found = Properties()
        private var pending = Properties()
        private var propstatStatus = ""

        struct Properties {
            var isFolder = false
            var etag: String?
            var bytes: Int64?
            var lastModified: String?
        }

        init(maxResources: Int, parser: XML_Parser) { self.maxResources = maxResources; self.parser = parser }

        static func from(_ data: UnsafeMutableRawPointer?) -> Reader {
            Unmanaged<Reader>.fromOpaque(data!).takeUnretainedValue()
        }

        func refuse(_ why: String) {
            if problem == nil { problem = why }
            XML_StopParser(parser, 0)
        }

        /// "DAV:|href" → "href"; another namespace's element keeps its namespace, so it never matches.
        private func local(_ name: String) -> String {
            name.hasPrefix("DAV:|") ? String(name.dropFirst(5)) : "other:" + name
        }

        func start(_ name: String) {
            let element = local(name)
            text.removeAll(keepingCapacity: true)
            switch element {
            case "multistatus": sawMultistatus = true
            case "response": href = nil; found = Properties()
            case "propstat": pending = Properties(); propstatStatus = ""
            case "collection" where stack.last == "resourcetype": pending.isFolder = true
            default: break
            }
            stack.append(element)
            if stack.count > 32 { refuse("elements nested more than 32 deep") }
        }

        func text(_ chunk: UnsafeRawBufferPointer) {
            guard text.count + chunk.count <= DAVMultistatus.maxTextBytes else {
                refuse("an element's text is over \(DAVMultistatus.maxTextBytes) bytes")
                return
            }
            text.append(contentsOf: chunk)
        }

        func end(_ name: String) {
            let element = local(name)
            let value = String(decoding: text, as: UTF8.self).trimmedWhitespace()
            text.removeAll(keepingCapacity: true)
            _ = stack.popLast()
            let inProp = stack.last == "prop"
            switch element {
            case "href" where stack.last == "response": href = value
            case "status" where stack.last == "propstat": propstatStatus = value
            case "getetag" where inProp: pending.etag = DAVResource.quotedETag(value)
            case "getcontentlength" where inProp: pending.bytes = Int64(value).flatMap { $0 >= 0 ? $0 : nil }
            case "getlastmodified" where inProp: pending.lastModified = value
            case "propstat":
                // "HTTP/1.1 200 OK": the properties in it are the resource's.
                if propstatStatus.split(separator: " ").dropFirst().first == "200" {
                    found.isFolder = found.isFolder || pending.isFolder
                    found.etag = pending.etag ?? found.etag
                    found.bytes = pending.bytes ?? found.bytes
                    found.lastModified = pending.lastModified ?? found.lastModified
                }
            case "response":
                guard let href, !href.isEmpty else { refuse("a response without an href"); return }
                guard let path = PercentEncoding.decodePath(PercentEncoding.urlPath(href)) else {
                    refuse("an href that is not a percent-encoded UTF-8 path: \(href.prefix(200).debugDescription)")
                    return
                }
                guard resources.count < maxResources else {
                    refuse("more than \(maxResources) entries")
                    return
                }
                resources.append(DAVResource(path: path, isFolder: found.isFolder, etag: found.etag,
                                             bytes: found.bytes, lastModified: found.lastModified))
            default: break
            }
        }
    }
}

extension String {
    func trimmedWhitespace() -> String {
        var s = Substring(self)
        while let c = s.first, c.isWhitespace { s.removeFirst() }
        while let c = s.last, c.isWhitespace { s.removeLast() }
        return String(s)
    }
}
