// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "inkkiosk",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "inkkiosk", targets: ["inkkiosk"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        // System libraries, found through pkg-config.
        .systemLibrary(name: "CCairo", path: "Sources/CCairo", pkgConfig: "cairo",
                       providers: [.apt(["libcairo2-dev"])]),

        // The ink: events, recordings, samples, strokes, tools, interaction. Foundation only.
        .target(name: "InkCore"),
        // Canvas, overlay, damage, and PNG / SVG / PDF through cairo.
        .target(name: "InkRender", dependencies: ["InkCore", "CCairo"]),
        // Where frames go: the offscreen display now, DRM/KMS later.
        .target(name: "InkDisplay", dependencies: ["InkCore", "InkRender"]),
        // The app: the frame pipeline (interaction -> document -> renderer -> display) and replay.
        .target(name: "InkKiosk", dependencies: ["InkCore", "InkRender", "InkDisplay"]),
        .executableTarget(name: "inkkiosk", dependencies: [
            "InkCore", "InkRender", "InkKiosk",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),

        .testTarget(name: "InkCoreTests", dependencies: ["InkCore"]),
        .testTarget(name: "InkRenderTests", dependencies: ["InkCore", "InkRender"]),
        .testTarget(name: "InkKioskTests", dependencies: ["InkCore", "InkRender", "InkDisplay", "InkKiosk"]),
    ]
)
