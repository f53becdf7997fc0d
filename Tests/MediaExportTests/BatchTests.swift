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
        #expect(plan["landscape.mov"]?.action == "remux")
        #expect(plan["landscape.mov"]?.reason.contains("only the container changes") == true)
        #expect(plan["hevc.mp4"]?.action == "transcode" && plan["hevc.mp4"]?.reason.contains("hevc") == true)
        #expect(plan["a/clip.mov"]?.action == "remux", "322x242 H.264 fits the 640x360 box: \(plan["a/clip.mov"]?.reason ?? "")")
        #expect(plan["broken/broken.mov"]?.action == "skip" && plan["broken/broken.mov"]?.status == "rejected")
        #expect(plan["broken/broken.mov"]?.reason == "rejected: not media" && plan["broken/broken.mov"]?.error?.contains("moov atom not found") == true)
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
        #expect(first.exitCode == ExitStatus.success, "the file that is not media is rejected, not failed; the others complete")
        #expect(first.counts.total == 7 && first.counts.failed == 0 && first.counts.rejected == 1)
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
        #expect(Set(rows.keys) == Set(Self.keys).subtracting(["broken/broken.mov"]), "a rejected upload is never tried")
        let landscape = try #require(rows["landscape.mov"])
        #expect(landscape.status == "completed" && landscape.route == "remux" && landscape.versionDelivered == "current")
        #expect(landscape.sources.first?.sha256 == (try TestSupport.sha256(dir.appendingPathComponent("uploads/landscape.mov").path)))
        #expect(landscape.outputSHA256 == (try TestSupport.sha256(out.appendingPathComponent("landscape.mp4").path)))
        #expect(landscape.ffmpegVersions.contains("libavcodec 59."))
        #expect(rows["edited/IMG_0002.MOV"]?.sources.count == 2)
        #expect(rows["broken/broken.mov"] == nil)
        // The report has the same rows.
        #expect(try BatchReport.read(report).map(\.key) == Self.keys)

        // A rerun exports nothing.
        let before = try FileManager.default.attributesOfItem(atPath: out.appendingPathComponent("hevc.mp4").path)[.modificationDate] as? Date
        let (second, _) = try await Self.run(try Self.options(dir))
        #expect(second.counts.skipped == 7)
        #expect(second.rows.first { $0.key == "broken/broken.mov" }?.status == "rejected")
        #expect(second.exitCode == ExitStatus.success)
        #expect(try FileManager.default.attributesOfItem(atPath: out.appendingPathComponent("hevc.mp4").path)[.modificationDate] as? Date == before)

        // A changed source, a deleted output, a retried failure are redone; the rest stays.
        try FileManager.default.removeItem(at: dir.appendingPathComponent("uploads/hevc.mp4"))
        try FileManager.default.copyItem(atPath: TestSupport.fixture("metadata.mov"), toPath: dir.appendingPathComponent("uploads/hevc.mp4").path)
        try FileManager.default.removeItem(at: out.appendingPathComponent("song.mp4"))
        let (third, _) = try await Self.run(try Self.options(dir) { $0.retryFailed = true })
        let redone = third.rows.filter { $0.action != "skip" }.map(\.key).sorted()
        #expect(redone == ["hevc.mp4", "song.m4a"])
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("song.mp4").path))

        // --force redoes everything.
        let (fourth, _) = try await Self.run(try Self.options(dir) { $0.force = true })
        #expect(fourth.counts.skipped == 1 && fourth.counts.total == 7, "all but the rejected one")
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
        #expect(second.counts.skipped == 3, "finished work was kept and recorded (and the rejected upload skipped)")
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
            // CSV: no shard fields, so merged unchecked (JSON shard reports: ReportMergeTests).
            let path = dir.appendingPathComponent("shard\(k).csv").path
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

