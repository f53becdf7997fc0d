import Foundation
import Testing
@testable import MediaExport
@testable import MediaExportCore
@testable import MediaExportFFmpeg

/// `--quality METRIC:TARGET`: the CRF searched for on the clip, the whole output measured, the measure in the
/// `completed` record and checked by the ffmpeg CLI's own `ssim` filter; refusals; the search's cache.
@Suite(.serialized) struct QualityTargetExportTests {
    /// The three clips of the issue (5 s, 640x360, 30 fps, lossless): easy, grainy (light temporal noise), medium.
    static let clips = [("easy", "testsrc2=size=640x360:rate=30"), ("grainy", "testsrc2=size=640x360:rate=30,noise=alls=3:allf=t"),
                        ("medium", "mandelbrot=size=640x360:rate=30")]

    static func clip(_ lavfi: String, name: String, in dir: URL) throws -> String {
        let path = dir.appendingPathComponent("\(name).mkv").path
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", lavfi, "-t", "5", "-pix_fmt", "yuv420p", "-c:v", "ffv1", path])
        return path
    }

    /// The CLI's export of `input` with `arguments`, its search cache in `dir`; the `completed` record.
    static func export(_ input: String, _ output: String, _ arguments: [String], cache dir: URL) throws -> (TestSupport.RunResult, [String: Any]?) {
        let r = try TestSupport.run(TestSupport.binary, ["--preset", "highest", "--json"] + arguments + [input, output],
                                    environment: ["XDG_CACHE_HOME": dir.appendingPathComponent("cache").path])
        let records = r.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        return (r, records.first { $0["kind"] as? String == "completed" }?["payload"] as? [String: Any])
    }

