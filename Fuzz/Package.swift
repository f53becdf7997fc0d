// swift-tools-version:6.0
// libFuzzer targets for MediaExport. Build and run with scripts/fuzz.sh (from the repository root).
import PackageDescription

let package = Package(
    name: "mediaexport-fuzz",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "mediaexport", path: ".."),
    ],
    targets: [
        // Declares libFuzzer's LLVMFuzzerRunDriver (see its header for why).
        .target(name: "CFuzzerDriver"),
        // EditSidecar.parse (JSON) and AdjustmentInfo.load (property list) on arbitrary bytes.
        .executableTarget(
            name: "FuzzSidecar",
            dependencies: ["CFuzzerDriver", .product(name: "MediaExport", package: "mediaexport")],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        // AdjustmentInfo.parse (the .AAE: size bound, XML nesting scan, Foundation's XML plist parser) on arbitrary bytes.
        .executableTarget(
            name: "FuzzAdjustment",
            dependencies: ["CFuzzerDriver", .product(name: "MediaExport", package: "mediaexport")],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        // MediaProbe.probe (libavformat open + find_stream_info) on arbitrary bytes written to /dev/shm.
        .executableTarget(
            name: "FuzzProbe",
            dependencies: ["CFuzzerDriver", .product(name: "MediaExport", package: "mediaexport")],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
    ]
)
