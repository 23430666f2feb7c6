// swift-tools-version:5.5
// TOMLKit 0.6.0 (LebJe/TOMLKit, commit bebd313dec74a93cadc8b5677bb17ad6e45414f7), vendored with one
// change: its `import struct Foundation.X` lines import FoundationEssentials where there is one
// (see PATCHES.md). Only the library: no tests, no documentation plugin.

import PackageDescription

let package = Package(
	name: "TOMLKit",
	platforms: [
		.macOS(.v10_15),
		.iOS(.v13),
		.watchOS(.v6),
		.tvOS(.v12),
	],
	products: [
		.library(name: "TOMLKit", targets: ["TOMLKit"]),
	],
	targets: [
		.target(
			name: "CTOML",
			cxxSettings: [
				.define("TOML_EXCEPTIONS", to: "1"),
				.define("_CRT_NONSTDC_NO_WARNINGS", .when(platforms: [.windows])),
			]
		),
		.target(
			name: "TOMLKit",
			dependencies: ["CTOML"]
		),
	],
	cLanguageStandard: .c99,
	cxxLanguageStandard: .cxx17
)
