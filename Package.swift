// swift-tools-version:6.0
import PackageDescription

/// The release tool's link (see the `mediaexport` target): the Swift runtime and Foundation linked statically, in a
/// group as Foundation's archives refer to each other, relative relocations packed, and, when
/// `MEDIAEXPORT_SYMBOL_ORDERING_FILE` names a list, the functions everyday commands run placed first (the list
/// `scripts/release-build.sh` generates with `scripts/hot-functions.sh`, in `.build/hot-functions.txt`).
var releaseLinkFlags: [String] = ["-static-stdlib", "-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs"]
let staticArchives: [String] = [
    "Foundation", "FoundationInternationalization", "FoundationEssentials", "CoreFoundation", "_FoundationICU",
    "_FoundationCShims", "_FoundationCollections", "swiftSynchronization", "swiftDispatch", "dispatch", "BlocksRuntime",
    "swift_RegexParser", "swift_StringProcessing", "swift_Concurrency", "swiftCore",
]
releaseLinkFlags += ["-Xlinker", "--start-group"]
for archive in staticArchives { releaseLinkFlags += ["-Xlinker", "-l\(archive)"] }
releaseLinkFlags += ["-Xlinker", "--end-group"]
// An environment variable rather than a test for the file: SwiftPM caches the manifest's result by its text and the
// environment, so a list that appears later would go unseen; a changed variable changes the link command, which
// makes SwiftPM link again.
if let order = Context.environment["MEDIAEXPORT_SYMBOL_ORDERING_FILE"], !order.isEmpty {
    releaseLinkFlags += ["-Xlinker", "--symbol-ordering-file=\(order)", "-Xlinker", "--no-warn-symbol-ordering"]
}

let package = Package(
    name: "mediaexport",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "MediaExport", targets: ["MediaExport"]),
        .executable(name: "mediaexport", targets: ["mediaexport"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    ],
    targets: [
        // The C bridge: FFmpeg 5.1's libraries found with pkg-config, plus a shim for the macros Swift cannot import.
        .systemLibrary(
            name: "CFFmpeg",
            pkgConfig: "libavformat libavcodec libavutil libswscale libswresample libavfilter",
            providers: [.apt(["libavformat-dev", "libavcodec-dev", "libavutil-dev", "libswscale-dev", "libswresample-dev", "libavfilter-dev"])]
        ),
        // The system zlib, to inflate the DEFLATE data inside Apple's .AAE adjustment records.
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // FFmpeg's log callback (variadic, so written in C): keeps the last error line for error messages.
        .target(name: "CFFmpegLog", dependencies: ["CFFmpeg"]),
        // The values and the pure planner: presets, requests, edits, plans, events, errors. No C module. Its folders
        // are layered, each using only those below it (docs/development.md#structure).
        .target(name: "MediaExportCore"),
        // The only Swift target that imports FFmpeg (`internal import`): probing, one owner per FFmpeg object,
        // the pipeline stages and the executor, frame reading, and the file I/O the pipeline writes through.
        .target(name: "MediaExportFFmpeg", dependencies: ["MediaExportCore", "CFFmpeg", "CFFmpegLog"]),
        // The public API: sessions and the fallback chain, assets and versions, batch, regress, thumbnails.
        // Logs what a server embedding it needs to see (fallbacks, failures, FFmpeg's warnings) through swift-log.
        .target(
            name: "MediaExport",
            dependencies: [
                "MediaExportCore",
                "MediaExportFFmpeg",
                // The process-wide settings the tool asks for through `ToolProcess` (signals, FFmpeg's log, malloc).
                "CFFmpegLog",
                "CZlib",
                // The batch export database (GRDB over the system SQLite, libsqlite3-dev).
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The command-line tool: argument parsing, renderers, exit codes.
        .executableTarget(
            name: "mediaexport",
            dependencies: [
                "MediaExport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            // A release tool links the Swift runtime and Foundation statically (as `--static-swift-stdlib` does):
            // the loader then maps and relocates one binary instead of libswiftCore, libFoundation,
            // libFoundationEssentials, ICU and a dozen more, and only the pages the tool runs stay resident
            // (issue 19: about 5 MiB less peak RSS in every export, at no CPU cost). Not in debug builds: the test
            // binary links this target beside the test frameworks, which bring the shared runtime.
            // Foundation's static archives do not carry their dependencies the way its modules do for shared
            // linking: name them, in a group as they refer to each other. The toolchain's lld packs the binary's
            // ~87 000 relative relocations (DT_RELR, glibc 2.36+): 2 MiB of relocation records the loader would
            // otherwise read at every start (3 MiB less peak RSS). With scripts/release-build.sh's list, the ~7 000
            // functions the everyday commands run (2.4 MiB of 19) go first in .text, so the code pages the kernel maps
            // in (whole page-cache folios, up to 2 MiB on recent kernels) are mostly code the tool runs: 3-5 MiB less
            // peak RSS.
            linkerSettings: [
                .unsafeFlags(releaseLinkFlags, .when(platforms: [.linux], configuration: .release))
            ]
        ),
        // The planner's tests: plain values only, no media file, no FFmpeg.
        .testTarget(name: "MediaExportCoreTests", dependencies: ["MediaExportCore"]),
        .testTarget(
            name: "MediaExportTests",
            dependencies: [
                "MediaExport", "MediaExportCore", "MediaExportFFmpeg", "mediaexport",
                // Builds legacy export databases byte for byte (DatabaseMigrationTests).
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
    ]
)
