import Foundation
import Testing
@testable import MediaExport
@testable import MediaExportCore
@testable import MediaExportFFmpeg

/// Encoding overrides on the command line, `presets show`, `--duration` and the pointers for ffmpeg and HandBrake
/// habits (issue 33).
@Suite struct CLIOverrideTests {
    static func probe(_ path: String, _ entries: String, stream: String? = nil) throws -> String {
        let select = stream.map { ["-select_streams", $0] } ?? []
        let r = try TestSupport.run("/usr/bin/ffprobe", ["-v", "error"] + select + ["-show_entries", entries, "-of", "csv=p=0", path])
        return r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The payload of the first record of `kind` in JSON Lines.
    static func record(_ kind: String, in stdout: String) throws -> [String: Any] {
        for line in stdout.split(separator: "\n") {
            guard let json = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], json["kind"] as? String == kind else { continue }
            return try #require(json["payload"] as? [String: Any])
        }
        Issue.record("no \(kind) record in \(stdout)")
        return [:]
    }

    @Test func overridesMakeASmallerFileAndAreRecorded() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let plain = dir.appendingPathComponent("plain.mp4").path, small = dir.appendingPathComponent("small.mp4").path
        // The default preset (highest: CRF 18, medium, AAC 192 kb/s). On these synthetic clips ultrafast at CRF 32 is
        // not smaller than 1280x720's veryfast at CRF 23: ultrafast turns CABAC and most analysis off.
        let input = TestSupport.fixture("landscape.mov")
        #expect(try TestSupport.tool(["-q", input, plain]).status == 0)
        let r = try TestSupport.tool(["--crf", "32", "--encoder-preset", "ultrafast", "--audio-bitrate", "64k",
                                      "--json", input, small])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try #require(FileSystem.size(small)) < (try #require(FileSystem.size(plain))))
        let audioRate = try #require(Int(try Self.probe(small, "stream=bit_rate", stream: "a:0")))
        #expect(audioRate <= 80_000, "\(audioRate)")
        for kind in ["started", "completed"] {
            let settings = try #require(try Self.record(kind, in: r.stdout)["settings"] as? [String: Any], "\(kind)")
            #expect(settings["crf"] as? Int == 32 && settings["encoderPreset"] as? String == "ultrafast", "\(settings)")
            #expect(settings["audioBitrate"] as? Int == 64_000 && settings["videoCodec"] as? String == "h264", "\(settings)")
        }
    }

    @Test func overridesAreCheckedAsPresetKeys() throws {
        let input = TestSupport.fixture("landscape.mov")
        let cases: [([String], String)] = [
            (["--crf", "60"], "--crf must be between 0 and 51 for libx264, got 60"),
            (["--encoder-preset", "turbo"], "--encoder-preset must be one of ultrafast, superfast"),
            (["--crf", "20", "--video-bitrate", "1M"], "give either --crf or --video-bitrate, not both"),
            (["--preset", "passthrough", "--crf", "20"], "--crf needs a preset that encodes video; 'passthrough' copies every stream"),
            (["--preset", "m4a", "--max-bitrate", "2M"], "--max-bitrate needs a preset that encodes video; 'm4a' has no video"),
            (["--preset", "passthrough", "--audio-bitrate", "64k"], "--audio-bitrate needs a preset that encodes audio"),
            (["--audio-bitrate", "2k"], "--audio-bitrate must be between 8000 and 1000000 bits/s, got 2000"),
            (["--audio-bitrate", "64q"], "--audio-bitrate takes bits/s as a number or with k or M"),
            (["--crf", "20", "--max-size", "1MB"], "--crf cannot go with a size limit (1000000 bytes)"),
        ]
        for (args, message) in cases {
            let r = try TestSupport.tool(args + [input, "/tmp/never-written.mp4"])
            #expect(r.status == 64 && r.stderr.contains(message), "\(args): \(r.stderr)")
        }
        #expect(PresetOverrides.parseRate("2.5M") == 2_500_000 && PresetOverrides.parseRate("64k") == 64_000)
        #expect(PresetOverrides.parseRate("160000") == 160_000 && PresetOverrides.parseRate("-5k") == nil && PresetOverrides.parseRate("k") == nil)
        // --crf switches a bit-rate preset to constant quality; --video-bitrate a CRF one to an average rate.
        var rated = Preset(name: "r", video: VideoSettings(codec: .h264))
        rated.video?.bitrate = 1_000_000; rated.video?.twoPass = true
        let crf = try rated.applying(PresetOverrides(crf: 30))
        #expect(crf.video?.bitrate == nil && crf.video?.twoPass == false && crf.video?.crf == 30 && EncodingSettings(crf)?.crf == 30)
        #expect(EncodingSettings(try crf.applying(PresetOverrides(videoBitrate: 900_000)))?.crf == nil)
    }

    @Test func presetsShowPrintsAFileThatLoads() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let shown = try TestSupport.tool(["presets", "show", "AVAssetExportPreset1280x720"])
        #expect(shown.status == 0, "\(shown.stderr)")
        var object = try #require(try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any])
        #expect(object["name"] as? String == "1280x720-custom" && object["aliases"] == nil, "\(object)")
        var video = try #require(object["video"] as? [String: Any])
        video["crf"] = 30
        object["video"] = video
        let file = dir.appendingPathComponent("mine.json")
        try JSONSerialization.data(withJSONObject: object).write(to: file)
        let out = dir.appendingPathComponent("o.mp4").path
        let r = try TestSupport.tool(["--preset", file.path, "--json", TestSupport.fixture("landscape.mov"), out])
        #expect(r.status == 0, "\(r.stderr)")
        let started = try Self.record("started", in: r.stdout)
        #expect(started["preset"] as? String == "1280x720-custom" && (started["settings"] as? [String: Any])?["crf"] as? Int == 30, "\(started)")
        #expect(try Self.probe(out, "stream=codec_name", stream: "v:0") == "h264")
        // A stream copy encodes nothing: no settings in its records.
        let copy = try TestSupport.tool(["--preset", "passthrough", "--json", TestSupport.fixture("landscape.mov"), dir.appendingPathComponent("c.mov").path])
        #expect(copy.status == 0 && !copy.stdout.contains(#""settings""#), "\(copy.stdout)")
        // A file named as a built-in stands in for it in regress: a note says so.
        let catalog = try PresetCatalog.builtIn()
        let twin = try catalog.resolve("1280x720")
        #expect(catalog.shadowNote(for: "./mine.json", resolved: twin)?.contains("as the preset '1280x720'") == true)
        #expect(catalog.shadowNote(for: "1280x720", resolved: twin) == nil)
        #expect(catalog.shadowNote(for: file.path, resolved: try catalog.resolve(file.path)) == nil)
        let taken = try TestSupport.tool(["presets", "show", "low", "--as", "highest"])
        #expect(taken.status == 64 && taken.stderr.contains("a preset is named so already"), "\(taken.stderr)")
    }

    @Test func durationCountsFromStart() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let out = dir.appendingPathComponent("d.mp4").path
        let r = try TestSupport.tool(["--preset", "low", "-q", "--start", "1", "--duration", "2", TestSupport.fixture("lead-in.mp4"), out])
        #expect(r.status == 0, "\(r.stderr)")
        let seconds = try #require(Double(try Self.probe(out, "format=duration")))
        #expect(abs(seconds - 2) <= 2.0 / 25, "\(seconds)")
        let both = try TestSupport.tool(["--duration", "2", "--end", "3", TestSupport.fixture("lead-in.mp4"), out + ".x.mp4"])
        #expect(both.status == 64 && both.stderr.contains("--duration and --end contradict each other"), "\(both.stderr)")
    }

    @Test func habitsGetAPointer() throws {
        let input = TestSupport.fixture("landscape.mov")
        let cases: [([String], String)] = [
            (["-ss", "2", input, "o.mp4"], "unknown option '-ss' (ffmpeg): use --start 2"),
            (["-i", input, "o.mp4"], "the input is positional: mediaexport [options] IN OUT"),
            (["-c", "copy", input, "o.mp4"], "use --preset passthrough"),
            (["-c:v", "copy", input, "o.mp4"], "use --preset passthrough"),
            (["-t", "5", input, "o.mp4"], "use --duration 5"),
            (["-b:a", "96k", input, "o.mp4"], "use --audio-bitrate 96k"),
            (["-crf", "20", input, "o.mp4"], "use --crf 20"),
            (["-preset", "slow", input, "o.mp4"], "use --encoder-preset slow"),
            (["-Z", "Fast 1080p30", input, "o.mp4"], "(HandBrakeCLI): use --preset NAME|FILE"),
            (["-q", "20", input, "o.mp4"], "use --crf 20 (our -q is --quiet)"),
            (["--ab", "160", input, "o.mp4"], "(HandBrakeCLI): use --audio-bitrate 160k"),
            (["-report", input, "o.mp4"], "unknown option '-report' (ffmpeg): use --log FILE"),
        ]
        for (args, pointer) in cases {
            let r = try TestSupport.tool(args)
            #expect(r.status == 64 && r.stderr.contains(pointer), "\(args): \(r.stderr)")
            #expect(r.stderr.split(separator: "\n").count == 1 && !r.stderr.contains("--end'?"), "\(args): \(r.stderr)")
        }
        // `--json`: the final record carries the same pointer.
        let r = try TestSupport.tool(["--json", "-ss", "2", input, "o.mp4"])
        #expect(r.status == 64 && r.stdout.contains("unknown option '-ss' (ffmpeg): use --start 2"), "\(r.stdout)")
    }

    @Test func batchReexportsOnAChangedOverrideOnly() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let uploads = dir.appendingPathComponent("uploads")
        try FileManager.default.createDirectory(at: uploads, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: TestSupport.fixture("landscape.mov"), toPath: uploads.appendingPathComponent("a.mov").path)
        func run(_ crf: String) throws -> TestSupport.RunResult {
            try TestSupport.tool(["batch", uploads.path, "--out", dir.appendingPathComponent("out").path, "--preset", "low",
                                  "--policy", "always", "--crf", crf])
        }
        let first = try run("30")
        #expect(first.status == 0 && first.stdout.contains("1 transcoded"), "\(first.stdout)\(first.stderr)")
        let same = try run("30")
        #expect(same.status == 0 && same.stdout.contains("0 transcoded") && same.stdout.contains("1 unchanged"), "\(same.stdout)\(same.stderr)")
        let changed = try run("35")
        #expect(changed.status == 0 && changed.stdout.contains("1 transcoded"), "\(changed.stdout)\(changed.stderr)")
    }
}