/// Batch inputs by content (issue 14, item 6): FFmpeg decides what is media, and every file under the inputs is
/// either planned or listed as ignored with its reason.
@Suite struct BatchInputsTests {
    /// `dir/in`: formats an extension list once skipped (Theora, WMA, M4B, VOB, raw MPEG-1), media under a name that
    /// says nothing, and everything that is not exported on its own.
    static func inputs() throws -> (dir: URL, root: String) {
        let dir = TestSupport.tempDir()
        let root = dir.appendingPathComponent("in").path
        try FileManager.default.createDirectory(atPath: root + "/.cache", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root + "/sub", withIntermediateDirectories: true)
        let video = ["-f", "lavfi", "-i", "testsrc=size=160x120:rate=25:duration=1"], tone = ["-f", "lavfi", "-i", "sine=f=440:duration=1"]
        try AssetGroupingTests.makeMedia(root + "/clip.ogv", video + tone + ["-c:v", "libtheora", "-c:a", "libvorbis"])
        try AssetGroupingTests.makeMedia(root + "/song.wma", tone + ["-c:a", "wmav2"])
        try AssetGroupingTests.makeMedia(root + "/book.m4b", tone + ["-c:a", "aac"])
        try AssetGroupingTests.makeMedia(root + "/sub/movie.vob", video + tone + ["-c:v", "mpeg2video", "-c:a", "mp2", "-f", "vob"])
        try AssetGroupingTests.makeMedia(root + "/sub/raw.m1v", video + ["-c:v", "mpeg1video", "-f", "mpeg1video"])
        try FileManager.default.copyItem(atPath: TestSupport.fixture("landscape.mov"), toPath: root + "/recording.dat")  // media, by content
        try FileManager.default.copyItem(atPath: AssetVersionTests.asset("IMG_0004.MOV"), toPath: root + "/IMG_0004.MOV")
        try FileManager.default.copyItem(atPath: AssetVersionTests.asset("IMG_0004.JPG"), toPath: root + "/IMG_0004.JPG")
        try FileManager.default.copyItem(atPath: AssetVersionTests.asset("IMG_0004.JPG"), toPath: root + "/cover.png")
        try "notes".write(toFile: root + "/notes.txt", atomically: true, encoding: .utf8)
        try "junk, not media".write(toFile: root + "/thing.xyz", atomically: true, encoding: .utf8)
        try "#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1,\nclip.ogv\n#EXT-X-ENDLIST\n".write(toFile: root + "/list.m3u8", atomically: true, encoding: .utf8)
        try #"{"formatVersion": 1, "mute": true}"#.write(toFile: root + "/orphan.edit.json", atomically: true, encoding: .utf8)
        try "x".write(toFile: root + "/.DS_Store", atomically: true, encoding: .utf8)
        try "x".write(toFile: root + "/.cache/thumb.db", atomically: true, encoding: .utf8)
        try "x".write(toFile: root + "/.clip.mp4.mediaexport-tmp-1-abc", atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: root + "/gone.mov", withDestinationPath: root + "/nothing-here.mov")
        return (dir, root)
    }

    /// Every entry under `root`, relative to it: files, links, and hidden folders (whose insides are not walked).
    static func everything(_ root: String) -> Set<String> {
        var all = Set<String>()
        let enumerator = FileManager.default.enumerator(atPath: root)!
        while let path = enumerator.nextObject() as? String {
            let type = (enumerator.fileAttributes?[.type] as? FileAttributeType)
            if type == .typeDirectory {
                if (path as NSString).lastPathComponent.hasPrefix(".") { all.insert(path); enumerator.skipDescendants() }
                continue
            }
            all.insert(path)
        }
        return all
    }

