import Foundation
import Testing
@testable import MediaExport
@testable import MediaExportCore

/// `video.maxFrameRate` through real exports: frames left out evenly, the output's rate, length and timestamps as
/// ffprobe reads them, and the notes that say so.
@Suite struct FrameRateCapExportTests {
    /// What ffprobe counts and reads of the first video stream (`-count_frames`), and its packets' timestamps.
    struct Probe {
        var frames: Int
        var rFrameRate: Double
        var avgFrameRate: Double
        var duration: Double
        var timestamps: [Double]

        init(_ path: String) throws {
            let r = try TestSupport.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "v:0", "-count_frames", "-show_entries",
                                                             "stream=nb_read_frames,r_frame_rate,avg_frame_rate,duration", "-of", "json", path])
            let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], "ffprobe: \(r.stderr)")
            let stream = try #require((json["streams"] as? [[String: Any]])?.first, "no video stream in \(path)")
            func rate(_ key: String) -> Double {
                let parts = (stream[key] as? String ?? "0/1").split(separator: "/").compactMap { Double($0) }
                return parts.count == 2 && parts[1] > 0 ? parts[0] / parts[1] : 0
            }
            frames = Int(stream["nb_read_frames"] as? String ?? "") ?? -1
            rFrameRate = rate("r_frame_rate")
            avgFrameRate = rate("avg_frame_rate")
            duration = Double(stream["duration"] as? String ?? "") ?? 0
            let p = try TestSupport.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts_time",
                                                             "-of", "csv=p=0", path])
            timestamps = p.stdout.split(separator: "\n").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }.sorted()
        }

        /// Presentation times strictly increase (no two frames at one time).
        var increasing: Bool { zip(timestamps.dropFirst(), timestamps).allSatisfy { $0 > $1 } }
    }

    /// `seconds` of `fps` test pattern (H.264 in MP4, with a beep track), made with the ffmpeg CLI.
    static func clip(_ dir: URL, fps: Int, seconds: Double = 2, name: String? = nil, extra: [String] = []) throws -> String {
        let path = dir.appendingPathComponent(name ?? "src\(fps).mp4").path
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=\(fps):duration=\(seconds)", "-f", "lavfi", "-i", "sine=d=\(seconds)",
                                "-c:v", "libx264", "-preset", "ultrafast"] + extra + ["-c:a", "aac", "-shortest", path])
        return path
    }

    static func export(_ source: String, cap: Double, dir: URL) throws -> (ExportEvent.Completed, String) {
        var preset = try TestSupport.preset("low")
        preset.video?.maxFrameRate = cap
        let out = dir.appendingPathComponent("out-\(UUID().uuidString.prefix(6)).mp4").path
        let completed = try ExportSession(request: ExportRequest(input: source, output: out, preset: preset)).run()
        return (completed, out)
    }

    @Test func twoFortyFramesASecondCappedAtThirty() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let (completed, out) = try Self.export(try Self.clip(dir, fps: 240), cap: 30, dir: dir)
        let probe = try Probe(out)
        #expect(probe.frames == 60)
        #expect(abs(probe.rFrameRate - 30) < 0.01 && abs(probe.avgFrameRate - 30) < 0.01, "\(probe.rFrameRate) \(probe.avgFrameRate)")
        // The last kept frame (1.967 s) lasts until 2 s, where the source's last frame ends.
        #expect(abs(probe.duration - 2) < 1.0 / 240, "\(probe.duration)")
        #expect(probe.increasing && probe.timestamps.count == 60)
        // Every 8th frame: 1/30 s apart.
        #expect(zip(probe.timestamps.dropFirst(), probe.timestamps).allSatisfy { abs($0 - $1 - 1.0 / 30) < 0.001 })
        // Planned, so not a loss: said in the notes, not counted as dropped.
        #expect(completed.notes.contains("frame rate capped at 30 fps (source 240 fps): 7 of every 8 frames left out"), "\(completed.notes)")
        #expect(completed.notes.contains("frame rate capped at 30 fps: 420 of 480 frames left out"), "\(completed.notes)")
        #expect(completed.droppedFrames == 0 && completed.warnings.isEmpty, "\(completed.warnings)")
        #expect(completed.verification?.checks.first { $0.name == "stream #0 video frames" }?.expected == "60 (as written), at most 61")
    }

    @Test func aSourceUnderTheCapKeepsEveryFrame() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let (completed, out) = try Self.export(try Self.clip(dir, fps: 25), cap: 30, dir: dir)
        let probe = try Probe(out)
        #expect(probe.frames == 50 && abs(probe.avgFrameRate - 25) < 0.01 && abs(probe.duration - 2) < 0.04)
        #expect(!completed.notes.contains { $0.contains("frame rate") }, "\(completed.notes)")
    }

    @Test func fiftyCappedAtThirtyKeepsThreeOfEveryFive() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let (completed, out) = try Self.export(try Self.clip(dir, fps: 50), cap: 30, dir: dir)
        let probe = try Probe(out)
        #expect(probe.frames == 60)
        // MP4's average counts the samples' decode-time durations: with B-frames and uneven gaps the last one decoded
        // is not the last shown, and the average comes out a little off (29.9 here) while the stream lasts 2 s.
        #expect(abs(probe.avgFrameRate - 30) < 0.15 && abs(probe.duration - 2) < 1.0 / 50, "\(probe.avgFrameRate) \(probe.duration)")
        // The source's own timing: 1/50 or 2/50 s apart, never closer than one source frame.
        #expect(probe.increasing)
        #expect(zip(probe.timestamps.dropFirst(), probe.timestamps).allSatisfy { abs($0 - $1 - 0.02) < 0.001 || abs($0 - $1 - 0.04) < 0.001 })
        #expect(completed.notes.contains("frame rate capped at 30 fps: 40 of 100 frames left out"), "\(completed.notes)")
        #expect(completed.droppedFrames == 0)
    }

    @Test func theFilterGraphPathIsCappedToo() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        // Interlaced (top field first) 60 frames/s: deinterlaced by bwdif in the filter graph.
        let source = try Self.clip(dir, fps: 60, extra: ["-flags", "+ildct+ilme", "-x264opts", "tff=1", "-field_order", "tt"])
        let (completed, out) = try Self.export(source, cap: 30, dir: dir)
        let probe = try Probe(out)
        #expect(probe.frames == 60 && abs(probe.avgFrameRate - 30) < 0.01 && abs(probe.duration - 2) < 1.0 / 60, "\(probe.frames) \(probe.duration)")
        #expect(probe.increasing)
        #expect(completed.notes.contains { $0.contains("deinterlaced") }, "\(completed.notes)")
        #expect(completed.notes.contains("frame rate capped at 30 fps: 60 of 120 frames left out"), "\(completed.notes)")
    }

    @Test func slowMotionIsCappedOnTheOutputTimeline() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        // 3 s at 240 fps, 1–2 s played at 1/8: 30 frames/s there, nothing to leave out; 240 elsewhere, 7 of 8 left out.
        let movie = try Self.clip(dir, fps: 240, seconds: 3, name: "IMG_0001.MOV")
        try Data(#"{"formatVersion":1,"slowMotion":{"rate":0.125,"regions":[{"start":1,"duration":1}]}}"#.utf8)
            .write(to: dir.appendingPathComponent("IMG_0001.edit.json"))
        let (completed, out) = try Self.export(movie, cap: 30, dir: dir)
        let probe = try Probe(out)
        #expect(probe.frames == 30 + 240 + 30, "\(probe.frames)")
        #expect(abs(probe.duration - 10) < 1.0 / 30, "\(probe.duration)")
        #expect(probe.increasing)
        #expect(completed.notes.contains("frame rate capped at 30 fps: 420 of 720 frames left out"), "\(completed.notes)")
    }

    @Test(arguments: [
        (#"{"name":"x","video":{"codec":"h264","maxFrameRate":0}}"#, "must be between 1 and 240 frames/s, got 0"),
        (#"{"name":"x","video":{"codec":"h264","maxFrameRate":300}}"#, "must be between 1 and 240 frames/s, got 300"),
        (#"{"name":"x","video":{"codec":"h264","maxFrameRate":0.5}}"#, "must be between 1 and 240 frames/s, got 0.5"),
    ])
    func maxFrameRateIsValidated(json: String, reason: String) throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let file = dir.appendingPathComponent("p.json")
        try Data(json.utf8).write(to: file)
        #expect(throws: ExportError.invalidPreset(path: file.path, field: "video.maxFrameRate", reason: reason)) { try PresetCatalog.load(file: file) }
    }

    @Test func maxFrameRateLoads() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let file = dir.appendingPathComponent("ok.json")
        try Data(#"{"name":"ok","video":{"codec":"h264","maxFrameRate":29.97}}"#.utf8).write(to: file)
        #expect(try PresetCatalog.load(file: file).video?.maxFrameRate == 29.97)
        try Data(#"{"name":"ok","video":{"codec":"h264"}}"#.utf8).write(to: file)
        #expect(try PresetCatalog.load(file: file).video?.maxFrameRate == nil)
        // A wrong type names the field too.
        try Data(#"{"name":"x","video":{"codec":"h264","maxFrameRate":"30"}}"#.utf8).write(to: file)
        do {
            _ = try PresetCatalog.load(file: file)
            Issue.record("a string was accepted")
        } catch let ExportError.invalidPreset(_, field, _) {
            #expect(field == "video.maxFrameRate")
        }
    }
}
