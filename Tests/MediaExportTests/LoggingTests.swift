import Foundation
import Logging
import Testing
@testable import MediaExport
@testable import MediaExportCore

/// What a server embedding the library sees through swift-log.
@Suite struct LoggingTests {
    /// Keeps every record.
    struct Capture: LogHandler {
        let records: LockedBox<[(Logger.Level, String, Logger.Metadata)]>
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            records.withLock { $0.append((event.level, "\(event.message)", metadata.merging(event.metadata ?? [:]) { $1 })) }
        }
    }

    @Test func aFallbackIsAWarningAndTheCompletionInfo() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let records = LockedBox<[(Logger.Level, String, Logger.Metadata)]>([])
        let logger = Logger(label: "test") { _ in Capture(records: records) }
        let input = TestSupport.fixture("bad/cut-at-half.mp4")
        let session = ExportSession(request: ExportRequest(input: input, output: dir.appendingPathComponent("o.mp4").path,
                                                           preset: try TestSupport.preset("low")), logger: logger)
        _ = try session.run()
        let seen = records.withLock { $0 }
        #expect(seen.contains { $0.0 == .warning && $0.1.contains("falling back to") }, "\(seen.map(\.1))")
        #expect(seen.contains { $0.0 == .info && $0.1.hasPrefix("exported ") })
        #expect(seen.allSatisfy { $0.2["input"] == "\(input)" })
    }

    @Test func aFailureIsAnErrorAndNothingIsLoggedByDefault() throws {
        let records = LockedBox<[(Logger.Level, String, Logger.Metadata)]>([])
        let logger = Logger(label: "test") { _ in Capture(records: records) }
        let session = ExportSession(request: ExportRequest(input: "/nonexistent.mov", output: "/tmp/never.mp4",
                                                           preset: try TestSupport.preset("low")), logger: logger)
        #expect(throws: ExportError.self) { try session.run() }
        #expect(records.withLock { $0 }.contains { $0.0 == .error && $0.1.contains("/nonexistent.mov") })
        #expect(ExportSession(request: session.request).logger.logLevel == MediaExportLogging.silent.logLevel)
    }

    /// `--verbose` shows the library's log and FFmpeg's lines (whole lines, however FFmpeg built them) on stderr, for
    /// an export and for every job of a batch; without it, neither.
    @Test func verboseBridgesTheLogToStderr() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let bad = TestSupport.fixture("bad/cut-at-half.mp4")
        let batch = try TestSupport.tool(["batch", bad, "--out", dir.appendingPathComponent("out").path, "--preset", "low", "--verbose", "-q"])
        #expect(batch.stderr.contains("warning mediaexport:") && batch.stderr.contains("falling back to"), "\(batch.stderr)")
        #expect(batch.stderr.contains("ffmpeg: [MediaExport] [mov,mp4,m4a,3gp,3g2,mj2 @ "), "\(batch.stderr)")
        #expect(!batch.stderr.split(separator: "\n").contains { $0.hasSuffix("] .") })
        let quiet = try TestSupport.tool(["--preset", "low", "-q", bad, dir.appendingPathComponent("q.mp4").path])
        #expect(!quiet.stderr.contains("mediaexport: input=") && !quiet.stderr.contains("ffmpeg:"), "\(quiet.stderr)")
    }
}
