import Foundation
import Testing
@testable import MediaExport
@testable import MediaExportCore
@testable import mediaexport

/// The overrides people type (issue 46): the size box, `--fps`, `--channels`/`--mixdown`, `--audio-bitrate 96` as
/// kb/s, `--log FILE`, the habit pointers that lead to them and the per-encoder ranges.
@Suite struct CLIPictureSoundTests {
    /// One line on stderr (the `mediaexport: ` prefix and a newline), exit 64, containing `text`.
    static func expectUsage(_ args: [String], _ text: String) throws {
        let r = try TestSupport.tool(args)
        let lines = r.stderr.split(separator: "\n")
        #expect(r.status == 64 && lines.count == 1 && r.stderr.contains(text), "\(args): \(r.status) \(r.stderr)")
    }

    @Test func heightFrameRateAndChannelsOnA1080p60FivePointOneClip() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let source = dir.appendingPathComponent("src.mp4").path, out = dir.appendingPathComponent("out.mp4").path
        let log = dir.appendingPathComponent("ticket.log").path
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=60:duration=1", "-f", "lavfi", "-i", "sine=d=1",
                                "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-ac", "6", "-shortest", source])
        let r = try TestSupport.tool(["--max-height", "720", "--fps", "30", "--channels", "2", "--encoder-preset", "ultrafast",
                                      "--log", log, source, out])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try CLIOverrideTests.probe(out, "stream=width,height", stream: "v:0") == "1280,720")
        #expect(try CLIOverrideTests.probe(out, "stream=r_frame_rate", stream: "v:0") == "30/1")
        #expect(try CLIOverrideTests.probe(out, "stream=channels", stream: "a:0") == "2")
        // Named in the plan line, and in the started record the log file holds (with the verbose log's lines).
        for change in ["1920x1080 → 1280x720", "60 → 30 fps", "6 → 2 channels"] { #expect(r.stderr.contains(change), "\(change): \(r.stderr)") }
        let text = try String(contentsOfFile: log, encoding: .utf8)
        let started = try CLIOverrideTests.record("started", in: text.split(separator: "\n").filter { $0.hasPrefix("{") }.joined(separator: "\n"))
        #expect(started["settings"] != nil && text.hasPrefix("# mediaexport --max-height 720"), "\(text.prefix(300))")
        #expect(text.contains("\"kind\":\"completed\"") && text.contains(" info mediaexport:"), "\(text.prefix(600))")
        // A second run appends.
        #expect(try TestSupport.tool(["-q", "--log", log, "--preset", "passthrough", source, out + ".mov"]).status == 0)
        #expect(try String(contentsOfFile: log, encoding: .utf8).hasPrefix(text))
    }

    @Test func theBoxIsAPresetsBox() throws {
        let sides = { (args: [String]) throws -> SizeBox? in try Export.parse(args + ["in", "out.mp4"]).exportOptions.encoding.overrides.maxSize }
        #expect(try sides(["--max-height", "720"]).map { [$0.long, $0.short] } == [16384, 720])
        #expect(try sides(["--max-width", "1280"]).map { [$0.long, $0.short] } == [1280, 16384])
        #expect(try sides(["--max-dimensions", "720x1280"]) == SizeBox(1280, 720))
        // Short side 720: a portrait clip is 720 wide, as in a preset named 1280x720; never upscaled.
        var box = SizeBox(16384, 16384); box.short = 720
        #expect(box.fit(width: 1080, height: 1920) == (720, 1280) && box.fit(width: 640, height: 480) == (640, 480))
        let preset = try PresetCatalog.builtIn().resolve("1280x720")
        let raised = try preset.applying(PresetOverrides(maxSize: SizeBox(1920, 1080), maxFrameRate: 30, channels: 1))
        #expect(raised.video?.maxSize == SizeBox(1920, 1080) && raised.video?.maxFrameRate == 30 && raised.audio?.channels == 1)
    }

    @Test func overridesAreCheckedAndNamed() throws {
        let input = TestSupport.fixture("landscape.mov")
        let never = "/tmp/never-written.mp4"
        try Self.expectUsage(["--fps", "500", input, never], "--fps must be between 1 and 240 frames/s, got 500")
        try Self.expectUsage(["--channels", "9", input, never], "--channels must be between 1 and 8, got 9")
        try Self.expectUsage(["--channels", "1", "--mixdown", "stereo", input, never], "--channels 1 and --mixdown stereo contradict each other")
        try Self.expectUsage(["--max-dimensions", "big", input, never], "--max-dimensions takes WIDTHxHEIGHT")
        try Self.expectUsage(["--max-dimensions", "1280x720", "--max-height", "480", input, never], "contradict each other")
        try Self.expectUsage(["--max-height", "1", input, never], "--max-height must be from 2 to 16384, got 1")
        try Self.expectUsage(["--preset", "m4a", "--fps", "30", input, never], "--fps needs a preset that encodes video; 'm4a' has no video")
        try Self.expectUsage(["--preset", "passthrough", "--mixdown", "mono", input, never], "--channels needs a preset that encodes audio")
        try Self.expectUsage(["--preset", "av1-1280x720", "--crf", "64", input, never], "--crf must be between 0 and 63 for libsvtav1, got 64")
        try Self.expectUsage(["--preset", "av1-1280x720", "--encoder-preset", "slow", input, never], "must be one of 0, 1, 2")
        try Self.expectUsage(["--encoder-preset", "8", input, never], "must be one of ultrafast")
        let av1 = try PresetCatalog.builtIn().resolve("av1-1280x720")
        #expect(try av1.applying(PresetOverrides(crf: 60, encoderPreset: "12")).video?.crf == 60)
    }

    @Test func audioBitrateUnderAThousandIsKilobits() throws {
        let options = try Export.parse(["--audio-bitrate", "96", "in", "out.mp4"]).exportOptions
        #expect(options.encoding.overrides.audioBitrate == 96_000)
        #expect(options.notes == ["--audio-bitrate 96 read as 96 kb/s (96k; bits/s from 1000 up)"])
        let plain = try Export.parse(["--audio-bitrate", "96000", "in", "out.mp4"]).exportOptions
        #expect(plain.encoding.overrides.audioBitrate == 96_000 && plain.notes.isEmpty)
        #expect(try Export.parse(["--audio-bitrate", "96k", "in", "out.mp4"]).exportOptions.notes.isEmpty)
    }

    @Test func theSettingsHashMovesOnlyWithTheNewOptions() throws {
        func hash(_ extra: [String]) throws -> String { try Batch.parse(["in", "--out", "o"] + extra).batchOptions().settingsHash }
        let plain = try hash([])
        #expect(try hash(["--log", "/tmp/x.log"]) == plain)
        #expect(try hash(["--max-height", "720"]) != plain && hash(["--fps", "30"]) != plain)
        #expect(try hash(["--mixdown", "mono"]) == hash(["--channels", "1"]))
        // The preset's JSON has no key for an option not given: the hash of a run without them is the one before.
        let json = String(decoding: try JSONEncoder().encode(try Batch.parse(["in", "--out", "o"]).batchOptions().preset), as: UTF8.self)
        #expect(!json.contains("maxFrameRate") && !json.contains("maxSize"), "\(json)")
    }

    @Test func habitsPointAtTheRightOption() throws {
        let input = TestSupport.fixture("landscape.mov")
        let cases: [([String], String)] = [
            (["-ac", "2"], "unknown option '-ac' (ffmpeg): use --channels 2"),
            (["-vf", "scale=-2:720"], "unknown option '-vf' (ffmpeg): use --max-height 720"),
            (["-vf", "scale=1280:-1"], "use --max-width 1280"),
            (["-vf", "scale=1280:720"], "use --max-dimensions 1280x720"),
            (["-vf", "hflip"], "filters are not taken"),
            (["-an"], "unknown option '-an' (ffmpeg): no option drops the audio: a preset without an \"audio\" section does"),
            (["-r", "30"], "unknown option '-r' (ffmpeg): use --fps 30"),
            (["--two-pass"], "two passes come with a target: --max-size SIZE"),
            (["-report"], "unknown option '-report' (ffmpeg): use --log FILE"),
            (["-Y", "720"], "(HandBrakeCLI): use --max-height 720"),
        ]
        for (args, text) in cases { try Self.expectUsage(args + [input, "/tmp/never-written.mp4"], text) }
        try Self.expectUsage(["thumbnail", input, "/tmp/never.jpg", "--size", "320:-1"], "'--size 320:-1' (ffmpeg's scale): use --size 320")
        let r = try TestSupport.tool(["--preset", "720p", input, "/tmp/never-written.mp4"])
        #expect(r.status == 78 && r.stderr.contains("unknown preset '720p' (did you mean '1280x720'?"), "\(r.stderr)")
        #expect(Suggestion.closest(to: "4k", in: ["highest", "hevc-3840x2160", "3840x2160"]) == "3840x2160")
    }
}
