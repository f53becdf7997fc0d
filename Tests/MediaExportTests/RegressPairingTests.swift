import Foundation
import Testing
@testable import MediaExport
@testable import MediaExportCore
@testable import MediaExportFFmpeg

/// `regress` pairs each output frame with the source picture the version's timeline puts there (Fixtures/edits: an
/// `.AAE` trim and an `.AAE` slow motion), and scores it as FFmpeg's `psnr` filter does on frames paired so.
@Suite struct RegressPairingTests {
    /// Where aae/trim.AAE starts the trim: 46059/90000 s (Fixtures/make-aae-fixtures.py).
    static let trimStart = 46059.0 / 90000

    /// What `regress --update-baseline --html --json` with `low` recorded for `name` (a movie of Fixtures/edits,
    /// copied with its `.AAE` into `dir`): the baseline entry's measurement and the case's per-frame detail.
    static func regress(_ name: String, in dir: URL) throws -> (measurement: MediaExportCore.Measurement, quality: QualityDetail) {
        let stem = (name as NSString).deletingPathExtension
        for file in [name, stem + ".AAE"] {
            try FileManager.default.copyItem(atPath: TestSupport.fixture("edits/" + file), toPath: dir.appendingPathComponent(file).path)
        }
        let baseline = dir.appendingPathComponent("baseline.json").path
        let run = try TestSupport.tool(["regress", dir.appendingPathComponent(name).path, "--preset", "low", "--deterministic",
                                        "--baseline", baseline, "--update-baseline", "--json", "--html", dir.appendingPathComponent("r.html").path])
        #expect(run.status == 0, "\(run.stderr)")
        let line = try #require(run.stdout.split(separator: "\n").first { $0.contains("\"kind\":\"case\"") })
        let record = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let payload = try JSONSerialization.data(withJSONObject: try #require(record["payload"]))
        let quality = try #require(try JSONDecoder().decode(RegressCase.self, from: payload).quality)
        let measurement = try #require(try Baseline.load(baseline).entries[name + "|low"]?.measurement)
        return (measurement, quality)
    }

    /// The same export as `regress` made (`low`, `--deterministic`: the same bytes), and the plan it ran.
    static func export(_ name: String, in dir: URL) throws -> (output: String, plan: ExportPlan) {
        let output = dir.appendingPathComponent("out.mp4").path
        var request = ExportRequest(input: dir.appendingPathComponent(name).path, output: output, preset: try TestSupport.preset("low"))
        request.deterministic = true
        let session = ExportSession(request: request)
        try session.run()
        return (output, try #require(session.delivered?.plan))
    }

    /// FFmpeg's luma PSNR (`PSNR y:` of the `psnr` filter) of `output` against `source`, each stream first put
    /// through `align` (a filter chain that sets the timestamps frames are paired by); frames past the shorter end
    /// are not compared.
    static func ffmpegPSNR(source: [String], output: String, align: String) throws -> Double {
        let graph = "[0:v]\(align)[s];[1:v]\(align)[o];[o][s]psnr=shortest=1"
        let r = try TestSupport.run("/usr/bin/ffmpeg", ["-hide_banner", "-nostdin"] + source + ["-i", output, "-lavfi", graph, "-f", "null", "-"])
        #expect(r.status == 0, "ffmpeg: \(r.stderr)")
        let value = try #require(r.stderr.components(separatedBy: "PSNR y:").last?.prefix { $0.isNumber || $0 == "." })
        return try #require(Double(value))
    }

    @Test("an .AAE-trimmed clip's PSNR is FFmpeg's on frames from the trim start; its worst pair is one moment")
    func trimmedClipIsPairedFromTheTrimStart() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let (measured, quality) = try Self.regress("trim.MOV", in: dir)
        let (output, _) = try Self.export("trim.MOV", in: dir)
        #expect(try SHA256Hasher.file(output) == measured.outputSHA256, "the output compared is the one regress measured")
        let source = dir.appendingPathComponent("trim.MOV").path
        // Decoded from the trim start (the first picture shown is the one at 0.533 s), both from their first frame.
        let aligned = try Self.ffmpegPSNR(source: ["-ss", String(Self.trimStart), "-i", source], output: output, align: "setpts=PTS-STARTPTS")
        let psnr = try #require(measured.psnr)
        #expect(abs(psnr - aligned) <= 1, "regress \(psnr) dB, ffmpeg on aligned frames \(aligned) dB")
        let committed = try #require(try Baseline.load(TestSupport.fixture("regress-baseline.json")).entries["edits/trim.MOV|low"]?.measurement?.psnr)
        #expect(abs(committed - aligned) <= 1, "the committed baseline: \(committed) dB, ffmpeg \(aligned) dB")
        // Paired by output time from the source's start (the trim left out), the scores drop by far more than any tolerance.
        let misPaired = try Self.ffmpegPSNR(source: ["-i", source], output: output, align: "setpts=PTS-STARTPTS")
        #expect(psnr > misPaired + 10, "aligned \(psnr) dB, mis-paired \(misPaired) dB")
        // The worst pair: its source time is the trim start plus its output time, within a frame (1/30 s).
        let worst = try #require(quality.worst)
        #expect(abs(Self.trimStart + worst.time - quality.worstSourceTime) < 1.0 / 30,
                "output \(worst.time) s shows the source at \(Self.trimStart + worst.time) s, paired with \(quality.worstSourceTime) s")
        #expect(quality.frames.count == measured.frameCount)
    }

    @Test("a slow-motion clip's frames are paired through the slow-motion map, each with the picture shown")
    func slowMotionIsPairedThroughTheMap() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let (measured, quality) = try Self.regress("slomo.MOV", in: dir)
        let (output, plan) = try Self.export("slomo.MOV", in: dir)
        #expect(try SHA256Hasher.file(output) == measured.outputSHA256)
        let source = ["-i", dir.appendingPathComponent("slomo.MOV").path]
        // The export shows every source picture once, in order, spread out in the slowed region: by index is the truth.
        let byIndex = try Self.ffmpegPSNR(source: source, output: output, align: "setpts=N/(60*TB)")
        let byTime = try Self.ffmpegPSNR(source: source, output: output, align: "setpts=PTS-STARTPTS")
        let psnr = try #require(measured.psnr)
        #expect(abs(psnr - byIndex) <= 1 && psnr > byTime + 10, "regress \(psnr) dB; ffmpeg by index \(byIndex) dB, by output time \(byTime) dB")
        #expect(quality.frames.count == measured.frameCount, "every output frame paired")
        // The worst pair's source picture is the one the map puts at its output time (within a source frame, 1/60 s).
        let worst = try #require(quality.worst)
        let mapped = plan.timeline.sourceTime(atOutput: worst.time)
        #expect(abs(mapped - quality.worstSourceTime) < 1.0 / 60, "output \(worst.time) s maps to \(mapped) s, paired with \(quality.worstSourceTime) s")
        #expect(plan.timeline.slowMotion != nil)
    }
}
