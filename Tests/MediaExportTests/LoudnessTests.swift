import Foundation
import Testing
@testable import MediaExport
@testable import MediaExportCore
@testable import MediaExportFFmpeg

/// `--loudness`: EBU R128 measured in-process against the ffmpeg CLI's `ebur128=peak=true`, a −30 LUFS source
/// normalised to −16 LUFS, the record's numbers, measure only, no audio, the same bytes twice.
@Suite(.serialized) struct LoudnessTests {
    /// A 10 s clip with a small video and pink noise at about −30 LUFS (true peak about −17 dBTP), in `dir`.
    static func quietClip(in dir: URL, name: String = "quiet", audio: String = "anoisesrc=color=pink:amplitude=0.17:seed=1:d=10") throws -> String {
        let path = dir.appendingPathComponent("\(name).mov").path
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", audio, "-f", "lavfi", "-i", "testsrc2=s=160x120:r=25:d=10",
                                "-c:a", "pcm_s16le", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-shortest", path])
        return path
    }

    /// The ffmpeg CLI's summary of `path`'s audio: integrated loudness (LUFS) and true peak (dBTP).
    static func cli(_ path: String) throws -> (integrated: Double, truePeak: Double) {
        let r = try TestSupport.run("/usr/bin/ffmpeg", ["-hide_banner", "-nostats", "-i", path, "-map", "0:a:0", "-af", "ebur128=peak=true:framelog=verbose",
                                                         "-f", "null", "-"])
        func value(after label: String) -> Double? {
            guard let line = r.stderr.split(separator: "\n").last(where: { $0.trimmingCharacters(in: .whitespaces).hasPrefix(label) }) else { return nil }
            return line.split(separator: " ").compactMap { Double($0) }.first
        }
        return (try #require(value(after: "I:"), "\(r.stderr.suffix(600))"), try #require(value(after: "Peak:")))
    }

    /// The CLI's export; its `completed` record.
    static func export(_ input: String, _ output: String, _ arguments: [String]) throws -> (TestSupport.RunResult, [String: Any]?) {
        let r = try TestSupport.run(TestSupport.binary, ["--preset", "1280x720", "--json"] + arguments + [input, output])
        let records = r.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        return (r, records.first { $0["kind"] as? String == "completed" }?["payload"] as? [String: Any])
    }

    @Test("the meter agrees with the CLI's ebur128 within 0.1 LU and 0.1 dB; a video-only file has no audio")
    func meterAgreesWithCLI() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let source = try Self.quietClip(in: dir)
        let m = try #require(try Loudness.measure(input: source))
        let cli = try Self.cli(source)
        #expect(abs(m.integrated - cli.integrated) <= 0.1, "meter \(m.integrated), CLI \(cli.integrated)")
        #expect(abs(m.truePeak - cli.truePeak) <= 0.1, "meter \(m.truePeak), CLI \(cli.truePeak)")
        #expect(abs(m.integrated + 30) < 1 && abs(m.threshold - (m.integrated - 10)) < 0.2 && m.range < 1 && abs(m.seconds - 10) < 0.1, "\(m)")
        let silentVideo = dir.appendingPathComponent("video.mp4").path
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=160x120:r=25:d=2", "-pix_fmt", "yuv420p", silentVideo])
        #expect(try Loudness.measure(input: silentVideo) == nil)
    }