    @Test("ssim:0.97 on an easy, a grainy and a medium clip: each meets it by the CLI's measure, in fewer bytes than one CRF for all")
    func theThreeClips() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        var targeted = 0.0, fixed = 0.0
        for (name, lavfi) in Self.clips {
            let source = try Self.clip(lavfi, name: name, in: dir)
            let output = dir.appendingPathComponent("\(name).mp4").path
            let (r, completed) = try Self.export(source, output, ["--quality", "ssim:0.97"], cache: dir)
            #expect(r.status == 0, "\(r.stderr)")
            let quality = try #require(completed?["quality"] as? [String: Any], "\(r.stdout.suffix(800))")
            let achieved = try #require(quality["achieved"] as? Double)
            let crf = try #require(quality["crf"] as? Int)
            let cli = try ScoringTapTests.cliSSIM(output, source)
            #expect(cli >= 0.968, "\(name): CLI SSIM \(cli) at CRF \(crf)")
            #expect(abs(cli - achieved) < 0.0005, "\(name): recorded \(achieved), CLI \(cli)")
            #expect((completed?["settings"] as? [String: Any])?["crf"] as? Int == crf)
            targeted += Double(FileSystem.size(output) ?? 0)
            let baseline = dir.appendingPathComponent("\(name)-fixed.mp4").path
            #expect(try Self.export(source, baseline, ["--crf", "\(Self.commonCRF)"], cache: dir).0.status == 0)
            #expect(try ScoringTapTests.cliSSIM(baseline, source) >= 0.97, "\(name) at the common CRF \(Self.commonCRF)")
            fixed += Double(FileSystem.size(baseline) ?? 0)
            print("\(name): CRF \(crf), SSIM \(achieved) (CLI \(cli)), \(FileSystem.size(output) ?? 0) bytes; CRF \(Self.commonCRF): \(FileSystem.size(baseline) ?? 0) bytes")
        }
        #expect(targeted <= 0.75 * fixed, "\(Int(targeted)) bytes with --quality, \(Int(fixed)) at CRF \(Self.commonCRF): \(targeted / fixed)")
    }

    /// The largest x264 medium CRF at which all three clips reach SSIM 0.97 (bench/quality-target.sh measures it).
    static let commonCRF = 18

    @Test("a rerun reads the search from the cache: no probe, the same CRF, the same bytes")
    func rerunIsCached() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let source = try Self.clip("testsrc2=size=320x180:rate=30", name: "easy", in: dir)
        let first = try Self.export(source, dir.appendingPathComponent("a.mp4").path, ["--quality", "ssim:0.98"], cache: dir)
        let second = try Self.export(source, dir.appendingPathComponent("b.mp4").path, ["--quality", "ssim:0.98"], cache: dir)
        let q1 = try #require(first.1?["quality"] as? [String: Any]), q2 = try #require(second.1?["quality"] as? [String: Any])
        let s1 = try #require(q1["search"] as? [String: Any]), s2 = try #require(q2["search"] as? [String: Any])
        #expect(s1["cached"] as? Bool == false && (s1["probes"] as? [Any])?.isEmpty == false)
        #expect(s2["cached"] as? Bool == true && s2["cpuSeconds"] as? Double == 0)
        #expect(q1["crf"] as? Int == q2["crf"] as? Int)
        #expect(try TestSupport.sha256(dir.appendingPathComponent("a.mp4").path) == TestSupport.sha256(dir.appendingPathComponent("b.mp4").path))
        let human = try TestSupport.run(TestSupport.binary, ["--preset", "highest", "--quality", "ssim:0.98", source, dir.appendingPathComponent("c.mp4").path],
                                        environment: ["XDG_CACHE_HOME": dir.appendingPathComponent("cache").path])
        #expect(human.stdout.contains("quality: ssim 0.9") && human.stdout.contains("CRF from the cache"), "\(human.stdout)")
    }

    @Test("refused with exit 64: vmaf (naming libvmaf), with --crf or --video-bitrate, a target out of range, bad preset bounds")
    func refusals() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let source = try Self.clip("testsrc2=size=160x90:rate=30", name: "tiny", in: dir)
        let out = dir.appendingPathComponent("out.mp4").path
        let vmaf = try Self.export(source, out, ["--quality", "vmaf:95"], cache: dir).0
        #expect(vmaf.status == 64 && vmaf.stderr.contains("libvmaf"), "\(vmaf.stderr)")
        for extra in [["--crf", "20"], ["--video-bitrate", "1M"]] {
            let r = try Self.export(source, out, ["--quality", "ssim:0.97"] + extra, cache: dir).0
            #expect(r.status == 64 && r.stderr.contains("--quality"), "\(extra): \(r.stderr)")
        }
        for bad in ["ssim:2", "loudness:3", "ssim"] {
            let r = try Self.export(source, out, ["--quality", bad], cache: dir).0
            #expect(r.status == 64, "\(bad): \(r.stderr)")
        }
        let preset = dir.appendingPathComponent("q.json")
        try #"{"name": "q", "video": {"codec": "h264", "quality": {"metric": "ssim", "target": 0.97, "minCRF": 60}}}"#
            .write(to: preset, atomically: true, encoding: .utf8)
        let r = try TestSupport.run(TestSupport.binary, ["--preset", preset.path, source, out])
        #expect(r.status != 0 && r.stderr.contains("video.quality") && r.stderr.contains("q.json"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    @Test("batch: a CRF per asset, each measured, in the report and the summary; vmaf refused before any work")
    func batchChoosesPerAsset() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let uploads = dir.appendingPathComponent("uploads")
        try FileManager.default.createDirectory(at: uploads, withIntermediateDirectories: true)
        _ = try Self.clip("testsrc2=size=320x180:rate=30", name: "uploads/easy", in: dir)
        _ = try Self.clip("mandelbrot=size=320x180:rate=30", name: "uploads/medium", in: dir)
        let env = ["XDG_CACHE_HOME": dir.appendingPathComponent("cache").path]
        let out = dir.appendingPathComponent("out").path, report = dir.appendingPathComponent("report.json").path
        let r = try TestSupport.run(TestSupport.binary, ["batch", uploads.path, "--out", out, "--preset", "highest", "--quality", "ssim:0.97",
                                                         "--jobs", "1", "--report", report], environment: env)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("quality ssim:0.97: 2 met (CRF "), "\(r.stdout)")
        let rows = try BatchReport.read(report)
        let crfs = rows.compactMap { $0.account?.quality?.crf }
        #expect(crfs.count == 2 && Set(crfs).count == 2, "\(crfs)")
        #expect(rows.allSatisfy { ($0.account?.quality?.achieved ?? 0) >= 0.969 && $0.account?.quality?.savedBytes != nil })
        let vmaf = try TestSupport.run(TestSupport.binary, ["batch", uploads.path, "--out", dir.appendingPathComponent("v").path,
                                                            "--quality", "vmaf:95"], environment: env)
        #expect(vmaf.status == 64 && vmaf.stderr.contains("libvmaf"), "\(vmaf.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("v").path))
    }

    @Test("a first encode that falls short is encoded once more at a lower CRF, and said")
    func correctiveEncode() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let source = try Self.clip("mandelbrot=size=320x180:rate=30", name: "medium", in: dir)
        var preset = try TestSupport.preset("highest")
        preset.video?.quality = QualityTarget(metric: .ssim, target: 0.97)
        let output = dir.appendingPathComponent("out.mp4").path
        let session = ExportSession(request: ExportRequest(input: source, output: output, preset: preset))
        session.debugQualityOffset = 8
        let completed = try session.run()
        let quality = try #require(completed.quality)
        let corrective = try #require(quality.corrective, "\(quality)")
        #expect(corrective.achieved < 0.97 - 0.001 && quality.crf.map { $0 < corrective.fromCRF } == true)
        #expect(completed.notes.contains { $0.contains("encoded again at CRF") }, "\(completed.notes)")
        #expect(try ScoringTapTests.cliSSIM(output, source) > corrective.achieved)
        #expect(TestSupport.contents(dir).sorted() == ["medium.mkv", "out.mp4"])
    }
}
