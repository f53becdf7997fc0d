// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "mediaexport",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "MediaExport", targets: ["MediaExport"]),
        .executable(name: "mediaexport", targets: ["mediaexport"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        // The C bridge: FFmpeg 5.1's libraries found with pkg-config, plus a shim for the macros Swift cannot import.
        .systemLibrary(
            name: "CFFmpeg",
            pkgConfig: "libavformat libavcodec libavutil libswscale libswresample",
            providers: [.apt(["libavformat-dev", "libavcodec-dev", "libavutil-dev", "libswscale-dev", "libswresample-dev"])]
        ),
        // The system SQLite, for the batch export database.
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // FFmpeg's log callback (variadic, so written in C): keeps the last error line for error messages.
        .target(name: "CFFmpegLog", dependencies: ["CFFmpeg"]),
        // The library: presets, sessions, the pipeline. No FFmpeg types in its public API.
        .target(
            name: "MediaExport",
            dependencies: ["CFFmpeg", "CFFmpegLog", "CSQLite"],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        // The thin command-line tool.
        .executableTarget(
            name: "mediaexport",
            dependencies: [
                "MediaExport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .testTarget(
            name: "MediaExportTests",
            dependencies: ["MediaExport"],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
    ]
)
