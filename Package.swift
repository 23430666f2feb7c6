// swift-tools-version:6.0
import PackageDescription

/// swift-log's API, for the modules that log (InkLog holds the handler).
let logging: Target.Dependency = .product(name: "Logging", package: "swift-log")

let package = Package(
    name: "inkkiosk",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "inkkiosk", targets: ["inkkiosk"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // TOMLKit 0.6.0 (the newest) with its Foundation imports made FoundationEssentials: Vendor/TOMLKit/PATCHES.md.
        .package(path: "Vendor/TOMLKit"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        // 4.x imports FoundationEssentials where 3.x imported Foundation (and with it ICU).
        .package(url: "https://github.com/apple/swift-crypto", from: "4.0.0"),
        // 1.16 or later: its handler API is log(event:) (the per-argument one is deprecated there).
        .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),
    ],
    targets: [
        // System libraries, found through pkg-config.
        .systemLibrary(name: "CCairo", path: "Sources/CCairo", pkgConfig: "cairo",
                       providers: [.apt(["libcairo2-dev"])]),
        .systemLibrary(name: "CLibInput", path: "Sources/CLibInput", pkgConfig: "libinput",
                       providers: [.apt(["libinput-dev", "libudev-dev"])]),
        .systemLibrary(name: "CLibDRM", path: "Sources/CLibDRM", pkgConfig: "libdrm",
                       providers: [.apt(["libdrm-dev"])]),
        .systemLibrary(name: "CLibUdev", path: "Sources/CLibUdev", pkgConfig: "libudev",
                       providers: [.apt(["libudev-dev"])]),
        .systemLibrary(name: "CZlib", path: "Sources/CZlib", pkgConfig: "zlib",
                       providers: [.apt(["zlib1g-dev"])]),
        // The PDF helper's cage (seccomp through libseccomp, Landlock) and its socket's descriptor passing.
        .systemLibrary(name: "CCage", path: "Sources/CCage", pkgConfig: "libseccomp",
                       providers: [.apt(["libseccomp-dev"])]),
        // OpenSSL's libcrypto, for the PAdES signature's CMS and the device's signing certificate.
        .systemLibrary(name: "COpenSSL", path: "Sources/COpenSSL", pkgConfig: "libcrypto",
                       providers: [.apt(["libssl-dev"])]),
        // Linux headers for the event loop and the console (epoll, signalfd, VT ioctls).
        .systemLibrary(name: "CLinux", path: "Sources/CLinux"),

        // The ink: events, recordings, samples, strokes, tools, interaction. FoundationEssentials only:
        // no module imports Foundation proper (ICU, 39 MB); see README, "No Foundation, no ICU".
        .target(name: "InkCore"),
        // Levelled logging (swift-log) to stderr, with journald's priority prefixes under systemd:
        // its own small target, so that InkCore stays pure ink logic without a logging dependency.
        .target(name: "InkLog", dependencies: ["InkCore", .product(name: "Logging", package: "swift-log")]),
        // Canvas, overlay, damage, and PNG / SVG / PDF through cairo (PNG deflated by zlib).
        .target(name: "InkRender", dependencies: ["InkCore", "CCairo", "CZlib"]),
        // libinput on a udev seat -> InkEvents (one end that touches the kernel).
        .target(name: "InkInput", dependencies: ["InkCore", "InkLog", logging, "CLibInput"]),
        // Where frames go: DRM/KMS dumb buffers and page flips, the console, or offscreen (the other end).
        .target(name: "InkDisplay", dependencies: ["InkCore", "InkLog", logging, "InkRender", "CLibDRM", "CLibUdev", "CLinux"]),
        // Never lose ink: the stroke journal and its writer thread, signature captures, synced files, recordings;
        // a capture's files encrypted to the host's key (HPKE through swift-crypto: the only module that links it).
        .target(name: "InkStorage", dependencies: ["InkCore", "InkRender", "InkDocument", "CZlib", "CLinux",
                                                  .product(name: "Crypto", package: "swift-crypto"), "InkLoop"]),
        // Signing a PDF in place: a defensive reader of the file's objects and cross-references, its
        // signature fields and pages, and an incremental update that appends the ink's appearance
        // (the original's bytes untouched). Pure logic, no poppler; zlib for the compressed streams.
        .target(name: "InkDocument", dependencies: ["InkCore", "CZlib"]),
        // The PAdES baseline B-B signature on that update: a device's key and certificate (one PEM
        // file), the CMS through OpenSSL's libcrypto (the only module that links it), so that
        // InkDocument stays pure logic.
        .target(name: "InkDocumentSigning", dependencies: ["InkCore", "InkDocument", "COpenSSL"]),
        // The PDF helper: poppler-glib (loaded by the helper, not linked) in a process of its own, caged
        // (seccomp, Landlock, rlimits); the kiosk's side starts it, asks it, and kills it when stuck.
        .target(name: "InkPDFHelper", dependencies: ["InkCore", "InkLog", logging, "InkRender", "InkStorage", "CCairo", "CCage"]),
        // Worksheets: PDF pages under the ink, read and drawn by the PDF helper; the list, the copies, the strikes.
        .target(name: "InkWorksheet", dependencies: ["InkCore", "InkRender", "InkStorage", "InkPDFHelper",
                                                    .product(name: "Crypto", package: "swift-crypto")]),
        // The flow from input to screen: interaction -> document -> renderer -> display, and replay of recordings.
        .target(name: "InkPipeline", dependencies: ["InkCore", "InkRender", "InkDisplay"]),
        // The kiosk thread's waiting: epoll over file descriptors and signals, eventfd wake-ups from other threads.
        .target(name: "InkLoop", dependencies: ["InkCore", "CLinux"]),
        // The local signature API: the HTTP server (the only module that links SwiftNIO) and the desk
        // that hands the host's requests to the kiosk thread.
        // Hosts' documents (uploaded PDFs) are read with InkDocument and hashed with swift-crypto's SHA-256.
        .target(name: "InkAPI", dependencies: ["InkCore", "InkLog", logging, "InkLoop", "InkDocument",
                                              .product(name: "Crypto", package: "swift-crypto"),
                                              .product(name: "NIOCore", package: "swift-nio"),
                                              .product(name: "NIOPosix", package: "swift-nio"),
                                              .product(name: "NIOHTTP1", package: "swift-nio")]),
        // The config file (TOML, the only module that links TOMLKit): every box's settings, checked
        // strictly, each problem with its file, line and key.
        .target(name: "InkConfig", dependencies: ["InkCore", "InkLog", logging, "InkRender", "InkStorage", "InkAPI", "InkDocumentSigning",
                                                 .product(name: "TOMLKit", package: "TOMLKit")]),
        // The app: the kiosk's loop, its screens (signature, classroom, draw), lockdown, systemd.
        .target(name: "InkKiosk", dependencies: ["InkCore", "InkLog", logging, "InkRender", "InkInput", "InkDisplay", "InkStorage", "InkPipeline",
                                                "InkLoop", "InkAPI", "InkConfig", "InkWorksheet", "InkPDFHelper", "InkDocumentSigning", "CLinux"]),
        .executableTarget(name: "inkkiosk", dependencies: [
            "InkCore", "InkLog", logging, "InkRender", "InkInput", "InkDisplay", "InkStorage", "InkPipeline", "InkConfig", "InkKiosk", "InkLoop",
            "InkWorksheet", "InkPDFHelper", "InkDocumentSigning", .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),

        .testTarget(name: "InkCoreTests", dependencies: ["InkCore"]),
        .testTarget(name: "InkLogTests", dependencies: ["InkLog", logging]),
        .testTarget(name: "InkRenderTests", dependencies: ["InkCore", "InkRender"]),
        .testTarget(name: "InkInputTests", dependencies: ["InkInput", "CLibInput", logging]),
        .testTarget(name: "InkAPITests", dependencies: ["InkAPI", "InkDocument", "InkLog", logging]),
        .testTarget(name: "InkDocumentTests", dependencies: ["InkCore", "InkDocument", "InkDocumentSigning"]),
        .testTarget(name: "InkDisplayTests", dependencies: ["InkCore", "InkDisplay"]),
        .testTarget(name: "InkKioskTests", dependencies: ["InkCore", "InkLog", .product(name: "Logging", package: "swift-log"), "InkRender", "InkDisplay", "InkStorage", "InkPipeline",
                                                         "InkLoop", "InkAPI", "InkConfig", "InkKiosk", "InkWorksheet", "InkPDFHelper", "InkDocument", "InkDocumentSigning", "CCairo", "CLinux"]),
    ]
)

// Coverage-guided fuzz targets (libFuzzer through `swiftc -sanitize=fuzzer`): only declared when
// INKKIOSK_FUZZ is set, as `make fuzz` (scripts/fuzz.sh) does in its own build directory, so the
// product build, `swift build` and `swift test` never see them. Each is one file with
// `LLVMFuzzerTestOneInput` and no main (libFuzzer brings it), over the real parsers through
// `@testable import` (the fuzz build passes -enable-testing). The package is then only the fuzz
// targets and the modules they reach, so that one `swift build` builds all six, modules in
// parallel and each once. docs/FUZZING.md.
if Context.environment["INKKIOSK_FUZZ"] != nil {
    let fuzzers: [(product: String, target: String, dependencies: [Target.Dependency])] = [
        ("fuzz-http", "FuzzHTTP", ["InkAPI", .product(name: "NIOCore", package: "swift-nio"),
                                   .product(name: "NIOEmbedded", package: "swift-nio"),
                                   .product(name: "NIOHTTP1", package: "swift-nio")]),
        ("fuzz-json", "FuzzJSON", ["InkAPI"]),
        ("fuzz-inklog", "FuzzInklog", ["InkCore"]),
        ("fuzz-journal", "FuzzJournal", ["InkCore", "InkStorage", "CZlib"]),
        ("fuzz-config", "FuzzConfig", ["InkConfig"]),
        ("fuzz-pdf", "FuzzPDF", ["InkCore", "InkDocument"]),
    ]
    // The package's own modules the fuzz targets reach; the others (and the products) go.
    func ownModules(_ dependencies: [Target.Dependency]) -> [String] {
        dependencies.compactMap {
            switch $0 {
            case .targetItem(let name, _), .byNameItem(let name, _): return name
            default: return nil
            }
        }
    }
    var reached = Set<String>()
    var next = fuzzers.flatMap { ownModules($0.dependencies) }
    while let name = next.popLast() {
        guard reached.insert(name).inserted, let target = package.targets.first(where: { $0.name == name }) else { continue }
        next += ownModules(target.dependencies)
    }
    package.targets.removeAll { !reached.contains($0.name) }
    package.products.removeAll()
    for fuzzer in fuzzers {
        package.targets.append(.executableTarget(name: fuzzer.target, dependencies: fuzzer.dependencies,
                                                 path: "Tests/Fuzz/\(fuzzer.target)",
                                                 swiftSettings: [.unsafeFlags(["-parse-as-library"])]))
        package.products.append(.executable(name: fuzzer.product, targets: [fuzzer.target]))
    }
}
