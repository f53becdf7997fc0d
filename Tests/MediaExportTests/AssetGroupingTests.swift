import Foundation
import Testing
@testable import MediaExport
@testable import MediaExportCore
@testable import MediaExportFFmpeg
@testable import mediaexport

/// Assets by Apple's naming conventions only (issue 14, item 5): an asset is one media file plus the files that
/// name it — rendered edit, `.AAE`, `.edit.json`, a Live Photo's HEIC/JPEG still — never every file of its base name.
@Suite struct AssetGroupingTests {
    // MARK: names alone

    /// Groups `names` (no files needed: grouping reads names only) and returns each asset as its resources'
    /// `name:kind`, and the loose files.
    static func grouped(_ names: [String]) -> (assets: [[String]], loose: [String: FolderAssets.Loose.Why], notes: [String]) {
        let folder = FolderAssets.group(directory: "/nowhere", names: names)
        let assets = folder.assets.map { $0.resources.map { "\(($0.path as NSString).lastPathComponent):\($0.kind.rawValue)" } }
        return (assets, Dictionary(uniqueKeysWithValues: folder.loose.map { ($0.name, $0.why) }), folder.assets.flatMap(\.notes))
    }

    @Test func videosSharingABaseNameAreSeparateAssets() {
        let g = Self.grouped(["demo.mp4", "demo.mkv", "demo.gif", "demo.3gp", "demo.webm"])
        #expect(g.assets == [["demo.3gp:original"], ["demo.gif:original"], ["demo.mkv:original"], ["demo.mp4:original"], ["demo.webm:original"]])
        #expect(g.loose.isEmpty && g.notes.isEmpty)
    }

    @Test func onlyAHEICOrJPEGBesideAMOVOrMP4IsALivePhotoStill() {
        #expect(Self.grouped(["IMG_0004.HEIC", "IMG_0004.MOV"]).assets == [["IMG_0004.MOV:pairedVideo", "IMG_0004.HEIC:photo"]])
        #expect(Self.grouped(["a.jpeg", "a.mp4"]).assets == [["a.mp4:pairedVideo", "a.jpeg:photo"]])
        // A GIF is video, never a still; a PNG or WEBP is never a Live Photo's; a JPEG beside a 3GP is just a still.
        let g = Self.grouped(["demo.gif", "demo.3gp", "demo.png", "demo.webp", "demo.mov", "x.jpg", "x.3gp"])
        #expect(g.assets == [["demo.3gp:original"], ["demo.gif:original"], ["demo.mov:original"], ["x.3gp:original"]])
        #expect(g.loose == ["demo.png": .stillImage, "demo.webp": .stillImage, "x.jpg": .stillImage])
    }

    @Test func renderedEditPairsWithTheOriginalOfItsExtensionOrStandsAlone() {
        // One original: whatever its extension.
        #expect(Self.grouped(["IMG_1234.MP4", "IMG_E1234.MOV"]).assets == [["IMG_1234.MP4:original", "IMG_E1234.MOV:renderedEdit"]])
        // Several: the one of the edit's extension, ignoring case.
        let same = Self.grouped(["IMG_1234.MOV", "IMG_1234.MP4", "IMG_E1234.mov"])
        #expect(same.assets == [["IMG_1234.MOV:original", "IMG_E1234.mov:renderedEdit"], ["IMG_1234.MP4:original"]])
        // Several, none of its extension: an asset of its own, and every one of them is told why.
        let none = Self.grouped(["IMG_1234.MP4", "IMG_1234.MKV", "IMG_E1234.MOV"])
        #expect(none.assets == [["IMG_1234.MKV:original"], ["IMG_1234.MP4:original"], ["IMG_E1234.MOV:renderedEdit"]])
        #expect(none.notes.count == 3 && Set(none.notes).count == 1)
        #expect(none.notes.first?.contains("IMG_E1234.MOV is paired with no original: IMG_1234.MKV, IMG_1234.MP4 share its base") == true)
        // `_edited` too; an original with two edits keeps the first.
        let two = Self.grouped(["clip.mov", "clip_edited.mov", "clip_Edited.MOV"])
        #expect(two.assets == [["clip.mov:original", "clip_Edited.MOV:renderedEdit"], ["clip_edited.mov:renderedEdit"]])
        #expect(two.notes.contains { $0.contains("already has the rendered edit clip_Edited.MOV") })
    }