    @Test("--loudness -16 on a -30 LUFS source: -16 ± 0.5 LUFS and true peak ≤ -1 dBTP by the CLI, the record within 0.2 of it")
    func normalisesToTarget() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let source = try Self.quietClip(in: dir)
        let output = dir.appendingPathComponent("out.mp4").path
        let (r, completed) = try Self.export(source, output, ["--loudness", "-16"])
        #expect(r.status == 0, "\(r.stderr)")
        let loudness = try #require(completed?["loudness"] as? [String: Any], "\(r.stdout.suffix(800))")
        let cli = try Self.cli(output), cliSource = try Self.cli(source)
        #expect(abs(cli.integrated + 16) <= 0.5 && cli.truePeak <= -1, "CLI: \(cli)")
        // The trial encode cancels AAC's loss on pink noise (0.2 LU in mono here): closer than the issue's ±0.5.
        #expect(abs(cli.integrated + 16) <= 0.1, "CLI: \(cli)")
        let out = try #require(loudness["output"] as? [String: Any]), src = try #require(loudness["source"] as? [String: Any])
        #expect(abs((out["integrated"] as? Double ?? 0) - cli.integrated) <= 0.2 && abs((out["truePeak"] as? Double ?? 0) - cli.truePeak) <= 0.2, "\(out)")
        #expect(abs((src["integrated"] as? Double ?? 0) - cliSource.integrated) <= 0.2, "\(src)")
        #expect(loudness["met"] as? Bool == true && loudness["method"] as? String == "gain" && loudness["target"] as? Double == -16, "\(loudness)")
        let human = try TestSupport.run(TestSupport.binary, ["--preset", "1280x720", "--loudness", "-16", source, dir.appendingPathComponent("h.mp4").path])
        #expect(human.stderr.contains("loudness: -30.") && human.stderr.contains("LUFS → -1") && human.stderr.contains("dBTP"), "\(human.stderr)")
    }

    @Test("--loudness measure records the source within 0.2 LU of the CLI and changes nothing")
    func measureOnly() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let source = try Self.quietClip(in: dir)
        let (r, completed) = try Self.export(source, dir.appendingPathComponent("m.mp4").path, ["--loudness", "measure"])
        #expect(r.status == 0, "\(r.stderr)")
        let loudness = try #require(completed?["loudness"] as? [String: Any])
        let src = try #require(loudness["source"] as? [String: Any]), out = try #require(loudness["output"] as? [String: Any])
        let cli = try Self.cli(source)
        #expect(abs((src["integrated"] as? Double ?? 0) - cli.integrated) <= 0.2, "\(src) against \(cli)")
        #expect(abs((out["integrated"] as? Double ?? 0) - cli.integrated) <= 0.6, "not normalised: \(out)")
        #expect(loudness["method"] as? String == "none" && loudness["met"] == nil && loudness["target"] == nil)
    }

    @Test("a target on a source with no audio: said in the notes, exit 0")
    func noAudio() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let source = dir.appendingPathComponent("v.mp4").path
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=160x120:r=25:d=2", "-pix_fmt", "yuv420p", source])
        let (r, completed) = try Self.export(source, dir.appendingPathComponent("o.mp4").path, ["--loudness", "-16"])
        #expect(r.status == 0, "\(r.stderr)")
        let loudness = try #require(completed?["loudness"] as? [String: Any])
        #expect(loudness["source"] == nil && (loudness["notes"] as? [String])?.contains("the source has no audio") == true, "\(loudness)")
    }

    @Test("the same input gives the same bytes twice (gain and loudnorm), and a peak that does not allow the gain goes through loudnorm")
    func deterministic() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let quiet = try Self.quietClip(in: dir)
        // Clicks at -1 dBFS in the same noise: +14 dB of gain would peak far above the ceiling.
        let peaky = try Self.quietClip(in: dir, name: "peaky", audio: "anoisesrc=color=pink:amplitude=0.17:seed=1:d=10,"
                                       + "aeval=val(0)+if(lt(mod(t\\,1)\\,0.002)\\,0.7*sin(2*PI*1000*t)\\,0)")
        for (name, source) in [("gain", quiet), ("loudnorm", peaky)] {
            let a = dir.appendingPathComponent("\(name)-a.mp4").path, b = dir.appendingPathComponent("\(name)-b.mp4").path
            let first = try Self.export(source, a, ["--loudness", "-16", "--deterministic"])
            #expect(try Self.export(source, b, ["--loudness", "-16", "--deterministic"]).0.status == 0)
            #expect(first.0.status == 0, "\(first.0.stderr)")
            #expect(try TestSupport.sha256(a) == TestSupport.sha256(b), "\(name)")
            let loudness = try #require(first.1?["loudness"] as? [String: Any])
            #expect(loudness["method"] as? String == name, "\(loudness)")
            let cli = try Self.cli(a)
            #expect(cli.truePeak <= -1 && abs(cli.integrated + 16) <= 0.5, "\(name): \(cli)")
            print("\(name): \(cli), record \(loudness["output"] ?? "-"), met \(loudness["met"] ?? "-")")
        }
    }

    @Test("audio.loudness: a preset key, checked (-4 refused naming the field), and --loudness refused on passthrough or out of range")
    func presetKeyAndRefusals() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let good = dir.appendingPathComponent("loud.json"), bad = dir.appendingPathComponent("bad.json")
        try #"{"name": "loud", "video": {"codec": "h264"}, "audio": {"loudness": -16}}"#.write(to: good, atomically: true, encoding: .utf8)
        try #"{"name": "bad", "audio": {"loudness": -4}}"#.write(to: bad, atomically: true, encoding: .utf8)
        let preset = try PresetCatalog.builtIn().resolve(good.path)
        #expect(preset.audio?.loudness == -16)
        #expect(ExportRequest(input: "a", output: "b.mp4", preset: preset).loudnessTarget == LoudnessTarget(integrated: -16))
        do {
            _ = try PresetCatalog.builtIn().resolve(bad.path)
            Issue.record("audio.loudness -4 was taken")
        } catch let ExportError.invalidPreset(_, field, reason) {
            #expect(field == "audio.loudness" && reason.contains("-70…-5"), "\(reason)")
        }
        let source = try Self.quietClip(in: dir)
        let out = dir.appendingPathComponent("o.mp4").path
        let passthrough = try TestSupport.run(TestSupport.binary, ["--preset", "passthrough", "--loudness", "-16", source, out])
        #expect(passthrough.status == 64 && passthrough.stderr.contains("--loudness needs a preset that encodes audio"), "\(passthrough.stderr)")
        let range = try TestSupport.run(TestSupport.binary, ["--loudness", "-2", source, out])
        #expect(range.status == 64 && range.stderr.contains("outside -70…-5 LUFS"), "\(range.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
    }
}
