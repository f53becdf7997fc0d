import Foundation
import Testing
@testable import MediaExport
@testable import MediaExportCore
@testable import MediaExportFFmpeg
@testable import mediaexport

/// One planner serves the single export, the fallback chain and the batch: they must agree on the same file.
@Suite("Planner: the chain and the batch agree")
struct PlannerAgreementTests {
    static func lastRecord(_ stdout: String) -> [String: Any] {
        stdout.split(separator: "\n").last.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] } ?? [:]
    }

    @Test("A WAV whose header says 0 channels reaches the byte copy (exit 3): no route can plan it")
    func wavWithoutChannelsEndsInByteCopy() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let wav = dir.appendingPathComponent("x.wav").path
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "sine=d=1", "-c:a", "pcm_s16le", wav])
        var bytes = try Data(contentsOf: URL(fileURLWithPath: wav))
        bytes[22] = 0; bytes[23] = 0  // NumChannels in the fmt chunk
        try bytes.write(to: URL(fileURLWithPath: wav))
        let r = try TestSupport.tool(["--json", "-y", wav, dir.appendingPathComponent("out.mp4").path])
        #expect(r.status == ExitStatus.completedWithFallback, "\(r.stdout)\n\(r.stderr)")
        let record = Self.lastRecord(r.stdout)
        let payload = record["payload"] as? [String: Any] ?? [:]
        #expect(record["kind"] as? String == "completed")
        #expect(payload["route"] as? String == "copy")
        let reasons = (payload["fallbacks"] as? [[String: Any]] ?? []).compactMap { $0["reason"] as? String }
        #expect(reasons.count == 2)
        #expect(reasons.first?.contains("channel count unknown") == true, "\(reasons)")
        #expect(try Data(contentsOf: dir.appendingPathComponent("out.wav")) == bytes, "the byte copy is exact")
        #expect(TestSupport.contents(dir) == ["out.wav", "x.wav"])
    }

    @Test("A truncated file that would otherwise fit: batch --policy needed and a single export both fall back (exit 3)")
    func truncatedFileFallsBackInBothPaths() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let whole = dir.appendingPathComponent("whole.mp4").path
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=320x240:d=4:r=30", "-f", "lavfi", "-i", "sine=d=4", "-c:v", "libx264",
                         "-crf", "40", "-pix_fmt", "yuv420p", "-c:a", "aac", "-b:a", "48k", "-ac", "1", "-movflags", "+faststart", "-shortest", whole])
        let wholeDir = dir.appendingPathComponent("whole")
        try FileManager.default.createDirectory(at: wholeDir, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: whole, toPath: wholeDir.appendingPathComponent("whole.mp4").path)
        let fits = try TestSupport.tool(["batch", wholeDir.path, "--out", dir.appendingPathComponent("wout").path, "--preset", "low",
                                         "--policy", "needed", "--dry-run", "--json", "-q"])
        #expect(fits.stdout.contains("\"action\":\"copy\""), "the uncut file already fits: \(fits.stdout)")
        let inputs = dir.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: inputs, withIntermediateDirectories: true)
        let data = try Data(contentsOf: URL(fileURLWithPath: whole))
        let cut = inputs.appendingPathComponent("cut.mp4").path
        try data.prefix(data.count / 2).write(to: URL(fileURLWithPath: cut))

        // The whole file fits `low`: the batch copies it. The cut one must not be copied as "already fits".
        let single = try TestSupport.tool(["--json", "-y", "--preset", "low", cut, dir.appendingPathComponent("single.mp4").path])
        #expect(single.status == ExitStatus.completedWithFallback, "\(single.stderr)")
        let batch = try TestSupport.tool(["batch", inputs.path, "--out", dir.appendingPathComponent("out").path, "--preset", "low",
                                          "--policy", "needed", "--json", "-q"])
        #expect(batch.status == ExitStatus.completedWithFallback, "\(batch.stdout)\n\(batch.stderr)")
        let planned = batch.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .first { $0["kind"] as? String == "planned" }
        let item = planned?["payload"] as? [String: Any] ?? [:]
        #expect(item["action"] as? String == "transcode")
        #expect((item["reason"] as? String)?.contains("the file is truncated") == true, "\(item)")
        let singleRoute = (Self.lastRecord(single.stdout)["payload"] as? [String: Any])?["route"] as? String
        #expect(singleRoute == "salvage")
    }

    /// What `batch --dry-run` plans for each asset, and the route its run takes (`failed` when it fails).
    /// A planned asset whose export the plan refuses (`BatchItem.refusal`) is planned as `failed`.
    static func plannedAndRun(_ folder: URL, out: URL, preset: String) throws -> (planned: [String: String], ran: [String: String], dry: Int32, run: Int32) {
        let dry = try TestSupport.tool(["batch", folder.path, "--out", out.path, "--preset", preset, "--dry-run", "--json", "-q"])
        let run = try TestSupport.tool(["batch", folder.path, "--out", out.path, "--preset", preset, "--json", "-q"])
        func records(_ r: TestSupport.RunResult) -> [[String: Any]] {
            r.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        }
        var planned: [String: String] = [:], ran: [String: String] = [:]
        for r in records(dry) where r["kind"] as? String == "planned" {
            let p = r["payload"] as? [String: Any] ?? [:]
            planned[p["key"] as? String ?? ""] = p["refusal"] != nil ? "failed" : p["action"] as? String
        }
        for r in records(run) {
            let asset = r["asset"] as? String ?? ""
            if r["kind"] as? String == "completed" { ran[asset] = (r["payload"] as? [String: Any])?["route"] as? String }
            if r["kind"] as? String == "failed" { ran[asset] = "failed" }
        }
        return (planned, ran, dry.status, run.status)
    }

    @Test("batch --dry-run plans the route each asset's run takes: a passthrough into a container that cannot hold a stream is refused, planned (passthrough and 1280x720)")
    func dryRunPlansWhatTheRunDoes() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let inputs = dir.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: inputs, withIntermediateDirectories: true)
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "sine=d=2", "-c:a", "libvorbis", inputs.appendingPathComponent("song.ogg").path])
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "sine=d=2", "-c:a", "flac", inputs.appendingPathComponent("take.flac").path])
        try FileManager.default.copyItem(atPath: TestSupport.fixture("landscape.mov"), toPath: inputs.appendingPathComponent("landscape.mov").path)
        try "not a movie".write(to: inputs.appendingPathComponent("broken.mov"), atomically: true, encoding: .utf8)
        for preset in ["passthrough", "1280x720"] {
            let r = try Self.plannedAndRun(inputs, out: dir.appendingPathComponent("out-\(preset)"), preset: preset)
            #expect(r.planned.count == 4, "\(preset): \(r.planned)")
            for (key, action) in r.planned {
                let want = key == "broken.mov" ? nil : action  // not media: rejected, never tried
                #expect(r.ran[key] == want, "\(preset) \(key): planned \(action), ran \(r.ran[key] ?? "nothing")")
            }
            #expect(r.dry == r.run, "\(preset): the dry run exits \(r.dry), the run \(r.run)")
        }
    }

    /// A 1-second 640x360 H.264 + AAC clip, as `ffmpeg` writes it to `path` with `extra` arguments (after the inputs).
    static func clip(_ path: String, extra: [String] = []) throws {
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=640x360:rate=30:duration=1", "-f", "lavfi", "-i", "sine=sample_rate=48000:duration=1"]
                               + extra + ["-c:v", "libx264", "-preset", "ultrafast", "-crf", "40", "-pix_fmt", "yuv420p", "-c:a", "aac", "-b:a", "64k",
                                          "-ac", "1", "-shortest", path])
    }

    @Test("policy needed: the batch plans, and a single export starts from, the same route for the same file (fits, same container, rotated into .mkv, an attachment)")
    func batchAndSingleExportStartAlike() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let inputs = dir.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: inputs, withIntermediateDirectories: true)
        try Self.clip(inputs.appendingPathComponent("fits.mp4").path)
        try Self.clip(dir.appendingPathComponent("plain.mp4").path)
        try TestSupport.ffmpeg(["-i", dir.appendingPathComponent("plain.mp4").path, "-c", "copy", "-metadata:s:v:0", "rotate=90",
                                inputs.appendingPathComponent("rotated.mp4").path])
        let font = dir.appendingPathComponent("f.ttf").path
        try Data(repeating: 7, count: 64).write(to: URL(fileURLWithPath: font))
        try TestSupport.ffmpeg(["-i", dir.appendingPathComponent("plain.mp4").path, "-attach", font, "-metadata:s:t", "mimetype=application/x-truetype-font",
                                "-c", "copy", inputs.appendingPathComponent("font.mkv").path])
        var mkv = try TestSupport.preset("low")
        mkv.name = "low-mkv"
        mkv.defaultExtension = "mkv"
        let expected: [String: [String: ExportRoute]] = [
            "low": ["fits.mp4": .copy, "rotated.mp4": .copy, "font.mkv": .remux],
            "low-mkv": ["fits.mp4": .remux, "rotated.mp4": .transcode, "font.mkv": .copy],
        ]
        for preset in [try TestSupport.preset("low"), mkv] {
            let out = dir.appendingPathComponent("out-\(preset.name)")
            var hashes: [String: String] = [:]
            let items = try BatchPlanner.makePlan(BatchOptions(inputs: [inputs.path], outputDirectory: out.path, preset: preset, policy: .needed),
                                                  hashes: &hashes).items
            #expect(items.count == 3)
            for item in items {
                #expect(item.route == expected[preset.name]?[item.key], "\(preset.name) \(item.key): \(item.reason)")
                var request = ExportRequest(input: item.input, output: dir.appendingPathComponent("single-\(preset.name)-\(item.key)").path
                                            + "." + preset.defaultExtension, preset: preset)
                request.policy = .needed
                let done = try ExportSession(request: request).run()
                #expect(done.route == item.route && done.fallbacks.isEmpty, "\(preset.name) \(item.key): ran \(done.route), planned \(item.route?.rawValue ?? "skip")")
            }
        }
    }
}
