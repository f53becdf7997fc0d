import Foundation
import Testing
@testable import MediaExport
@testable import MediaExportCore
@testable import mediaexport

/// Issue 41, metadata per container: tags read back as each container names them, the muxer's own tags are no leak,
/// an upload that fits but must lose tags is remuxed, and a request the container cannot meet is refused before work.
@Suite struct ContainerMetadataTests {
    /// A 720p H.264 + AAC MP4 as Android phones upload it, with a GPS location: it already fits `1280x720`.
    static func androidUpload(in dir: URL) throws -> URL {
        let path = dir.appendingPathComponent("VID_20240501.mp4")
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=30:duration=1", "-f", "lavfi",
                                "-i", "sine=sample_rate=48000:duration=1", "-c:v", "libx264", "-preset", "ultrafast", "-crf", "30",
                                "-c:a", "aac", "-b:a", "96k", "-metadata", "location=+40.0000-074.0000/",
                                "-metadata", "creation_time=2024-05-01T12:34:56Z", path.path])
        return path
    }

    static func formatTags(_ path: String) throws -> [String: String] {
        let r = try TestSupport.run("/usr/bin/ffprobe", ["-v", "error", "-show_entries", "format_tags", "-of", "json", path])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        return (json["format"] as? [String: Any])?["tags"] as? [String: String] ?? [:]
    }

    @Test("batch --metadata sharing remuxes an upload that already fits, dropping its location; the dry run says so")
    func batchRemuxesToDropTags() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let uploads = dir.appendingPathComponent("uploads"), out = dir.appendingPathComponent("ready")
        try FileManager.default.createDirectory(at: uploads, withIntermediateDirectories: true)
        _ = try Self.androidUpload(in: uploads)
        let args = ["batch", uploads.path, "--out", out.path, "--preset", "1280x720", "--metadata", "sharing"]
        let dry = try TestSupport.tool(args + ["--dry-run"])
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(dry.stdout.contains("remux") && dry.stdout.contains("remuxed to drop 2 tags"), "\(dry.stdout)")
        let report = dir.appendingPathComponent("r.json").path
        let r = try TestSupport.tool(args + ["-q", "--report", report])
        #expect(r.status == 0, "\(r.stderr)")
        let row = try #require(try BatchReport.read(report).first)
        #expect(row.action == "remux" && row.status == "exported", "\(row.action) \(row.status) \(row.reason)")
        let tags = try Self.formatTags(out.appendingPathComponent("VID_20240501.mp4").path)
        #expect(!tags.keys.contains { $0.lowercased().contains("location") }, "\(tags)")
        #expect(tags["creation_time"]?.hasPrefix("2024-05-01T12:34:56") == true)
    }

    @Test("--metadata none into .mkv of an MKV source: the muxer's own DURATION tags are no leak", arguments: ["highest", "passthrough"])
    func noneIntoMatroska(preset: String) throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let source = dir.appendingPathComponent("src.mkv").path
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=1", "-f", "lavfi", "-i", "sine=duration=1",
                                "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-metadata", "title=hello", source])
        let out = dir.appendingPathComponent("out.mkv").path
        let r = try TestSupport.tool(["--json", "--preset", preset, "--metadata", "none", source, out])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(!r.stdout.contains("\"kind\":\"fallback\""), "\(r.stderr)")
        #expect(try Self.formatTags(out)["title"] == nil)
    }

    @Test("a location goes into .mkv as LOCATION and is checked by that name", arguments: ["mkv", "webm"])
    func locationIntoMatroska(ext: String) throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let out = dir.appendingPathComponent("out.\(ext)").path
        let r = try TestSupport.tool(["--json", "--preset", ext == "webm" ? "av1-1280x720" : "low", TestSupport.fixture("metadata.mov"), out])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("\"name\":\"location\",\"outcome\":\"passed\""), "\(r.stdout)")
        #expect(try Self.formatTags(out)["LOCATION"] == "+48.8584+002.2945/")
    }

    @Test("batch: a rotated upload that fits a preset writing .mkv is transcoded upright, not byte-copied (the remux would lose the rotation)")
    func batchRotatedIntoMatroska() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let uploads = dir.appendingPathComponent("uploads"), out = dir.appendingPathComponent("ready")
        try FileManager.default.createDirectory(at: uploads, withIntermediateDirectories: true)
        let plain = dir.appendingPathComponent("plain.mp4").path
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=640x360:rate=30:duration=1", "-f", "lavfi", "-i", "sine=sample_rate=48000:duration=1",
                                "-c:v", "libx264", "-preset", "ultrafast", "-crf", "30", "-c:a", "aac", "-b:a", "96k", plain])
        try TestSupport.ffmpeg(["-i", plain, "-c", "copy", "-metadata:s:v:0", "rotate=90", uploads.appendingPathComponent("VID_1.mp4").path])
        let shown = try TestSupport.tool(["presets", "show", "1280x720", "--as", "mkv720"])
        let preset = dir.appendingPathComponent("mkv720.json")
        try shown.stdout.replacingOccurrences(of: "\"defaultExtension\" : \"mp4\"", with: "\"defaultExtension\" : \"mkv\"")
            .write(to: preset, atomically: true, encoding: .utf8)
        let report = dir.appendingPathComponent("r.json").path
        let r = try TestSupport.tool(["batch", uploads.path, "--out", out.path, "--preset", preset.path, "-q", "--report", report])
        #expect(r.status == 0, "\(r.stderr)")
        let row = try #require(try BatchReport.read(report).first)
        #expect(row.action == "transcode" && row.status == "exported", "\(row.action) \(row.status) \(row.reason)")
        let probe = try TestSupport.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries", "stream=width,height",
                                                             "-of", "csv=p=0", out.appendingPathComponent("VID_1.mkv").path])
        #expect(probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "360,640", "\(probe.stdout)")
    }

    @Test("a preset whose codec the container cannot hold is refused before any work: exit 65, nothing written")
    func codecRefusedBeforeWork() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let r = try TestSupport.tool(["--json", "--preset", "hevc-highest", TestSupport.fixture("landscape.mov"), dir.appendingPathComponent("x.webm").path])
        #expect(r.status == 65, "\(r.stderr)")
        #expect(r.stderr.contains(".webm cannot hold hevc video") && r.stderr.contains(".mp4"), "\(r.stderr)")
        #expect(!r.stdout.contains("\"kind\":\"fallback\"") && !r.stdout.contains("\"kind\":\"progress\""))
        #expect(TestSupport.contents(dir).isEmpty)
    }
}
