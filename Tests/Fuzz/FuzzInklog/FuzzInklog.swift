// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: `.inklog` reading. The whole input as a recording (`InklogReader`: the header
// through JSONDecoder, every event line through `InklogLineParser`, then `EventParser`), and the
// input as one event line straight into the line parser and its syntax explainer.
// Anything may be refused; nothing may trap.
import FoundationEssentials
@testable import InkCore

#if INKKIOSK_FUZZ_BUILD
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    fuzzInklog(data, size)
}
#endif

/// One input, as libFuzzer gives it (the fuzz build) or the seed replay of `swift test` does.
public func fuzzInklog(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    _ = try? InklogReader(name: "fuzz").read(Data(bytes))
    if let line = try? InklogLineParser.parse(bytes) {
        var events = EventParser(devices: [1: DeviceInfo(id: 1, kind: .tablet, name: "pen", widthMM: 224, heightMM: 140, direct: false)])
        _ = try? events.parse(line)
    }
    _ = InklogLineParser.syntaxProblem(bytes)
    return 0
}
