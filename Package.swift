// swift-tools-version:6.0
import PackageDescription

/// swift-log's API, for the modules that log (InkLog holds the handler).
let logging: Target.Dependency = .product(name: "Logging", package: "swift-log")

let package = Package(
    name: "inkkiosk",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "inkkiosk", targets: ["inkkiosk"]),
        // The benchmarks, built with it and not shipped (scripts/deb, the appliance: inkkiosk only).
        .executable(name: "inkkiosk-bench", targets: ["inkkiosk-bench"]),
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
    // One module per box of the flow. A module's dependencies are what it imports, nothing more (a
    // module never imports one it does not list); its comment says its role and what it must not know.
    targets: [
        // System libraries, found through pkg-config.
        .systemLibrary(name: "CCairo", path: "Sources/CCairo", pkgConfig: "cairo",
                       providers: [.apt(["libcairo2-dev"])]),
        .systemLibrary(name: "CLibDRM", path: "Sources/CLibDRM", pkgConfig: "libdrm",
                       providers: [.apt(["libdrm-dev"])]),
        .systemLibrary(name: "CLibUdev", path: "Sources/CLibUdev", pkgConfig: "libudev",
                       providers: [.apt(["libudev-dev"])]),
        .systemLibrary(name: "CZlib", path: "Sources/CZlib", pkgConfig: "zlib",
                       providers: [.apt(["zlib1g-dev"])]),
        // The PDF helper's cage (seccomp through libseccomp, Landlock) and its socket's descriptor passing.
        .systemLibrary(name: "CCage", path: "Sources/CCage", pkgConfig: "libseccomp",
                       providers: [.apt(["libseccomp-dev"])]),
        // OpenSSL's libcrypto, for the PAdES signature's CMS and the device's signing certificate:
        // its headers (libssl-dev), and the library loaded the first time it is needed, not linked
        // (Sources/COpenSSL/libcrypto.c).
        .target(name: "COpenSSL", dependencies: ["CLoadOnUse"], path: "Sources/COpenSSL"),
        // libinput's headers (libinput-dev), and the library loaded by the seat's thread, not linked
        // (Sources/CLibInput/libinput.c); libudev linked.
        .target(name: "CLibInput", dependencies: ["CLoadOnUse"], path: "Sources/CLibInput"),
        // libcurl's headers (libcurl4-openssl-dev), and the library loaded by the first transfer, not linked
        // (Sources/CCurl/libcurl.c): the kiosk's own process never maps it.
        .target(name: "CCurl", dependencies: ["CLoadOnUse"], path: "Sources/CCurl"),
        // A library loaded the first time it is needed, its functions forwarded under their own names.
        .target(name: "CLoadOnUse", path: "Sources/CLoadOnUse"),
        // Linux headers: the event loop's (epoll, signalfd, eventfd), the console's VT ioctls, prctl (thread
        // names, the kiosk's dumpability), tgkill.
        .systemLibrary(name: "CLinux", path: "Sources/CLinux"),

        // The ink: events, recordings, samples, strokes, tools, interaction. Imports nothing of ours;
        // FoundationEssentials only: no module imports Foundation proper (ICU, 39 MB); see docs/ARCHITECTURE.md,
        // "No Foundation, no ICU".
        .target(name: "InkCore"),
        // Levelled logging (swift-log) to stderr, with journald's priority prefixes under systemd:
        // its own small target, so that InkCore stays pure ink logic without a logging dependency.
        .target(name: "InkLog", dependencies: ["InkCore", logging]),
        // Canvas, overlay, damage, and PNG / SVG / PDF through cairo (PNG deflated by zlib). Knows the
        // ink, not where it is stored or shown.
        .target(name: "InkRender", dependencies: ["InkCore", "CCairo", "CZlib"]),
        // libinput on a udev seat -> InkEvents (one end that touches the kernel); InkCore only besides.
        .target(name: "InkInput", dependencies: [logging, "InkCore", "CLibInput"]),
        // Where frames go: DRM/KMS dumb buffers and page flips, the console, or offscreen (the other end);
        // takes rendered frames (InkRender's surfaces), knows nothing of the kiosk's screens or of input.
        .target(name: "InkDisplay", dependencies: [logging, "InkCore", "InkRender", "CLibDRM", "CLibUdev", "CLinux"]),
        // Never lose ink: the stroke journal and its writer thread (InkLoop's threads), signature captures,
        // synced files, recordings; a capture's files encrypted to the host's key (HPKE through swift-crypto),
        // the PDF a capture signed (InkDocument; its digital signature through `DocumentSealer`, so that
        // storage does not link libcrypto). It does not render: a capture's PNG and SVG come from its
        // caller (`CaptureExporter`).
        .target(name: "InkStorage", dependencies: ["InkCore", "InkDocument", "CZlib",
                                                  .product(name: "Crypto", package: "swift-crypto"), "InkLoop"]),
        // Signing a PDF in place: a defensive reader of the file's objects and cross-references, its
        // signature fields and pages, and an incremental update that appends the ink's appearance
        // (the original's bytes untouched). Pure logic, no poppler, no cairo; zlib for the compressed streams.
        .target(name: "InkDocument", dependencies: ["InkCore", "CZlib"]),
        // The PAdES baseline B-B signature on that update: a device's key and certificate (one PEM
        // file), the CMS through OpenSSL's libcrypto (the only module that links it), so that
        // InkDocument stays pure logic.
        .target(name: "InkDocumentSigning", dependencies: ["InkCore", "InkDocument", "COpenSSL"]),
        // The PDF helper: poppler-glib (loaded by the helper, not linked) in a process of its own, caged
        // (seccomp, Landlock, rlimits); the kiosk's side starts it, asks it, and kills it when stuck.
        // The helper draws a worksheet's ink with InkRender; strokes cross to it as the journal stores
        // them (InkStorage's `StrokeTransfer`). Knows no screen.
        .target(name: "InkPDFHelper", dependencies: [logging, "InkCore", "InkRender", "InkStorage", "CCairo", "CCage"]),
        // Worksheets: PDF pages under the ink, read and drawn by the PDF helper; the list, the copies
        // (SHA-256 names through swift-crypto), the strikes. Knows no screen: the kiosk shows them.
        .target(name: "InkWorksheet", dependencies: ["InkCore", "InkRender", "InkStorage", "InkPDFHelper", "CCairo",
                                                    .product(name: "Crypto", package: "swift-crypto")]),
        // The flow from input to screen: interaction -> document -> renderer -> display, and replay of
        // recordings. Knows no device (events come in as InkEvents), no storage, no screen's controls.
        .target(name: "InkPipeline", dependencies: ["InkCore", "InkRender", "InkDisplay"]),
        // The kiosk thread's waiting: epoll over file descriptors and signals, eventfd wake-ups from other
        // threads; named threads and their priorities. Only the Linux headers below it.
        .target(name: "InkLoop", dependencies: ["InkCore", "CLinux"]),
        // The local signature API: the HTTP server (the only module that links SwiftNIO), the desk
        // that hands the host's requests to the kiosk thread (InkLoop's wake-ups), and its settings
        // (`APISettings`: address, token, access, limits). Hosts' documents (uploaded PDFs) are read with
        // InkDocument and hashed with swift-crypto's SHA-256. Knows no screen; a capture's files only as
        // the paths the kiosk hands it.
        .target(name: "InkAPI", dependencies: [logging, "InkCore", "InkLoop", "InkDocument",
                                              .product(name: "Crypto", package: "swift-crypto"),
                                              .product(name: "NIOCore", package: "swift-nio"),
                                              .product(name: "NIOPosix", package: "swift-nio"),
                                              .product(name: "NIOHTTP1", package: "swift-nio")]),
        // The config file (TOML, the only module that links TOMLKit): every box's settings, checked
        // strictly, each problem with its file, line and key. It imports the modules whose types the
        // settings hold (a sealing key, a device signer, the API's and the palette's); a box below it
        // owns its settings' struct (`APISettings`), the screens' are here (`ScreenSettings` composes them).
        .target(name: "InkConfig", dependencies: [logging, "InkCore", "InkRender", "InkDisplay", "InkStorage", "InkAPI", "InkDocumentSigning", "InkUpdateAgent",
                                                 "InkClassroom", "InkHTTPClient", .product(name: "TOMLKit", package: "TOMLKit")]),
        // The app: the kiosk's loop, its screens (signature, classroom, draw), lockdown, systemd; it wires
        // the boxes together (a capture's pictures drawn by InkRender for InkStorage, the device signer
        // for a document's signature) and may import every module; only the command line imports it.
        .target(name: "InkKiosk", dependencies: ["InkLog", logging, "InkCore", "InkRender", "InkInput", "InkDisplay", "InkStorage", "InkPipeline",
                                                "InkLoop", "InkAPI", "InkConfig", "InkWorksheet", "InkPDFHelper", "InkDocument", "InkDocumentSigning",
                                                "InkClassroom", "CQREncode", "CLinux"]),
        // What both executables' command lines share: a recording's arguments, --size, error exits, the release's version.
        .target(name: "InkCommandLine", dependencies: ["InkCore", logging, .product(name: "ArgumentParser", package: "swift-argument-parser")]),
        // The shipped command line (run, record, replay, devices, check-config, config, keygen, decrypt), and
        // the PDF helper's and the update agent's processes (the same binary, `pdf-helper`, `update-agent`).
        .executableTarget(name: "inkkiosk", dependencies: [
            "InkLog", logging,
            "InkCore", "InkRender", "InkInput", "InkDisplay", "InkStorage", "InkPipeline", "InkConfig", "InkKiosk", "InkLoop",
            "InkWorksheet", "InkPDFHelper", "InkDocumentSigning", "InkCommandLine", "InkUpdateAgent", "InkClassroom",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        // An HTTP(S) client on libcurl (the only module that uses it): requests with JSON, downloads to a
        // file with resume, a rate and a size limit, TLS verified. Knows no server; the update agent and,
        // later, the school's WebDAV use it.
        .target(name: "InkHTTPClient", dependencies: ["InkCore", "CCurl"]),
        // The fleet's update agent (`inkkiosk update-agent`): hawkBit's DDI API over InkHTTPClient, the
        // bundle's download and hash (swift-crypto), installs and reboots through the image's ik-update,
        // the outcome reported after the reboot. Its decisions (documents, schedule, window, versions,
        // the pending record) are pure logic. Knows no screen and no kiosk.
        .target(name: "InkUpdateAgent", dependencies: [logging, "InkCore", "InkHTTPClient",
                                                      .product(name: "Crypto", package: "swift-crypto")]),
        // The classroom's link to the school's cloud (`inkkiosk cloud-agent`, a process of its own):
        // WebDAV over InkHTTPClient (PROPFIND read with Expat), Nextcloud's Login Flow v2 and remote
        // wipe, the hand-out and return folders kept on the tablet, the durable outbox of hand-ins
        // (InkStorage's synced files) sent exactly once. Knows no screen: the kiosk reads its files.
        .target(name: "InkClassroom", dependencies: [logging, "InkCore", "InkHTTPClient", "InkStorage", "CExpat",
                                                    .product(name: "Crypto", package: "swift-crypto")]),
        .systemLibrary(name: "CQREncode", path: "Sources/CQREncode", pkgConfig: "libqrencode", providers: [.apt(["libqrencode-dev"])]),
        .systemLibrary(name: "CExpat", path: "Sources/CExpat", pkgConfig: "expat", providers: [.apt(["libexpat1-dev"])]),
        // A blocking HTTP client on a bare socket, for the API's load benchmark and its tests.
        .target(name: "InkAPIClient", dependencies: ["InkCore", "InkAPI", "InkLoop"]),
        // The benchmarks (bench, worksheet-bench, api-bench, pdf-bench, soak, hand-in-load) over the same modules as the kiosk; not shipped.
        .executableTarget(name: "inkkiosk-bench", dependencies: [
            "InkLog",
            "InkCore", "InkRender", "InkDisplay", "InkStorage", "InkPipeline", "InkConfig", "InkKiosk", "InkLoop",
            "InkAPI", "InkAPIClient", "InkWorksheet", "InkPDFHelper", "InkDocument", "InkCommandLine", "InkClassroom", "InkHTTPClient",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),

        // Helpers several test targets share (regular targets: a test target cannot depend on another).
        // Where the tests find recordings and the built binary, where they leave files, running tools,
        // and a screen's pixels.
        .target(name: "InkTestSupport", dependencies: ["InkCore", "InkRender"], path: "Tests/InkTestSupport"),
        // Worksheets made with cairo, the tests' shared PDF helper, and the faults done to it from outside.
        // The differential tests of the PDF reader: a document as our reader, qpdf (its JSON) and poppler
        // (pdfinfo) read it, and how the readings differ; shared by InkDocumentTests and the fuzz target.
        .target(name: "InkDocumentTestSupport", dependencies: ["InkDocument"], path: "Tests/InkDocumentTestSupport"),
        .target(name: "InkWorksheetTestSupport", dependencies: ["InkTestSupport", "InkPDFHelper", "InkWorksheet", "CCairo", "CLinux"],
                path: "Tests/InkWorksheetTestSupport"),

        .testTarget(name: "InkCoreTests", dependencies: ["InkCore"]),
        .testTarget(name: "InkCommandLineTests", dependencies: ["InkCommandLine", "InkTestSupport"]),
        .testTarget(name: "InkLogTests", dependencies: ["InkLog", logging]),
        .testTarget(name: "InkRenderTests", dependencies: ["InkCore", "InkRender", "CCairo"]),
        .testTarget(name: "InkInputTests", dependencies: ["CLibInput", logging, "InkCore", "InkInput"]),
        .testTarget(name: "InkAPITests", dependencies: ["InkLog", logging, "InkAPI", "InkAPIClient", "InkDocument", "InkTestSupport"]),
        .testTarget(name: "InkDocumentTests", dependencies: ["InkCore", "InkDocument", "InkDocumentSigning", "InkTestSupport",
                                                            "InkDocumentTestSupport"]),
        .testTarget(name: "InkDisplayTests", dependencies: ["InkCore", "InkDisplay"]),
        .testTarget(name: "InkStorageTests", dependencies: ["InkCore", "InkStorage", "InkTestSupport"]),
        .testTarget(name: "InkConfigTests", dependencies: [logging, "InkCore", "InkRender", "InkStorage", "InkAPI", "InkConfig", "InkTestSupport"]),
        .testTarget(name: "InkWorksheetTests", dependencies: ["InkCore", "InkRender", "InkStorage", "InkPDFHelper", "InkWorksheet", "CCairo",
                                                             "InkTestSupport", "InkWorksheetTestSupport"]),
        .testTarget(name: "InkLoopTests", dependencies: ["InkCore", "InkLoop"]),
        .testTarget(name: "InkHTTPClientTests", dependencies: ["InkHTTPClient", "InkTestSupport"]),
        .testTarget(name: "InkClassroomTests", dependencies: ["InkCore", "InkClassroom", "InkHTTPClient", "InkStorage"]),
        .testTarget(name: "InkUpdateAgentTests", dependencies: ["InkCore", "InkUpdateAgent", "InkHTTPClient"]),
        .testTarget(name: "InkPipelineTests", dependencies: ["InkCore", "InkRender", "InkDisplay", "InkPipeline", "InkTestSupport"]),
        // The app's tests: its screens and the kiosk, and whatever needs them (a recording replayed with
        // a mode's screen, the binary's commands).
        // Every fuzz target's seeds through its entry function, in the ordinary build (the targets'
        // own files, compiled without their libFuzzer symbols: INKKIOSK_FUZZ_BUILD is not set).
        .testTarget(name: "FuzzSeedTests", dependencies: ["InkCore", "InkStorage", "InkConfig", "InkAPI", "InkDocument", "CZlib",
                                                         "InkDocumentTestSupport", "InkTestSupport",
                                                         .product(name: "NIOCore", package: "swift-nio"),
                                                         .product(name: "NIOEmbedded", package: "swift-nio"),
                                                         .product(name: "NIOHTTP1", package: "swift-nio")],
                    path: "Tests/Fuzz", exclude: ["corpus", "dict"],
                    sources: ["FuzzHTTP", "FuzzJSON", "FuzzInklog", "FuzzJournal", "FuzzConfig", "FuzzPDF", "FuzzPDFReading", "SeedReplay"]),
        .testTarget(name: "InkKioskTests", dependencies: [logging, "InkCore", "InkRender", "InkDisplay", "InkStorage", "InkPipeline",
                                                         "InkLoop", "InkAPI", "InkConfig", "InkKiosk", "InkWorksheet", "InkPDFHelper",
                                                         "InkDocument", "InkDocumentSigning", "CCairo", "CZlib",
                                                         "InkTestSupport", "InkWorksheetTestSupport", "InkClassroom"]),
    ]
)

// INKKIOSK_TEST_TARGETS="A B …": only these test targets are declared, so a build of the tests
// compiles no others (the arm64 unit tests under emulation run a part of them:
// scripts/arm64/test.sh).
if let only = Context.environment["INKKIOSK_TEST_TARGETS"], !only.isEmpty {
    let kept = Set(only.split(separator: " ").map(String.init))
    package.targets.removeAll { $0.type == .test && !kept.contains($0.name) }
}

// Coverage-guided fuzz targets (libFuzzer through `swiftc -sanitize=fuzzer`): only declared when
// INKKIOSK_FUZZ is set, as `make fuzz` (scripts/fuzz.sh) does in its own build directory, so the
// product build, `swift build` and `swift test` never see them. Each is one file with
// `LLVMFuzzerTestOneInput` and no main (libFuzzer brings it), over the real parsers through
// `@testable import` (the fuzz build passes -enable-testing). The package is then only the fuzz
// targets and the modules they reach, so that one `swift build` builds all seven, modules in
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
        ("fuzz-pdf-reading", "FuzzPDFReading", ["InkDocument", "InkDocumentTestSupport"]),
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
                                                 swiftSettings: [.unsafeFlags(["-parse-as-library"]), .define("INKKIOSK_FUZZ_BUILD")]))
        package.products.append(.executable(name: fuzzer.product, targets: [fuzzer.target]))
    }
}
