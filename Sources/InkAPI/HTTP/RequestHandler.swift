// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import Glibc
import NIOCore
import NIOHTTP1

/// The last handler on a connection: gathers a request (refusing a body over the limit before
/// reading it), hands it to the routes on a task, and writes the answer back on the event loop.
/// The routes may wait (a long poll); the event loop never does.
final class RequestHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let routes: SignatureRoutes
    private let guardian: RequestGuard
    private let access: RequestAccess
    private let caller: Caller
    /// Told when a request passed the checks: the connection then keeps its slot.
    private let slot: ConnectionSlot?
    private var proven = false
    private let maxBody: Int
    /// Where `POST /documents` bodies go (streamed, up to `[limits] document_mb`); nil: no documents.
    private let documents: DocumentStore?
    private var head: HTTPRequestHead?
    private var body = Data()
    /// The PDF of a `POST /documents` being received: written to disk, not gathered in `body`.
    private var upload: DocumentUpload?
    /// The routes' task for the request in hand: cancelled if the client goes (its long poll ends).
    private var answering: Task<Void, Never>?

    init(routes: SignatureRoutes, guardian: RequestGuard, access: RequestAccess, caller: Caller, slot: ConnectionSlot? = nil,
         maxBody: Int, documents: DocumentStore? = nil) {
        self.routes = routes
        self.guardian = guardian
        self.access = access
        self.caller = caller
        self.slot = slot
        self.maxBody = maxBody
        self.documents = documents
    }

    func channelInactive(context: ChannelHandlerContext) {
        answering?.cancel()
        answering = nil
        dropUpload()   // a client that left mid-upload leaves no file
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let requestHead):
            dropUpload()
            // A browser's request is refused before anything else, its size too.
            if let refusal = access.judgeBrowser(requestHead, from: caller) {
                head = nil
                body = Data()
                guardian.refuse(refusal)
                return
            }
            // Only POST /documents takes a PDF, and a body that large; everything else is JSON within max_body_bytes.
            let isUpload = documents != nil && requestHead.method == .POST
                && requestHead.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0] == "/documents"
            // Judged by its announced length, before a byte of it is read.
            let lengths = requestHead.headers["Content-Length"]
            if let length = lengths.first.flatMap(Int.init), length > (isUpload ? documents?.limits.maxDocumentBytes ?? 0 : maxBody) {
                tooLarge(isUpload)
                return
            }
            // Who asks, and how: judged on the head, before a byte of the body is read. A
            // refusal closes the connection (a guesser of tokens must connect again).
            let hasBody = lengths.first.flatMap(Int.init).map { $0 > 0 } ?? requestHead.headers.contains(name: "Transfer-Encoding")
            if let refusal = access.judge(requestHead, hasBody: hasBody, from: caller, pdfUpload: isUpload) {
                head = nil
                body = Data()
                guardian.refuse(refusal)
                return
            }
            if !proven {
                proven = true
                slot?.proven()
            }
            if isUpload, let documents {
                do throws(APIProblem) { upload = try DocumentUpload(for: documents) } catch {
                    head = nil
                    guardian.refuse(SignatureRoutes.response(for: error))
                    return
                }
            }
            head = requestHead
            body = Data()
        case .body(let chunk):
            guard head != nil else { return }
            if let upload {
                switch upload.write(chunk) {
                case .written: return
                case .tooLarge: tooLarge(true)
                case .failed(let why):
                    head = nil
                    dropUpload()
                    guardian.refuse(.error(.insufficientStorage, "cannot take the document: \(why)"))
                }
                return
            }
            // Chunked bodies carry no length: count as they come.
            guard body.count + chunk.readableBytes <= maxBody else {
                tooLarge(false)
                return
            }
            body.append(contentsOf: chunk.readableBytesView)
        case .end:
            guard let requestHead = head else { return }
            head = nil
            guardian.requestReceived()
            if let upload {
                self.upload = nil
                answer(routes.upload(upload.finish()), for: requestHead, context: context)
                return
            }
            guard let request = APIRequest(head: requestHead, body: body) else {
                write(.error(.badRequest, "the request target must be a path such as /signatures, with valid %-escapes"),
                      for: requestHead, context: context)
                return
            }
            body = Data()
            answer(routes.answer(request), for: requestHead, context: context)
        }
    }

    private func answer(_ answer: SignatureRoutes.Answer, for requestHead: HTTPRequestHead, context: ChannelHandlerContext) {
        switch answer {
        case .now(let response):
            write(response, for: requestHead, context: context)
        case .later(let work):
            let loop = context.eventLoop
            let bound = NIOLoopBound((self, context), eventLoop: loop)
            answering = Task {
                let response = await work()
                loop.execute {
                    let (handler, context) = bound.value
                    handler.answering = nil
                    handler.write(response, for: requestHead, context: context)
                }
            }
        }
    }

    private func dropUpload() {
        upload?.abandon()
        upload = nil
    }

    /// The HTTP decoder could not read the request: its error handler has answered 400; the
    /// connection cannot go on (the decoder's state is lost), so it is closed gently.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        dropUpload()
        guardian.refuse(nil)
    }

    private func tooLarge(_ isUpload: Bool) {
        head = nil
        body = Data()
        dropUpload()
        if isUpload, let documents {
            let bytes = documents.limits.maxDocumentBytes
            let size = bytes % (1 << 20) == 0 ? "\(bytes >> 20) MiB" : "\(bytes) bytes"
            guardian.refuse(.error(.payloadTooLarge, "the document is larger than \(size) ([limits] document_mb)"))
        } else {
            guardian.refuse(.error(.payloadTooLarge, "the request body is longer than \(maxBody) bytes ([api] max_body_bytes)"))
        }
    }

    private func write(_ response: APIResponse, for request: HTTPRequestHead, context: ChannelHandlerContext) {
        guard context.channel.isActive else { return }
        let keepAlive = request.isKeepAlive
        var headers = HTTPHeaders(response.headers)
        headers.replaceOrAdd(name: "Content-Length", value: String(response.body.count))
        if !keepAlive { headers.replaceOrAdd(name: "Connection", value: "close") }
        else if request.version.major == 1 && request.version.minor == 0 { headers.replaceOrAdd(name: "Connection", value: "keep-alive") }
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: request.version, status: response.status, headers: headers))),
                      promise: nil)
        if !response.body.isEmpty {
            context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: response.body)))), promise: nil)
        }
        let written = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if keepAlive {
            guardian.answered()
        } else {
            written.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
        }
    }
}
