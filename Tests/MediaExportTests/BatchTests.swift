import Foundation
import Testing
@testable import MediaExport
@testable import MediaExportCore
@testable import MediaExportFFmpeg
@testable import mediaexport

/// Batch: plan, run, database, resume, shards, reports — over a folder of mixed fixtures.
@Suite struct BatchTests {
    /// uploads/
    ///   landscape.mov            fits `low` once remuxed (.mov → .mp4)
    ///   hevc.mp4                 needs a transcode (HEVC)
    ///   song.m4a                 audio only
    ///   a/clip.mov, b/clip.mov   the same name in two folders
    ///   edited/IMG_0002.MOV + IMG_E0002.MOV   an edited asset (exported once, as the rendered edit)
    ///   broken/broken.mov        not media
    static func uploads() throws -> URL {
        let dir = TestSupport.tempDir()
        let files: [(String, String)] = [
            ("landscape.mov", TestSupport.fixture("landscape.mov")),
            ("hevc.mp4", TestSupport.fixture("hevc.mp4")),
            ("song.m4a", TestSupport.fixture("audio.m4a")),
            ("a/clip.mov", TestSupport.fixture("odd-322x242.mov")),
            ("b/clip.mov", TestSupport.fixture("portrait-rotated.mov")),
            ("edited/IMG_0002.MOV", AssetVersionTests.asset("IMG_0002.MOV")),
            ("edited/IMG_E0002.MOV", AssetVersionTests.asset("IMG_E0002.MOV")),
            ("broken/broken.mov", RobustnessTests.bad.appendingPathComponent("text.mov").path),
        ]
        for (name, source) in files {
            let url = dir.appendingPathComponent("uploads/" + name)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: source, toPath: url.path)
        }
        // Hidden files and our temporary files are not inputs.
        try "x".write(to: dir.appendingPathComponent("uploads/.DS_Store"), atomically: true, encoding: .utf8)
        try "x".write(to: dir.appendingPathComponent("uploads/.clip.mp4.mediaexport-tmp-1-abc"), atomically: true, encoding: .utf8)
        return dir
    }

    static func options(_ dir: URL, _ configure: (inout BatchOptions) -> Void = { _ in }) throws -> BatchOptions {
        var o = BatchOptions(inputs: [dir.appendingPathComponent("uploads").path], outputDirectory: dir.appendingPathComponent("out").path,
                             preset: try TestSupport.preset("low"), jobs: 2)
        configure(&o)
        return o
    }

    static func run(_ options: BatchOptions, report: String? = nil) async throws -> (BatchResult, EventBox) {
        let runner = BatchRunner(options: options)
        runner.reportPath = report
        let events = EventBox()
        runner.onEvent = { events.add($0) }
        return (try await runner.run(), events)
    }

    static let keys = ["a/clip.mov", "b/clip.mov", "broken/broken.mov", "edited/IMG_0002.MOV", "hevc.mp4", "landscape.mov", "song.m4a"]

    @Test func dryRunPlansEveryAssetOnceAndExportsNothing() async throws {
        let dir = try Self.uploads()
        defer { TestSupport.cleanup(dir) }
        let (result, events) = try await Self.run(try Self.options(dir) { $0.dryRun = true })
        #expect(result.rows.map(\.key) == Self.keys)
        let plan = Dictionary(uniqueKeysWithValues: result.rows.map { ($0.key, $0) })
        #expect(plan["landscape.mov"]?.action == .remux)
        #expect(plan["landscape.mov"]?.reason.contains("only the container changes") == true)
        #expect(plan["hevc.mp4"]?.action == .transcode && plan["hevc.mp4"]?.reason.contains("hevc") == true)
        #expect(plan["a/clip.mov"]?.action == .remux, "322x242 H.264 fits the 640x360 box: \(plan["a/clip.mov"]?.reason ?? "")")
        #expect(plan["broken/broken.mov"]?.action == .transcode && plan["broken/broken.mov"]?.reason.contains("cannot be probed") == true)
        #expect(plan["b/clip.mov"]?.output?.hasSuffix("out/b/clip.mp4") == true && plan["a/clip.mov"]?.output?.hasSuffix("out/a/clip.mp4") == true)
        #expect(result.rows.allSatisfy { $0.status == "planned" && $0.estimatedBytes != nil || $0.key == "broken/broken.mov" })
        #expect(events.planned.count == Self.keys.count)
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("out/\(ExportDatabase.fileName)").path))
        #expect(TestSupport.contents(dir.appendingPathComponent("out")).isEmpty)
    }

    @Test func runExportsRecordsAndResumes() async throws {
        let dir = try Self.uploads()
        defer { TestSupport.cleanup(dir) }
        let report = dir.appendingPathComponent("report.json").path
        let (first, events) = try await Self.run(try Self.options(dir), report: report)
        #expect(first.exitCode == ExitStatus.exportFailed, "the broken file fails; the others complete")
        #expect(first.counts.total == 7 && first.counts.failed == 1)
        #expect(first.counts.transcoded + first.counts.remuxed + first.counts.copied == 6)
        #expect(first.rows.first { $0.key == "broken/broken.mov" }?.error?.contains("moov atom not found") == true)
        // Outputs mirror the inputs, with the preset's extension, nothing else in the folder.
        let out = dir.appendingPathComponent("out")
        for name in ["landscape.mp4", "hevc.mp4", "song.mp4", "a/clip.mp4", "b/clip.mp4", "edited/IMG_0002.mp4"] {
            #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent(name).path), "\(name)")
        }
        #expect(try FFprobe(out.appendingPathComponent("edited/IMG_0002.mp4").path).video?.width == 240, "the rendered edit, as current")
        #expect(try FFprobe(out.appendingPathComponent("b/clip.mp4").path).video?.rotation == 90)
        #expect(try FFprobe(out.appendingPathComponent("song.mp4").path).video == nil)
        // Job events carry ids; exactly one batchFinished.
        #expect(events.exportEvents.allSatisfy { $0.id >= 1 })
        #expect(events.finished.count == 1)
        // The database has a row per attempted asset with sources, hashes, route and versions.
        let rows = try ExportDatabase(path: out.appendingPathComponent(ExportDatabase.fileName).path).rows()
        #expect(Set(rows.keys) == Set(Self.keys))
        let landscape = try #require(rows["landscape.mov"])
        #expect(landscape.status == "completed" && landscape.route == "remux" && landscape.versionDelivered == "current")
        #expect(landscape.sources.first?.sha256 == (try TestSupport.sha256(dir.appendingPathComponent("uploads/landscape.mov").path)))
        #expect(landscape.outputSHA256 == (try TestSupport.sha256(out.appendingPathComponent("landscape.mp4").path)))
        #expect(landscape.ffmpegVersions.contains("libavcodec 59."))
        #expect(rows["edited/IMG_0002.MOV"]?.sources.count == 2)
        #expect(rows["broken/broken.mov"]?.status == "failed")
        // The report has the same rows.
        #expect(try BatchReport.read(report).map(\.key) == Self.keys)

        // A rerun exports nothing.
        let before = try FileManager.default.attributesOfItem(atPath: out.appendingPathComponent("hevc.mp4").path)[.modificationDate] as? Date
        let (second, _) = try await Self.run(try Self.options(dir))
        #expect(second.counts.skipped == 7)
        #expect(second.rows.first { $0.key == "broken/broken.mov" }?.reason.contains("--retry-failed") == true)
        #expect(second.exitCode == ExitStatus.exportFailed, "a failure skipped is still not a completed asset")
        #expect(try FileManager.default.attributesOfItem(atPath: out.appendingPathComponent("hevc.mp4").path)[.modificationDate] as? Date == before)

        // A changed source, a deleted output, a retried failure are redone; the rest stays.
        try FileManager.default.removeItem(at: dir.appendingPathComponent("uploads/hevc.mp4"))
        try FileManager.default.copyItem(atPath: TestSupport.fixture("metadata.mov"), toPath: dir.appendingPathComponent("uploads/hevc.mp4").path)
        try FileManager.default.removeItem(at: out.appendingPathComponent("song.mp4"))
        let (third, _) = try await Self.run(try Self.options(dir) { $0.retryFailed = true })
        let redone = third.rows.filter { $0.status != "skipped" }.map(\.key).sorted()
        #expect(redone == ["broken/broken.mov", "hevc.mp4", "song.m4a"])
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("song.mp4").path))

        // --force redoes everything.
        let (fourth, _) = try await Self.run(try Self.options(dir) { $0.force = true })
        #expect(fourth.counts.skipped == 0 && fourth.counts.total == 7)
        #expect(TestSupport.contents(out).filter { $0.contains("mediaexport-tmp") }.isEmpty)
    }

    @Test func interruptedBatchResumes() async throws {
        let dir = try Self.uploads()
        defer { TestSupport.cleanup(dir) }
        let runner = BatchRunner(options: try Self.options(dir) { $0.jobs = 1 })
        let completedJobs = Counter()
        runner.onEvent = { event in
            if case .job(_, _, .completed) = event, completedJobs.increment() == 2 { runner.cancel() }
        }
        let first = try await runner.run()
        #expect(first.exitCode == ExitStatus.cancelledByInterrupt)
        #expect(first.counts.transcoded + first.counts.remuxed + first.counts.copied == 2)
        let out = dir.appendingPathComponent("out")
        let leftovers = try FileManager.default.subpathsOfDirectory(atPath: out.path).filter { $0.contains("mediaexport-tmp") }
        #expect(leftovers.isEmpty)
        let (second, _) = try await Self.run(try Self.options(dir))
        #expect(second.counts.skipped == 2, "finished work was kept and recorded")
        #expect(second.counts.total == 7)
    }

    @Test func shardsSplitWithoutOverlap() async throws {
        let dir = try Self.uploads()
        defer { TestSupport.cleanup(dir) }
        var union: [String] = []
        for k in 0..<3 {
            let (r, _) = try await Self.run(try Self.options(dir) { $0.dryRun = true; $0.shard = BatchOptions.Shard(index: k, count: 3) })
            union += r.rows.map(\.key)
        }
        #expect(union.sorted() == Self.keys)
        #expect(Set(union).count == union.count)
        #expect(BatchOptions.Shard("2/3") == BatchOptions.Shard(index: 2, count: 3))
        #expect(BatchOptions.Shard("3/3") == nil && BatchOptions.Shard("x") == nil)
    }

    @Test func filtersAndSorting() async throws {
        let dir = try Self.uploads()
        defer { TestSupport.cleanup(dir) }
        func keys(_ configure: (inout BatchOptions) -> Void) async throws -> [String] {
            try await Self.run(try Self.options(dir) { $0.dryRun = true; configure(&$0) }).0.rows.map(\.key)
        }
        // A file that cannot be probed passes the media and duration filters, so its failure is reported.
        #expect(try await keys { $0.media = .audio } == ["broken/broken.mov", "song.m4a"])
        #expect(try await keys { $0.media = .video }.contains("song.m4a") == false)
        #expect(try await keys { $0.maxDuration = 1.5 } == ["a/clip.mov", "broken/broken.mov", "hevc.mp4"])
        // Durations are those of the version exported: IMG_0002's current version is its 2 s rendered edit.
        #expect(try await keys { $0.minDuration = 2.5 } == ["broken/broken.mov"])
        #expect(try await keys { $0.minDuration = 2.5; $0.version = .original } == ["broken/broken.mov", "edited/IMG_0002.MOV"])
        #expect(try await keys { $0.include = ["*/clip.mov"] } == ["a/clip.mov", "b/clip.mov"])
        #expect(try await keys { $0.exclude = ["*.mov"] } == ["hevc.mp4", "song.m4a"], "globs ignore case (IMG_0002.MOV)")
        let created = try await keys { $0.sort = .created }
        #expect(Set(created) == Set(Self.keys.filter { $0 != "broken/broken.mov" }).union(["broken/broken.mov"]))
    }

    @Test func reportsMergeAndRoundTrip() async throws {
        let dir = try Self.uploads()
        defer { TestSupport.cleanup(dir) }
        var paths: [String] = []
        for k in 0..<2 {
            let path = dir.appendingPathComponent("shard\(k).\(k == 0 ? "json" : "csv")").path
            _ = try await Self.run(try Self.options(dir) { $0.dryRun = true; $0.shard = BatchOptions.Shard(index: k, count: 2) }, report: path)
            paths.append(path)
        }
        let merged = dir.appendingPathComponent("all.csv").path
        let r = try TestSupport.tool(["report", "merge"] + paths + ["--out", merged])
        #expect(r.status == 0, "\(r.stderr)")
        let rows = try BatchReport.read(merged)
        #expect(rows.map(\.key) == Self.keys)
        #expect(rows.first { $0.key == "landscape.mov" }?.reason.contains("(.mov → .mp4)") == true, "CSV quoting round-trips")
    }

    @Test func cliBatchJSONAndExitCodes() throws {
        let dir = try Self.uploads()
        defer { TestSupport.cleanup(dir) }
        try FileManager.default.removeItem(at: dir.appendingPathComponent("uploads/broken"))
        let r = try TestSupport.tool(["batch", dir.appendingPathComponent("uploads").path, "--out", dir.appendingPathComponent("out").path,
                                      "--preset", "low", "--json", "--jobs", "2", "--thumbnails",
                                      "--report", dir.appendingPathComponent("r.csv").path])
        #expect(r.status == 0, "\(r.stderr)")
        let records = r.stdout.split(separator: "\n").map { try! JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
        #expect(records.filter { $0["kind"] as? String == "planned" }.count == 6)
        let completed = records.filter { $0["kind"] as? String == "completed" }
        #expect(completed.count == 6 && completed.allSatisfy { $0["job"] as? Int != nil && $0["asset"] as? String != nil })
        let last = try #require(records.last)
        #expect(last["kind"] as? String == "batchFinished")
        let counts = (last["payload"] as? [String: Any])?["counts"] as? [String: Any]
        #expect(counts?["total"] as? Int == 6 && counts?["failed"] as? Int == 0)
        // --thumbnails: a poster next to each video output, listed in the report; none for the audio-only asset.
        let rows = try BatchReport.read(dir.appendingPathComponent("r.csv").path)
        for row in rows {
            if row.key == "song.m4a" { #expect(row.thumbnail == nil); continue }
            let poster = try #require(row.thumbnail)
            #expect(poster == (row.output! as NSString).deletingPathExtension + ".jpg")
            #expect(try ThumbnailTests.pixels(poster).width > 0)
        }
        #expect(try ThumbnailTests.pixels(dir.appendingPathComponent("out/b/clip.jpg").path).height == 320, "upright poster")
    }
}

final class EventBox: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [BatchEvent] = []
    func add(_ e: BatchEvent) { lock.withLock { events.append(e) } }
    var all: [BatchEvent] { lock.withLock { events } }
    var planned: [BatchItem] { all.compactMap { if case .planned(let i) = $0 { return i } else { return nil } } }
    var exportEvents: [(id: Int, event: ExportEvent)] { all.compactMap { if case .export(let id, _, let e) = $0 { return (id, e) } else { return nil } } }
    var finished: [BatchEvent.BatchFinished] { all.compactMap { if case .finished(let f) = $0 { return f } else { return nil } } }
}

final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func increment() -> Int { lock.withLock { value += 1; return value } }
}
