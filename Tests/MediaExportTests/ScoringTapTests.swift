import Foundation
import Testing
import CFFmpeg
@testable import MediaExport
@testable import MediaExportCore
@testable import MediaExportFFmpeg

/// An encode measured while it runs (`Transcoder.scoring`, `ScoringTap`): the same SSIM as the ffmpeg CLI measures
/// on the finished file against the same source frames, every frame paired through x264's B-frames and lookahead.
@Suite(.serialized) struct ScoringTapTests {
    /// A 640x360 30 fps lossless source of `lavfi` in yuv420p (mandelbrot is RGB: x264 would otherwise pick 4:4:4).
    static func source(_ lavfi: String, seconds: Int = 3, in dir: URL) throws -> String {
        let path = dir.appendingPathComponent("source.mkv").path
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "\(lavfi)=size=640x360:rate=30", "-t", "\(seconds)",
                                "-pix_fmt", "yuv420p", "-c:v", "ffv1", path])
        return path
    }

    /// Transcodes `source` with `preset`, measuring with `scoring`; the outcome and the output's path.
    static func encode(_ source: String, preset name: String = "highest", scoring: Transcoder.Scoring?,
                       in dir: URL) throws -> (Transcoder.Outcome, String) {
        let preset = try TestSupport.preset(name)
        let probed = try ProbedSource(path: source, cancel: nil)
        let target = try OutputTarget(output: dir.appendingPathComponent("out").path, inputs: [source], overwrite: false,
                                      sandbox: nil, defaultExtension: preset.defaultExtension)
        let plan = try ExportPlanner.plan(source: probed.info, preset: preset, route: .transcode, container: target.container, edits: nil, range: nil)
        let transcoder = try Transcoder(source: probed, plan: plan, target: target, cancel: CancelToken())
        transcoder.scoring = scoring
        let outcome = try transcoder.run { _, _, _ in }
        try target.commit()
        return (outcome, target.finalPath)
    }

    /// The ffmpeg CLI's SSIM "All" of `output` against `source`, frames paired by index (not by timestamps, which
    /// the CLI pairs wrongly between an MP4's and an MKV's time bases).
    static func cliSSIM(_ output: String, _ source: String) throws -> Double {
        let graph = "[0:v]setpts=N/30/TB[a];[1:v]format=yuv420p,setpts=N/30/TB[b];[a][b]ssim"
        let r = try TestSupport.run("/usr/bin/ffmpeg", ["-hide_banner", "-nostats", "-i", output, "-i", source, "-lavfi", graph, "-f", "null", "-"])
        guard let range = r.stderr.range(of: #"All:([0-9.]+)"#, options: .regularExpression) else {
            Issue.record("no SSIM in: \(r.stderr.suffix(500))")
            return -1
        }
        return Double(r.stderr[range].dropFirst(4)) ?? -1
    }

    /// Output video packets and B-frames among them, counted by ffprobe.
    static func pictureTypes(_ path: String) throws -> [String] {
        let r = try TestSupport.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "frame=pict_type",
                                                         "-of", "csv=p=0", path])
        return r.stdout.split(separator: "\n").map { String($0).trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    @Test("SSIM measured during the encode is the CLI's on the output, every frame paired, with B-frames",
          arguments: ["testsrc2", "mandelbrot"])
    func matchesTheCLI(lavfi: String) throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let source = try Self.source(lavfi, in: dir)
        let (outcome, output) = try Self.encode(source, scoring: Transcoder.Scoring(metric: .ssim), in: dir)
        let scores = try #require(outcome.scores)
        let types = try Self.pictureTypes(output)
        #expect(types.count == 90 && types.contains("B"), "\(types.count) frames, B-frames: \(types.contains("B"))")
        #expect(scores.every == 1 && scores.count == 90 && scores.unpaired == 0)
        let cli = try Self.cliSSIM(output, source)
        let mean = try #require(scores.mean)
        #expect(abs(mean - cli) < 0.0005, "in-process \(mean), CLI \(cli)")
        print("\(lavfi): in-process SSIM \(mean), CLI \(cli), p5 \(scores.p5 ?? -1)")
        #expect((scores.p5 ?? 2) <= mean)
    }

    @Test("every 3rd frame: a third of them scored, none unpaired; PSNR capped and finite")
    func everyThird() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let source = try Self.source("testsrc2", seconds: 2, in: dir)
        let (outcome, _) = try Self.encode(source, scoring: Transcoder.Scoring(metric: .psnr, every: 3), in: dir)
        let scores = try #require(outcome.scores)
        #expect(scores.every == 3 && scores.count == 20 && scores.unpaired == 0)
        #expect(scores.mean.map { $0 > 30 && $0 <= QualityMetric.psnrCap } == true, "PSNR \(String(describing: scores.mean))")
    }

    @Test("an RGB source goes through the stage's filter graph: its frames are the references, every one paired")
    func throughTheFilterGraph() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let source = dir.appendingPathComponent("rgb.mkv").path
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "mandelbrot=size=320x180:rate=30", "-t", "1", "-pix_fmt", "bgr0", "-c:v", "ffv1", source])
        let (outcome, _) = try Self.encode(source, preset: "low", scoring: Transcoder.Scoring(metric: .ssim), in: dir)
        let scores = try #require(outcome.scores)
        #expect(scores.count == 30 && scores.unpaired == 0)
        #expect(scores.mean.map { $0 > 0.9 && $0 < 1 } == true, "SSIM \(String(describing: scores.mean))")
    }

    @Test("no scoring asked: none measured; asked: the very same file")
    func offByDefault() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let source = try Self.source("testsrc2", seconds: 1, in: dir)
        let plain = dir.appendingPathComponent("plain")
        try FileManager.default.createDirectory(at: plain, withIntermediateDirectories: true)
        let (outcome, output) = try Self.encode(source, preset: "low", scoring: nil, in: plain)
        #expect(outcome.scores == nil)
        let (scored, withTap) = try Self.encode(source, preset: "low", scoring: Transcoder.Scoring(metric: .ssim), in: dir)
        #expect(scored.scores?.count == 30)
        #expect(try TestSupport.sha256(output) == (try TestSupport.sha256(withTap)), "the tap changed the output")
    }
}
