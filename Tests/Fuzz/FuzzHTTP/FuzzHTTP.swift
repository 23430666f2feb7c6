// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: a connection to the signature API as the server builds it (RequestGuard with
// its head scanner, NIO's HTTP/1 decoder with pipelining and error handling, RequestHandler, the
// routes and a fresh desk), on an EmbeddedChannel: the input is what a client sends, in one piece
// or, for one length in three, cut into chunks of 1 to 13 bytes (the scanner keeps its state
// across chunks); then the clocks are run out. Also the head scanner alone on the same bytes. Small [api] limits, so that
// 414 and 431 are within reach. The access checks (RequestAccess: Origin, the JSON content type)
// as the server makes them: an input of even length comes over TCP to 127.0.0.1, where Host is
// judged and a bearer token required; one of odd length from a unix-socket peer, with no token.
// Anything may be refused; nothing may trap.
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

/// The token the TCP connections must show (also in the seed `bearer` and the dictionary).
private let token = try! BearerToken("0123456789abcdef0123456789abcdef")

private let access: APIAccess = {
    var a = APIAccess()
    a.allowedHosts = ["kiosk.example"]
    a.allowedOrigins = ["https://pos.example"]
    return a
}()

private func connection(_ input: UnsafeRawBufferPointer, chunk: Int, overTCP: Bool) {
    guard let desk = try? SignatureDesk(defaultTimeout: nil) else { fatalError("no desk") }
    // No long poll waits (`?wait=` is cut to 0): an answer later would come from another thread,
    // which an EmbeddedChannel does not take.
    var routes = SignatureRoutes(desk: desk, waits: WaitCount(limit: 2), longestWait: 0)
    routes.cancelGrace = 0
    // A new one for each input: no wrong-token count carries over from one input to the next.
    let requestAccess = RequestAccess(access: access, token: overTCP ? token : nil,
                                      listening: overTCP ? .tcp(host: "127.0.0.1", port: 7300) : .unix(path: "/run/inkkiosk/api.sock"),
                                      limits: limits)
    let caller = overTCP
        ? Caller(key: ClientKey(ip: "127.0.0.1"), overTCP: true, localIP: "127.0.0.1", description: "127.0.0.1 port 50000")
        : Caller(key: ClientKey(uid: 1000), overTCP: false, localIP: nil, description: "uid 1000 gid 1000 pid 4242")
    let channel = EmbeddedChannel()
    do {
        let guardian = RequestGuard(limits: limits)
        try channel.pipeline.syncOperations.addHandler(guardian)
        try channel.pipeline.syncOperations.configureHTTPServerPipeline(withPipeliningAssistance: true, withErrorHandling: true)
        try channel.pipeline.syncOperations.addHandler(RequestHandler(routes: routes, guardian: guardian, access: requestAccess,
                                                                      caller: caller, maxBody: limits.maxBodyBytes))
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

#if INKKIOSK_FUZZ_BUILD
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    fuzzHTTP(data, size)
}
#endif

/// One input, as libFuzzer gives it (the fuzz build) or the seed replay of `swift test` does.
public func fuzzHTTP(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = UnsafeRawBufferPointer(start: data, count: size)
    var scanner = RequestHeadScanner(limits: limits)
    _ = scanner.feed(input)
    connection(input, chunk: size % 3 == 0 ? 1 + size / 3 % 13 : max(size, 1), overTCP: size % 2 == 0)
    return 0
}
