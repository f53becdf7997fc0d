import Foundation
import Testing
@testable import MediaExport
@testable import MediaExportCore

/// Issue 46, item 4: one estimate for an asset, whatever shows it. A dry run measures a transcode on samples (a clip
/// under 90 frames: encoded whole) and keeps the figure (`EstimateStore`); the run after it reports that same figure
/// and method, not a guess; a run without one says its figure is a guess.
@Suite("Batch: the dry run's estimate is the run's") struct BatchEstimateTests {
    static func uploads(_ dir: URL) throws -> String {
        let uploads = dir.appendingPathComponent("uploads").path
        try FileManager.default.createDirectory(atPath: uploads, withIntermediateDirectories: true)
        // 2 s at 30 fps: 60 frames, too few to spread samples over.
        try FileManager.default.copyItem(atPath: TestSupport.fixture("landscape.mov"), toPath: uploads + "/short.mov")
        // 8 s of a still picture: a bits-per-pixel guess is many times the real size.
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=640x360:rate=30,trim=end_frame=1,loop=loop=-1:size=1", "-t", "8",
                                "-c:v", "libx264", "-preset", "ultrafast", "-crf", "16", "-pix_fmt", "yuv420p", uploads + "/still.mp4"])
        return uploads
    }

    static func options(_ uploads: String, _ out: String, store: String?, dryRun: Bool) throws -> BatchOptions {
        var o = BatchOptions(inputs: [uploads], outputDirectory: out, preset: try TestSupport.preset("1280x720"), jobs: 1, policy: .always, dryRun: dryRun)
        o.estimateStore = store
        return o
    }

    @Test func theRunReportsTheDryRunsSampledEstimate() async throws {
        let dir = TestSupport.tempDir("batch-estimate")
        defer { TestSupport.cleanup(dir) }
        let uploads = try Self.uploads(dir)
        let out = dir.appendingPathComponent("out").path, store = dir.appendingPathComponent("cache/estimates.sqlite").path

        let dry = try await BatchRunner(options: try Self.options(uploads, out, store: store, dryRun: true)).run()
        #expect(dry.rows.count == 2 && dry.rows.allSatisfy { $0.status == "planned" && $0.estimateMethod == "samples" }, "\(dry.rows)")
        #expect(!FileManager.default.fileExists(atPath: out), "a dry run writes nothing in the output folder")
        #expect(FileManager.default.fileExists(atPath: store), "its estimates are kept in the cache")

        let runner = try BatchRunner(options: try Self.options(uploads, out, store: store, dryRun: false))
        let started = LockedBox<[String: ExportEvent.Started]>([:])
        runner.onEvent = { event in
            if case .export(_, let key, .started(let s)) = event { started.withLock { $0[key] = s } }
        }
        let run = try await runner.run()
        for row in run.rows {
            let planned = try #require(dry.rows.first { $0.key == row.key })
            #expect(row.status == "exported" && row.estimatedBytes == planned.estimatedBytes && row.estimateMethod == "samples", "\(row)")
            // The job's own started record gives the same figure, measured, not a guess of its own.
            let record = try #require(started.withLock { $0[row.key] }, "a started record for \(row.key)")
            #expect(record.estimatedBytes == planned.estimatedBytes && record.estimateMethod == .samples, "\(record)")
            // Measured, not guessed: within 2x of the real size (the guess for the still is many times it).
            let ratio = Double(try #require(row.estimatedBytes)) / Double(try #require(row.bytesOut))
            #expect(ratio > 0.5 && ratio < 2, "\(row.key): estimate \(row.estimatedBytes ?? 0), real \(row.bytesOut ?? 0)")
        }
        let report = dir.appendingPathComponent("report.json").path
        try BatchReport.write(run.rows, to: report)
        let text = try String(contentsOfFile: report, encoding: .utf8)
        #expect(text.contains("\"estimateMethod\" : \"samples\""), "the report names the method")
    }

    @Test func withoutADryRunTheEstimateSaysItIsAGuess() async throws {
        let dir = TestSupport.tempDir("batch-guess")
        defer { TestSupport.cleanup(dir) }
        let uploads = try Self.uploads(dir)
        let out = dir.appendingPathComponent("out").path
        let run = try await BatchRunner(options: try Self.options(uploads, out, store: dir.appendingPathComponent("none.sqlite").path, dryRun: false)).run()
        #expect(run.rows.count == 2 && run.rows.allSatisfy { $0.estimateMethod == "guess" && $0.estimatedBytes != nil }, "\(run.rows)")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("none.sqlite").path), "a run only reads the store")
    }
}
