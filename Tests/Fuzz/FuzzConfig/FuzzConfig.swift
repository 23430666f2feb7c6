// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: a config file's text into the checked config (`KioskConfig.parse`: TOMLKit's
// parse, then every section's keys, types and ranges, each problem with its line through
// `TOMLLines`), in memory. Anything may be refused; nothing may trap.
import InkConfig

#if INKKIOSK_FUZZ_BUILD
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    fuzzConfig(data, size)
}
#endif

/// One input, as libFuzzer gives it (the fuzz build) or the seed replay of `swift test` does.
public func fuzzConfig(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    _ = try? KioskConfig.parse(text, file: "fuzz.toml")
    return 0
}
