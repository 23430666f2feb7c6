// libFuzzer target: a connection to the signature API as the server builds it (RequestGuard with
// its head scanner, NIO's HTTP/1 decoder with pipelining and error handling, RequestHandler, the
// routes and a fresh desk), on an EmbeddedChannel: the input is what a client sends, in one piece
// or, for one length in three, cut into chunks of 1 to 13 bytes (the scanner keeps its state
// across chunks); then the clocks are run out. Also the head scanner alone on the same bytes. Small [api] limits, so that
// 414 and 431 are within reach. Anything may be refused; nothing may trap.
import FoundationEssentials
@testable import InkAPI
import NIOCore
import NIOEmbedded
import NIOHTTP1

private let limits: APILimits = {
    var l = APILimits()
    l.maxRequestLine = 256
    l.maxHeaderBytes = 1024
    l.maxBodyBytes = 1024
    return l
}()

private func connection(_ input: UnsafeRawBufferPointer, chunk: Int) {
    guard let desk = try? SignatureDesk(defaultTimeout: nil) else { fatalError("no desk") }
    // No long poll waits (`?wait=` is cut to 0): an answer later would come from another thread,
    // which an EmbeddedChannel does not take.
    var routes = SignatureRoutes(desk: desk, waits: WaitCount(limit: 2), longestWait: 0)
    routes.cancelGrace = 0
    let channel = EmbeddedChannel()
    do {
        let guardian = RequestGuard(limits: limits)
        try channel.pipeline.syncOperations.addHandler(guardian)
        try channel.pipeline.syncOperations.configureHTTPServerPipeline(withPipeliningAssistance: true, withErrorHandling: true)
        try channel.pipeline.syncOperations.addHandler(RequestHandler(routes: routes, guardian: guardian, maxBody: limits.maxBodyBytes))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 9)).wait()
    } catch {
        fatalError("cannot set up the channel: \(error)")
    }
    var at = 0
    while at < input.count, channel.isActive {
        let end = min(at + chunk, input.count)
        _ = try? channel.writeInbound(channel.allocator.buffer(bytes: input[at..<end]))
        while let _ = try? channel.readOutbound(as: ByteBuffer.self) {}
        at = end
    }
    channel.embeddedEventLoop.advanceTime(by: .seconds(60))
    while let _ = try? channel.readOutbound(as: ByteBuffer.self) {}
    _ = try? channel.finish(acceptAlreadyClosed: true)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTP(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = UnsafeRawBufferPointer(start: data, count: size)
    var scanner = RequestHeadScanner(limits: limits)
    _ = scanner.feed(input)
    connection(input, chunk: size % 3 == 0 ? 1 + size / 3 % 13 : max(size, 1))
    return 0
}
