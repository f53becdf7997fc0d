import Foundation
import Testing
@testable import MediaExportCore
@testable import mediaexport

/// A damaged download is salvaged into the container asked for and said partial; `--damaged` chooses (issue 31).
@Suite("Damaged input: salvage, copy or fail")
struct SalvageTests {
    /// A moov-first `.mov` of 6 s (30 fps, AAC) cut at 55 % of its bytes, in `dir`.
    static func cutMOV(in dir: URL) throws -> String {
        let whole = dir.appendingPathComponent("whole.mov").path
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=640x360:r=30:d=6", "-f", "lavfi", "-i", "sine=d=6", "-c:v", "libx264",
                                "-pix_fmt", "yuv420p", "-c:a", "aac", "-movflags", "+faststart", whole])
        let data = try Data(contentsOf: URL(fileURLWithPath: whole))
        let cut = dir.appendingPathComponent("in").appendingPathComponent("cut.mov")
        try FileManager.default.createDirectory(at: cut.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.prefix(data.count * 55 / 100).write(to: cut)
        return cut.path
    }

    /// Video frames ffmpeg itself decodes from `path` (`-f framemd5`).
    static func decodableFrames(_ path: String) throws -> Int {
        let r = try TestSupport.run("/usr/bin/ffmpeg", ["-v", "quiet", "-i", path, "-map", "0:v:0", "-f", "framemd5", "-"])
        return r.stdout.split(separator: "\n").filter { $0.hasPrefix("0,") }.count
    }

    @Test("By default a cut .mov becomes out.mp4 by salvage: exit 3, the frames that decode, a partial record")
    func salvagesIntoTheContainerAsked() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let cut = try Self.cutMOV(in: dir)
        let out = dir.appendingPathComponent("out.mp4").path
        let r = try TestSupport.tool(["--json", "-p", "1280x720", cut, out])
        let (kind, payload, fallbacks) = VerificationTests.outcome(r)
        #expect(r.status == ExitStatus.completedWithFallback, "\(r.stdout)\n\(r.stderr)")
        #expect(kind == "completed")
        #expect(payload["route"] as? String == "salvage")
        #expect(payload["output"] as? String == out)
        #expect(TestSupport.contents(dir) == ["in", "out.mp4", "whole.mov"], "no .mov copy, nothing else")
        #expect(fallbacks.count == 1 && fallbacks.allSatisfy { $0.contains("the file is truncated") }, "straight to the salvage: \(fallbacks)")
        let partial = payload["partial"] as? [String: Any] ?? [:]
        let duration = payload["duration"] as? Double ?? 0
        #expect(partial["duration"] as? Double == duration)
        #expect(partial["declaredDuration"] as? Double == 6)
        #expect((partial["cause"] as? String)?.contains("the file is truncated") == true, "\(partial)")
        let probe = try FFprobe(out)
        #expect(probe.video?.codec == "h264" && probe.audio?.codec == "aac")
        #expect(abs(probe.duration - duration) < 0.1 && duration > 2 && duration < 4, "\(probe.duration) vs \(duration)")
        let want = try Self.decodableFrames(cut), got = try Self.decodableFrames(out)
        #expect(want > 60 && abs(got - want) <= want / 20, "salvaged \(got) frames, ffmpeg decodes \(want)")
        let warnings = payload["warnings"] as? [String] ?? []
        #expect(warnings.first?.hasPrefix("partial output: ") == true, "\(warnings)")
    }

    @Test("The human summary says partial, with the declared length, and a WARNING line")
    func summarySaysPartial() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let cut = try Self.cutMOV(in: dir)
        let r = try TestSupport.tool(["-p", "passthrough", cut, dir.appendingPathComponent("out.mp4").path])
        #expect(r.status == ExitStatus.completedWithFallback)
        #expect(r.stdout.contains("(partial, of 6.00 s)") && r.stdout.contains("by salvage after remux failed"), "\(r.stdout)")
        #expect(r.stderr.contains("WARNING: partial output: ") && !r.stdout.contains("WARNING"), "\(r.stdout)\(r.stderr)")
        #expect(try FFprobe(dir.appendingPathComponent("out.mp4").path).video?.codec == "h264", "passthrough salvages by stream copy")
    }

    @Test("--damaged copy: the byte copy, with the duration its data holds, not the 6 s declared")
    func copyTellsTheDataPresent() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let cut = try Self.cutMOV(in: dir)
        let r = try TestSupport.tool(["--json", "--damaged", "copy", "-p", "1280x720", cut, dir.appendingPathComponent("out.mp4").path])
        let (_, payload, fallbacks) = VerificationTests.outcome(r)
        #expect(r.status == ExitStatus.completedWithFallback)
        #expect(payload["route"] as? String == "copy")
        #expect(fallbacks.count == 1, "straight to the copy: \(fallbacks)")
        let out = dir.appendingPathComponent("out.mov").path
        #expect(try TestSupport.sha256(out) == (try TestSupport.sha256(cut)))
        let duration = payload["duration"] as? Double ?? 0
        #expect(duration > 2 && duration < 4, "\(payload)")
        #expect((payload["partial"] as? [String: Any])?["declaredDuration"] as? Double == 6)
    }

    @Test("--damaged fail: exit 1, the truncation named, nothing written")
    func failWritesNothing() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let cut = try Self.cutMOV(in: dir)
        let r = try TestSupport.tool(["--json", "--damaged", "fail", "-p", "1280x720", cut, dir.appendingPathComponent("out.mp4").path])
        let (kind, payload, _) = VerificationTests.outcome(r)
        #expect(r.status == ExitStatus.exportFailed)
        #expect(kind == "failed" && payload["error"] as? String == "truncated", "\(payload)")
        #expect((payload["message"] as? String)?.contains("the file is truncated") == true)
        #expect(TestSupport.contents(dir) == ["in", "whole.mov"])
    }

    @Test("A batch salvages a cut upload into the container asked for, and its report row says salvage (exit 3); --damaged fail fails it")
    func batchSalvages() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let cut = try Self.cutMOV(in: dir)
        let folder = URL(fileURLWithPath: cut).deletingLastPathComponent()
        let out = dir.appendingPathComponent("out")
        let r = try TestSupport.tool(["batch", folder.path, "--out", out.path, "--preset", "1280x720", "--policy", "always", "--json", "-q"])
        #expect(r.status == ExitStatus.completedWithFallback, "\(r.stdout)\n\(r.stderr)")
        let done = VerificationTests.records(r.stdout).first { $0["kind"] as? String == "completed" }?["payload"] as? [String: Any] ?? [:]
        #expect(done["route"] as? String == "salvage", "\(done)")
        #expect((done["output"] as? String)?.hasSuffix("cut.mp4") == true)
        #expect(try FFprobe(out.appendingPathComponent("cut.mp4").path).video?.codec == "h264")
        let finished = VerificationTests.records(r.stdout).last?["payload"] as? [String: Any] ?? [:]
        let counts = finished["counts"] as? [String: Any] ?? [:]
        #expect(counts["salvaged"] as? Int == 1 && counts["transcoded"] as? Int == 0, "\(counts)")
        // The report's row gives what the output holds, and says partial.
        let report = dir.appendingPathComponent("report.json")
        let again = try TestSupport.tool(["batch", folder.path, "--out", out.path, "--preset", "1280x720", "--policy", "always", "-q",
                                          "--report", report.path])
        #expect(again.status == ExitStatus.completedWithFallback && again.stdout.contains("1 fell back (cut.mov)"),
                "nothing exported now, but the salvage left in place still counts: \(again.stdout)")
        let document = try JSONSerialization.jsonObject(with: Data(contentsOf: report)) as? [String: Any] ?? [:]
        let row = (document["rows"] as? [[String: Any]])?.first ?? [:]
        let account = row["account"] as? [String: Any] ?? [:]
        #expect(row["route"] as? String == "salvage", "\(row)")
        #expect(abs((account["duration"] as? Double ?? 0) - (done["duration"] as? Double ?? -1)) < 0.001, "\(account)")
        #expect((account["partial"] as? [String: Any])?["declaredDuration"] as? Double == 6, "\(account)")
        let failing = dir.appendingPathComponent("out-fail")
        let f = try TestSupport.tool(["batch", folder.path, "--out", failing.path, "--preset", "1280x720", "--policy", "always", "--damaged", "fail", "-q"])
        #expect(f.status == ExitStatus.exportFailed, "\(f.stdout)\n\(f.stderr)")
        #expect(!FileManager.default.fileExists(atPath: failing.appendingPathComponent("cut.mp4").path))
    }
}