    @Test func sidecarsBelongToTheFileTheyNameOrTheOneAssetOfTheirBase() {
        let g = Self.grouped(["IMG_1234.MOV", "IMG_1234.AAE", "IMG_O1234.AAE", "IMG_1234.edit.json", "notes.txt", "orphan.edit.json"])
        #expect(g.assets == [["IMG_1234.MOV:original", "IMG_1234.edit.json:editSidecar", "IMG_1234.AAE:adjustmentData", "IMG_O1234.AAE:adjustmentData"]])
        #expect(g.loose == ["notes.txt": .notMedia, "orphan.edit.json": .sidecar])
        // Named in full: that file's. By base alone beside two assets of the base: nobody's, and both are told.
        let two = Self.grouped(["demo.mp4", "demo.mkv", "demo.mkv.edit.json", "demo.edit.json", "demo.AAE"])
        #expect(two.assets == [["demo.mkv:original", "demo.mkv.edit.json:editSidecar"], ["demo.mp4:original"]])
        #expect(two.loose == ["demo.edit.json": .sidecar, "demo.AAE": .sidecar])
        #expect(two.notes.contains { $0.contains("demo.edit.json is applied to no asset") && $0.contains("name it demo.mkv.edit.json") })
    }

    @Test func aNameThatSaysNothingIsAnAssetOfItsOwnForFFmpegToJudge() {
        let g = Self.grouped(["clip.xyz", "clip.mov", "clip.AAE", "README"])
        #expect(g.assets == [["README:original"], ["clip.mov:original", "clip.AAE:adjustmentData"], ["clip.xyz:original"]])
    }

    // MARK: discovery and export on real files

    /// `demo.mp4` (320x240, 1 s, with audio), `demo.mkv` (160x120, 2 s), `demo.gif` (96x64, 0.6 s, 6 frames):
    /// three different videos under one base name, made with the ffmpeg CLI.
    static func demoFolder() throws -> URL {
        let dir = TestSupport.tempDir()
        try makeMedia(dir.appendingPathComponent("demo.mp4").path, ["-f", "lavfi", "-i", "testsrc=size=320x240:rate=25:duration=1",
                                                                    "-f", "lavfi", "-i", "sine=f=440:duration=1", "-c:v", "libx264",
                                                                    "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest"])
        try makeMedia(dir.appendingPathComponent("demo.mkv").path, ["-f", "lavfi", "-i", "testsrc=size=160x120:rate=25:duration=2",
                                                                    "-c:v", "libx264", "-pix_fmt", "yuv420p"])
        try makeMedia(dir.appendingPathComponent("demo.gif").path, ["-f", "lavfi", "-i", "testsrc=size=96x64:rate=10:duration=0.6"])
        return dir
    }

    /// Runs `ffmpeg -y … output` and fails the test when it fails.
    static func makeMedia(_ output: String, _ arguments: [String]) throws {
        let r = try TestSupport.run("/usr/bin/ffmpeg", ["-v", "error", "-y"] + arguments + [output])
        guard r.status == 0 else { throw NSError(domain: "ffmpeg", code: Int(r.status), userInfo: [NSLocalizedDescriptionKey: r.stderr]) }
    }

    @Test func discoveryOfAGIFBesideOtherDemosIsTheGIFAlone() throws {
        let dir = try Self.demoFolder()
        defer { TestSupport.cleanup(dir) }
        try FileManager.default.copyItem(atPath: dir.appendingPathComponent("demo.mkv").path, toPath: dir.appendingPathComponent("demo.3gp").path)
        let gif = dir.appendingPathComponent("demo.gif").path
        let asset = try Asset.discover(from: gif)
        #expect(asset.resources.map(\.path) == [gif] && asset.resources.map(\.kind) == [.original])
        let selection = try VersionResolver.select(input: gif, version: .current, editsPath: nil, requireCurrent: false)
        #expect(selection.report.resource == gif && selection.metadataSource == nil)
    }