    @Test func everyFileOfTheInputsIsPlannedOrIgnoredWithItsReason() async throws {
        let (dir, root) = try Self.inputs()
        defer { TestSupport.cleanup(dir) }
        let options = BatchOptions(inputs: [root], outputDirectory: dir.appendingPathComponent("out").path,
                                   preset: try TestSupport.preset("low"), dryRun: true)
        var hashes: [String: String] = [:]
        let plan = try BatchPlanner.makePlan(options, hashes: &hashes)
        let real = try #require(FileSystem.realPath(root))
        func relative(_ path: String) -> String { String(path.dropFirst(real.count + 1)) }

        // Opened by FFmpeg and planned: every format of the list that once skipped them, and media under a name that says nothing.
        let planned = Dictionary(uniqueKeysWithValues: plan.items.map { (relative($0.input), $0) })
        #expect(Set(planned.keys) == ["IMG_0004.MOV", "book.m4b", "clip.ogv", "recording.dat", "song.wma", "sub/movie.vob", "sub/raw.m1v"])
        for (name, item) in planned {
            #expect(!item.reason.hasPrefix("cannot be probed") && (item.duration ?? 0) > 0, "\(name): \(item.reason)")
        }
        // The rest, each with its reason; nothing under the inputs is missing, nothing is said twice.
        let ignored = Dictionary(uniqueKeysWithValues: plan.ignored.map { (relative($0.path), $0) })
        #expect(plan.ignored.count == ignored.count)
        #expect(Set(planned.keys).union(ignored.keys) == Self.everything(root), "\(ignored.keys.sorted())")
        #expect(Set(planned.keys).isDisjoint(with: ignored.keys))
        let kinds = ignored.mapValues(\.kind)
        #expect(kinds == ["notes.txt": .notMedia, "thing.xyz": .notMedia, "list.m3u8": .notMedia, "cover.png": .stillImage,
                          "IMG_0004.JPG": .livePhotoStill, "orphan.edit.json": .sidecar, ".DS_Store": .hidden, ".cache": .hidden,
                          ".clip.mp4.mediaexport-tmp-1-abc": .temporaryFile, "gone.mov": .symlinkToNothing])
        #expect(ignored["thing.xyz"]?.reason.contains("Invalid data found when processing input") == true, "FFmpeg's reason")
        #expect(ignored["list.m3u8"]?.reason.contains("is an HLS playlist (hls): inputs that name other files are refused") == true)
        #expect(ignored["IMG_0004.JPG"]?.of == "IMG_0004.MOV", "the asset's key, as its row has it")
        #expect(plan.ignored.allSatisfy { $0.key == relative($0.path) }, "every ignored file by key")
        #expect(plan.assetsFound == 7, "thing.xyz and list.m3u8 were never assets")
        // People get the count and the reasons grouped.
        let summary = try #require(plan.notes.last)
        #expect(summary == "10 files are not exported as an asset of their own: 3 not media (notes.txt, list.m3u8, thing.xyz), "
                + "1 still image (cover.png), 1 sidecar, 1 Live Photo still, 2 hidden, 1 temporary file of mediaexport, "
                + "1 symbolic link to nothing (gone.mov)")

        // The report: rows for the assets, `ignored` for the rest — in JSON and in CSV.
        let result = try await BatchRunner(options: options).run()
        #expect(result.rows.count == 7)
        let json = dir.appendingPathComponent("r.json").path, csv = dir.appendingPathComponent("r.csv").path
        for path in [json, csv] { try BatchReport.write(result.rows, ignored: plan.ignored, to: path) }
        let object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [String: Any])
        let listed = try #require(object["ignored"] as? [[String: Any]])
        let text = listed.first { ($0["path"] as? String)?.hasSuffix("/notes.txt") == true }
        #expect(text?["kind"] as? String == "notMedia" && (text?["reason"] as? String)?.contains("not media") == true)
        #expect(((object["rows"] as? [[String: Any]]) ?? []).compactMap { $0["key"] as? String }.sorted()
                == ["IMG_0004.MOV", "book.m4b", "clip.ogv", "recording.dat", "song.wma", "sub/movie.vob", "sub/raw.m1v"])
        for path in [json, csv] {
            let back = try BatchReport.readDocument(path)
            #expect(back.rows.count == 7 && back.ignored.map(\.path) == plan.ignored.map(\.path) && back.ignored.map(\.kind) == plan.ignored.map(\.kind))
            #expect(try BatchReport.read(path).count == 7, "rows alone, as before")
        }

        // Filters and shards say so too.
        var filtered = options
        filtered.exclude = ["*.wma"]
        filtered.media = .video
        let f = try BatchPlanner.makePlan(filtered, hashes: &hashes)
        let fk = Dictionary(uniqueKeysWithValues: f.ignored.map { (relative($0.path), $0) })
        #expect(fk["song.wma"]?.kind == .filtered && fk["song.wma"]?.reason == "matches --exclude *.wma")
        #expect(fk["book.m4b"]?.kind == .filtered && fk["book.m4b"]?.reason == "--media video: no video")
        var shard = options
        shard.shard = BatchOptions.Shard(index: 0, count: 3)
        let s = try BatchPlanner.makePlan(shard, hashes: &hashes)
        #expect(Set(s.items.map(\.input)).union(s.ignored.map(\.path)).count == Self.everything(root).count)
        #expect(s.ignored.contains { $0.kind == .notInShard })
    }

    @Test func theCommandLineCountsWhatItIgnores() throws {
        let (dir, root) = try Self.inputs()
        defer { TestSupport.cleanup(dir) }
        let r = try TestSupport.tool(["batch", root, "--out", dir.appendingPathComponent("out").path, "--preset", "low", "--dry-run"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("7 assets planned"), "\(r.stdout)")
        #expect(r.stderr.contains("note: 10 files are not exported as an asset of their own: 3 not media ("), "\(r.stderr)")
        #expect(r.stderr.contains("2 hidden, 1 temporary file of mediaexport"), "\(r.stderr)")
    }

    @Test func mergedReportsListEachIgnoredFileOnce() {
        func row(_ key: String) -> BatchReportRow {
            BatchReportRow(key: key, input: "/in/" + key, action: "transcode", reason: "", status: "completed", route: "transcode", fallbacks: 0,
                           versionRequested: "current", versionDelivered: "current", output: nil, bytesIn: 1, bytesOut: 1,
                           estimatedBytes: nil, outputSHA256: nil, error: nil, wallTime: nil)
        }
        let a = BatchReportDocument(rows: [row("a.mov")], ignored: [IgnoredFile(path: "/in/b.mov", kind: .notInShard, reason: "in another shard than 0/2"),
                                                                    IgnoredFile(path: "/in/c.txt", kind: .notMedia, reason: "not media"),
                                                                    IgnoredFile(path: "/in/d.mov", kind: .notInShard, reason: "in another shard than 0/2")])
        let b = BatchReportDocument(rows: [row("b.mov")], ignored: [IgnoredFile(path: "/in/a.mov", kind: .notInShard, reason: "in another shard than 1/2"),
                                                                    IgnoredFile(path: "/in/c.txt", kind: .notMedia, reason: "not media"),
                                                                    IgnoredFile(path: "/in/d.mov", kind: .filtered, reason: "matches --exclude d.*")])
        let merged = BatchReport.merge(documents: [a, b])
        #expect(merged.rows.map(\.key) == ["a.mov", "b.mov"])
        #expect(merged.ignored.map(\.path) == ["/in/c.txt", "/in/d.mov"] && merged.ignored.last?.kind == .filtered)
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
