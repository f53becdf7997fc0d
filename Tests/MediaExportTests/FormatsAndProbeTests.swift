import Foundation
import Testing
@testable import MediaExport
@testable import MediaExportCore
@testable import mediaexport

/// `mediaexport formats`, and what `probe` shows of chapters and attachments (issue 33).
@Suite struct FormatsAndProbeTests {
    @Test func formatsListsTheContainersWrittenAndParsesAsJSON() throws {
        let text = try TestSupport.tool(["formats"])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains(".mp4  (mp4 muxer)") && text.stdout.contains(".mkv  (matroska muxer)"), "\(text.stdout)")
        #expect(text.stdout.contains("encode: video h264, hevc; audio aac; subtitles mov_text"), "\(text.stdout)")
        let json = try TestSupport.tool(["formats", "--json"])
        #expect(json.status == 0, "\(json.stderr)")
        let catalog = try JSONDecoder().decode(FormatCatalog.self, from: Data(json.stdout.utf8))
        #expect(catalog.writes.map(\.container) == Container.allCases)
        let mkv = try #require(catalog.writes.first { $0.container == .mkv })
        #expect(mkv.copy.audio.contains("flac") && mkv.copy.subtitle.contains("subrip"))
        let m4a = try #require(catalog.writes.first { $0.container == .m4a })
        #expect(m4a.encode.video.isEmpty && m4a.copy.audio == ["aac", "alac"])
        #expect(catalog.reads.demuxers.contains("matroska") && catalog.reads.decoders.video.contains("h264"))
    }

    /// An MKV with two chapters and a text attachment: `probe` shows both, in the table and in `--json`.
    @Test func probeShowsChaptersAndAttachments() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let meta = try TestSupport.twoChapters(in: dir, title: "Chaptered")
        let notes = dir.appendingPathComponent("notes.txt")
        try "liner notes\n".write(to: notes, atomically: true, encoding: .utf8)
        let mkv = dir.appendingPathComponent("chapters.mkv").path
        try TestSupport.ffmpeg(["-i", TestSupport.fixture("landscape.mov"), "-i", meta.path, "-map", "0", "-map_metadata", "1",
                                "-map_chapters", "1", "-attach", notes.path, "-attach", notes.path, "-metadata:s:t:0", "mimetype=text/plain",
                                "-metadata:s:t:1", "mimetype=application/x-unknown", "-metadata:s:t:1", "filename=data.bin",
                                "-c", "copy", mkv])
        let table = try TestSupport.tool(["probe", mkv])
        #expect(table.status == 0, "\(table.stderr)")
        #expect(table.stdout.contains("'notes.txt' (text/plain)"), "\(table.stdout)")
        #expect(table.stdout.contains("attachment unknown 'data.bin' (application/x-unknown)"), "\(table.stdout)")
        #expect(!table.stdout.contains("[0]"), "\(table.stdout)")
        #expect(table.stdout.contains("  chapters: 2\n    1. 0.000–1.500 s Opening\n    2. 1.500–4.000 s Second part"), "\(table.stdout)")
        let json = try TestSupport.tool(["probe", "--json", mkv])
        let info = try JSONDecoder().decode(MediaInfo.self, from: Data(json.stdout.utf8))
        let attachments = info.streams.filter { $0.type == "attachment" }
        #expect(attachments.map(\.fileName) == ["notes.txt", "data.bin"])
        #expect(attachments.map(\.mimeType) == ["text/plain", "application/x-unknown"])
        #expect(info.chapters?.map { $0.tags?["title"] } == ["Opening", "Second part"])
        #expect(info.chapters?.map(\.endTime) == ["1.500000", "4.000000"])
    }

    /// `thumbnail --size 320`: a width alone, the height from the displayed aspect ratio (16:9 → 180; a portrait
    /// 9:16 picture → 568, even), never upscaled; `WxH` still a box.
    @Test func thumbnailTakesAWidthAlone() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        func size(_ fixture: String, _ size: String, _ name: String) throws -> String {
            let out = dir.appendingPathComponent(name).path
            let r = try TestSupport.tool(["thumbnail", TestSupport.fixture(fixture), out, "--size", size])
            #expect(r.status == 0, "\(r.stderr)")
            let probe = try TestSupport.run("/usr/bin/ffprobe", ["-v", "error", "-show_entries", "stream=width,height", "-of", "csv=p=0", out])
            return probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        #expect(try size("hd1080.mp4", "320", "wide.jpg") == "320,180")
        #expect(try size("hd1080.mp4", "321", "odd.jpg") == "321,180")
        #expect(try size("portrait-rotated.mov", "100", "tall.png") == "100,178")
        #expect(try size("landscape.mov", "640", "small.jpg") == "320,180")
        #expect(try size("hd1080.mp4", "400x100", "box.jpg") == "178,100")
    }

    /// Every `--json` command ends with one final record when it fails, a command line that does not parse
    /// included: the export's `failed` payload under the command's kind, with the exit code.
    @Test func everyJSONCommandEndsWithOneFailureRecord() throws {
        let fixture = TestSupport.fixture("landscape.mov")
        let cases: [([String], String, Int32, String)] = [
            (["batch", "--json", "--bogus", fixture, "--out", "/tmp/never"], "batchFailed", ExitStatus.usage, "--bogus"),
            (["batch", "--json", "--preset", "nope", fixture, "--out", "/tmp/never"], "batchFailed", ExitStatus.badPreset, "nope"),
            (["regress", "--json", "--frob", fixture, "--baseline", "b.json"], "regressFailed", ExitStatus.usage, "--frob"),
            (["probe", "--json", "/nonexistent/in.mov"], "failed", ExitStatus.inputUnreadable, "/nonexistent/in.mov"),
            (["thumbnail", "--json", fixture, "/tmp/never.jpg", "--size", "1x"], "failed", ExitStatus.usage, "--size"),
            (["formats", "--json", "--frob"], "failed", ExitStatus.usage, "--frob"),
            (["presets", "--json", "--frob"], "failed", ExitStatus.usage, "--frob"),
            (["resources", "--json", "/nonexistent/IMG_1.MOV"], "failed", ExitStatus.inputUnreadable, "IMG_1.MOV"),
        ]
        for (args, kind, status, mention) in cases {
            let r = try TestSupport.tool(args)
            #expect(r.status == status, "\(args): \(r.stderr)")
            let lines = r.stdout.split(separator: "\n")
            #expect(lines.count == 1, "\(args): \(r.stdout)")
            let last = try #require(lines.last, "\(args): no record")
            let record = try #require(try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any])
            let payload = try #require(record["payload"] as? [String: Any])
            #expect(record["kind"] as? String == kind && record["version"] as? Int == 1, "\(args): \(last)")
            #expect(payload["exitCode"] as? Int == Int(status), "\(args): \(last)")
            #expect((payload["message"] as? String)?.contains(mention) == true, "\(args): \(last)")
            #expect(r.stderr.hasPrefix("mediaexport: ") && r.stderr.split(separator: "\n").count == 1, "\(args): \(r.stderr)")
        }
    }

    /// `regress --update-baseline --json` ends with its `regressFinished` record too, naming what changed.
    @Test func regressUpdateEndsWithAFinalRecord() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let sample = dir.appendingPathComponent("clip.mov").path
        try FileManager.default.copyItem(atPath: TestSupport.fixture("landscape.mov"), toPath: sample)
        let r = try TestSupport.tool(["regress", sample, "-p", "low", "--baseline", dir.appendingPathComponent("b.json").path,
                                      "--update-baseline", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n")
        #expect(lines.count == 2, "\(r.stdout)")
        let last = try #require(try JSONSerialization.jsonObject(with: Data((lines.last ?? "").utf8)) as? [String: Any])
        let payload = try #require(last["payload"] as? [String: Any])
        #expect(last["kind"] as? String == "regressFinished" && payload["cases"] as? Int == 1 && payload["failed"] as? Int == 0)
        #expect(payload["exitCode"] as? Int == 0 && payload["passed"] as? Int == 1 && (payload["failures"] as? [Any])?.isEmpty == true, "\(payload)")
        #expect((payload["baselineUpdated"] as? [String])?.first == "added clip.mov|low", "\(payload)")
    }
}