    @Test func exportingDemoGIFExportsTheGIF() throws {
        let dir = try Self.demoFolder()
        defer { TestSupport.cleanup(dir) }
        try FileManager.default.copyItem(atPath: dir.appendingPathComponent("demo.mkv").path, toPath: dir.appendingPathComponent("demo.3gp").path)
        // The command line of the report: `mediaexport demo.gif out.mp4`.
        let out = dir.appendingPathComponent("out.mp4").path
        let r = try TestSupport.tool(["-q", "--json", "--preset", "low", dir.appendingPathComponent("demo.gif").path, out])
        #expect(r.status == 0, "\(r.stderr)")
        let completed = try #require(r.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }.first { $0["kind"] as? String == "completed" })
        let version = (completed["payload"] as? [String: Any])?["version"] as? [String: Any]
        #expect((version?["resource"] as? String)?.hasSuffix("/demo.gif") == true, "\(version ?? [:])")
        #expect(version?["resourceKind"] as? String == "original")
        // The output is the GIF's picture: its size, its 0.6 s and 6 frames — not the 3GP/MKV (160x120, 2 s) or the MP4.
        let probe = try FFprobe(out)
        #expect(probe.video?.width == 96 && probe.video?.height == 64)
        #expect(abs(probe.duration - 0.6) < 0.05, "\(probe.duration)")
        #expect(probe.audio == nil)
        let frames = try TestSupport.run("/usr/bin/ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v", "-show_entries",
                                                             "stream=nb_read_frames", "-of", "csv=p=0", out]).stdout
        #expect(frames.trimmingCharacters(in: .whitespacesAndNewlines) == "6")
    }

    @Test func aBatchOfThreeDemosGivesThreeOutputsUnderStableNames() async throws {
        let dir = try Self.demoFolder()
        defer { TestSupport.cleanup(dir) }
        let out = dir.appendingPathComponent("out")
        let options = BatchOptions(inputs: [dir.path], outputDirectory: out.path, preset: try TestSupport.preset("low"), jobs: 2)
        let result = try await BatchRunner(options: options).run()
        #expect(result.outcome == .completed, "\(result.rows.map { ($0.key, $0.status, $0.error ?? "") })")
        #expect(result.rows.map(\.key) == ["demo.gif", "demo.mkv", "demo.mp4"])
        // The one already in the preset's container keeps its name; the others keep their own extension before it.
        #expect(TestSupport.contents(out).filter { !$0.hasPrefix(".") } == ["demo.gif.mp4", "demo.mkv.mp4", "demo.mp4"])
        let gif = try FFprobe(out.appendingPathComponent("demo.gif.mp4").path)
        let mkv = try FFprobe(out.appendingPathComponent("demo.mkv.mp4").path)
        let mp4 = try FFprobe(out.appendingPathComponent("demo.mp4").path)
        #expect(gif.video?.width == 96 && abs(gif.duration - 0.6) < 0.05)
        #expect(mkv.video?.width == 160 && abs(mkv.duration - 2.0) < 0.05 && mkv.audio == nil)
        #expect(mp4.video?.width == 320 && abs(mp4.duration - 1.0) < 0.05 && mp4.audio != nil)
        // Each row's output is its own file; the database keys them apart.
        let rows = try ExportDatabase(path: out.appendingPathComponent(ExportDatabase.fileName).path, readOnly: true).rows()
        #expect(rows["demo.mkv"]?.outputPath?.hasSuffix("/demo.mkv.mp4") == true && rows["demo.gif"]?.outputPath?.hasSuffix("/demo.gif.mp4") == true)

        // Names depend on the folder, not on what a run selects: a shard or a filter gives the same output names.
        var hashes: [String: String] = [:]
        for configure in [{ (o: inout BatchOptions) in o.include = ["*.mkv"] }, { $0.shard = BatchOptions.Shard(index: 0, count: 1) }] {
            var o = options
            o.dryRun = true
            configure(&o)
            let plan = try BatchPlanner.makePlan(o, hashes: &hashes)
            #expect(plan.items.first { $0.key == "demo.mkv" }?.output.hasSuffix("/demo.mkv.mp4") == true)
        }
        // A rerun finds all three done.
        let again = try await BatchRunner(options: options).run()
        #expect(again.counts.skipped == 3 && again.outcome == .completed)
    }

    @Test func outputNamesOfAssetsSharingAStem() {
        func names(_ files: [String], _ ext: String = "mp4") -> [String] {
            let folder = FolderAssets.group(directory: "/f", names: files)
            return BatchPlanner.outputNames(folder, extension: ext).values.map { ($0 as NSString).lastPathComponent }.sorted()
        }
        #expect(names(["clip.mov"]) == ["clip.mp4"])
        #expect(names(["demo.mp4", "demo.mkv", "demo.gif"]) == ["demo.gif.mp4", "demo.mkv.mp4", "demo.mp4"])
        #expect(names(["demo.mov", "demo.mkv"]) == ["demo.mkv.mp4", "demo.mov.mp4"], "no original in .mp4: every one keeps its extension")
        #expect(names(["demo.MP4", "demo.mp4"]) == ["demo.MP4.mp4", "demo.mp4"], "case variants: the exact extension keeps the name")
        #expect(names(["IMG_0001.MOV", "IMG_E0001.MOV"]) == ["IMG_0001.mp4"], "a rendered edit goes with its original")
    }
}
