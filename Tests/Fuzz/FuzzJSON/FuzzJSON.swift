// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: the JSON body check of POST /signatures (`JSONKeyCheck`), then the whole body
// decode it guards (`StartBody.decode`: the key check, JSONDecoder, the field checks).
// Anything may be refused; nothing may trap.
import FoundationEssentials
@testable import InkAPI

#if INKKIOSK_FUZZ_BUILD
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    fuzzJSON(data, size)
}
#endif

/// One input, as libFuzzer gives it (the fuzz build) or the seed replay of `swift test` does.
public func fuzzJSON(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let body = Data(UnsafeBufferPointer(start: data, count: size))
    _ = JSONKeyCheck.check(body)
    _ = try? StartBody.decode(body)
    return 0
}
