import Foundation
import Testing
@testable import MediaExportCore

/// Cuts as players see them, checked on the probed output against the ffmpeg CLI as the oracle (issue 41): a
/// passthrough cut into MP4/MOV starts at the requested frame behind an edit list, a source whose edit list hides
/// samples is read as shown, and a range of MPEG-PS/TS (whose clock does not start at 0) delivers what
/// `ffmpeg -ss 1 -to 3` decodes.
@Suite(.serialized) struct CutTests {
    /// The inputs, made once: H.264 with B-frames (30 fps, 6 s, a keyframe every 2 s) + AAC as .mp4 and .mov; a
    /// stream copy of it from 2.5 s (an edit list hides 15 lead-in frames); MPEG-PS and interlaced MPEG-TS.
    struct Inputs: Sendable {
        let dir: URL
        var bf: String { dir.appendingPathComponent("bf.mp4").path }
        var bfMOV: String { dir.appendingPathComponent("bf.mov").path }
        var cut: String { dir.appendingPathComponent("cut.mp4").path }
        var ps: String { dir.appendingPathComponent("ps.mpg").path }
        var ts: String { dir.appendingPathComponent("il.ts").path }
        /// H.264 with B-frames in MPEG-TS, a keyframe every second: a timestamp seek lands past the first keyframe.
        var h264TS: String { dir.appendingPathComponent("h264.ts").path }
    }

    /// Made once per machine into a temporary folder renamed into place whole (a concurrent run uses either its own
    /// or the first one's), and kept for the next run: 5 MB instead of a folder left behind by every run.
    static let inputs: Inputs = {
        let kept = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("mediaexport-tests-CutTests-inputs-v2")
        if FileManager.default.fileExists(atPath: kept.appendingPathComponent("h264.ts").path) { return Inputs(dir: kept) }
        let made = make(in: TestSupport.tempDir("CutTestsInputs"))
        if (try? FileManager.default.moveItem(at: made.dir, to: kept)) != nil { return Inputs(dir: kept) }
        return made
    }()

    static func make(in dir: URL) -> Inputs {
        let inputs = Inputs(dir: dir)
        let lavfi = ["-f", "lavfi", "-i", "testsrc2=size=640x360:rate=30:duration=6", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=6"]
        let h264 = ["-c:v", "libx264", "-preset", "veryfast", "-bf", "2", "-g", "60", "-keyint_min", "60", "-sc_threshold", "0", "-c:a", "aac"]
        try? TestSupport.ffmpeg(lavfi + h264 + [inputs.bf])
        try? TestSupport.ffmpeg(["-i", inputs.bf, "-c", "copy", inputs.bfMOV])
        try? TestSupport.ffmpeg(["-ss", "2.5", "-i", inputs.bf, "-c", "copy", inputs.cut])
        let pal = ["-f", "lavfi", "-i", "testsrc2=size=352x288:rate=25:duration=5", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=5"]
        try? TestSupport.ffmpeg(pal + ["-c:v", "mpeg2video", "-g", "12", "-bf", "0", "-b:v", "2M", "-c:a", "mp2", "-f", "mpeg", inputs.ps])
        try? TestSupport.ffmpeg(pal + ["-c:v", "mpeg2video", "-g", "12", "-b:v", "2M", "-flags", "+ilme+ildct", "-top", "1", "-c:a", "mp2",
                                       "-f", "mpegts", inputs.ts])
        try? TestSupport.ffmpeg(pal + ["-c:v", "libx264", "-preset", "veryfast", "-g", "25", "-bf", "2", "-c:a", "aac", "-f", "mpegts", inputs.h264TS])
        return inputs
    }

    /// The MD5 of the first video frame `ffmpeg` decodes from `path` (after `-ss seek` when given): what a player shows first.
    static func firstFrame(_ path: String, seek: Double? = nil) throws -> String {
        let ss = seek.map { ["-ss", String($0)] } ?? []
        let r = try TestSupport.run("/usr/bin/ffmpeg", ["-v", "error"] + ss + ["-i", path, "-map", "0:v", "-frames:v", "1", "-f", "framemd5", "-"])
        return String(r.stdout.split(separator: "\n").last { !$0.hasPrefix("#") }?.split(separator: ",").last ?? "").trimmingCharacters(in: .whitespaces)
    }

    /// Video frames a player shows (ffprobe decodes them: an edit list's hidden ones are left out).
    static func shownFrames(_ path: String) throws -> Int {
        let r = try TestSupport.run("/usr/bin/ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v", "-show_entries",
                                                         "stream=nb_read_frames", "-of", "csv=p=0", path])
        return Int(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    /// Video frames `ffmpeg -ss start -to end -i path` decodes: the oracle of a range.
    static func ffmpegFrames(_ path: String, start: Double, end: Double) throws -> Int {
        let r = try TestSupport.run("/usr/bin/ffmpeg", ["-v", "error", "-ss", String(start), "-to", String(end), "-i", path, "-map", "0:v", "-f", "framemd5", "-"])
        return r.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.count
    }

    /// Runs the tool with `--json`: its exit status, stderr, and the `completed` record.
    static func export(_ arguments: [String]) throws -> (status: Int32, stderr: String, completed: [String: Any]) {
        let r = try TestSupport.tool(["--json"] + arguments)
        let records = r.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let completed = records.first { $0["kind"] as? String == "completed" }?["payload"] as? [String: Any] ?? [:]
        return (r.status, r.stderr, completed)
    }

    @Test(arguments: ["mp4", "mov"])
    func passthroughCutStartsAtTheRequestedFrame(ext: String) throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let source = ext == "mp4" ? Self.inputs.bf : Self.inputs.bfMOV
        let out = dir.appendingPathComponent("cut.\(ext)").path
        let r = try Self.export(["--preset", "passthrough", "--start", "1", "--end", "3", source, out])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(!r.stderr.contains("fallback"), "\(r.stderr)")
        #expect(r.completed["route"] as? String != "copy" && (r.completed["fallbacks"] as? [Any])?.isEmpty == true)
        let probe = try FFprobe(out)
        #expect(abs(probe.duration - 2.0) <= 0.1, "duration \(probe.duration)")
        #expect(abs(try Self.shownFrames(out) - 60) <= 1)
        #expect(try Self.firstFrame(out) == Self.firstFrame(source, seek: 1))
        #expect((r.completed["notes"] as? [String])?.contains { $0.contains("edit list hides the 1.000 s") } == true)
    }

    /// A start on a keyframe (2 s) has no lead-in; a start alone runs to the end.
    @Test(arguments: [(2.0, 4.0 as Double?), (1.0, nil)])
    func passthroughCutOnAKeyframeOrToTheEnd(start: Double, end: Double?) throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let out = dir.appendingPathComponent("cut.mp4").path
        let range = ["--start", String(start)] + (end.map { ["--end", String($0)] } ?? [])
        let r = try Self.export(["--preset", "passthrough"] + range + [Self.inputs.bf, out])
        #expect(r.status == 0, "\(r.stderr)")
        let length = (end ?? 6) - start
        #expect(abs(try FFprobe(out).duration - length) <= 0.1)
        #expect(abs(try Self.shownFrames(out) - Int(length * 30)) <= 1)
        #expect(try Self.firstFrame(out) == Self.firstFrame(Self.inputs.bf, seek: start))
    }

    /// Matroska has no edit list: the copy starts at the keyframe before, and says so.
    @Test func passthroughCutIntoMatroskaStartsAtTheKeyframe() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let out = dir.appendingPathComponent("cut.mkv").path
        let r = try Self.export(["--preset", "passthrough", "--start", "1", "--end", "3", Self.inputs.bf, out])
        #expect(r.status == 0, "\(r.stderr)")
        #expect((r.completed["notes"] as? [String])?.contains { $0.contains("starts at the keyframe at 0.000 s") } == true)
        #expect(try Self.firstFrame(out) == Self.firstFrame(Self.inputs.bf))
        #expect(abs(try Self.shownFrames(out) - 90) <= 1)
    }

    /// A source whose edit list hides 15 frames shows 105 of its 120: a transcode delivers those, and verifies.
    @Test(arguments: ["low", "passthrough"])
    func aSourceTrimmedByItsEditListIsReadAsShown(preset: String) throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let out = dir.appendingPathComponent("out.mp4").path
        let r = try Self.export(["--preset", preset, Self.inputs.cut, out])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.completed["route"] as? String == (preset == "low" ? "transcode" : "remux"), "\(r.stderr)")
        let probe = try FFprobe(out)
        #expect(probe.video?.width == 640 && probe.video?.height == 360)
        #expect(try Self.shownFrames(out) == Self.shownFrames(Self.inputs.cut))
    }

    /// The same source copied into Matroska, which has no edit list: the hidden lead-in (15 frames from the keyframe)
    /// is shown, as the ffmpeg CLI's copy shows it — planned and said, not a plan mismatch ending in a byte copy.
    @Test func aSourceTrimmedByItsEditListIsCopiedIntoMatroskaWithItsLeadIn() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let out = dir.appendingPathComponent("out.mkv").path
        let r = try Self.export(["--preset", "passthrough", Self.inputs.cut, out])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.completed["route"] as? String == "remux" && (r.completed["fallbacks"] as? [Any])?.isEmpty != false, "\(r.stderr)")
        let notes = r.completed["notes"] as? [String] ?? []
        #expect(notes.contains { $0.contains("the source's edit list hides 0.500 s before its start") }, "\(notes)")
        #expect(try Self.shownFrames(out) == Self.shownFrames(Self.inputs.cut) + 15)
    }

    /// An Apple trim with passthrough: cut to the trim behind an edit list, never a byte copy of the whole clip.
    @Test func anAppleTrimWithPassthroughIsCut() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let movie = try AppleEditTests.asset(dir, number: 8, seconds: 4, fps: 30, aae: "trim.AAE")
        let out = dir.appendingPathComponent("trim.mov").path
        let r = try Self.export(["--preset", "passthrough", movie, out])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.completed["route"] as? String != "copy" && (r.completed["fallbacks"] as? [Any])?.isEmpty == true)
        let trim = (248936.0 - 46059.0) / 90000
        #expect(abs(try FFprobe(out).duration - trim) <= 2.0 / 30 + 0.001)
        #expect(try Self.firstFrame(out) == Self.firstFrame(movie, seek: 46059.0 / 90000))
    }

    /// A range of a source whose clock starts later than 0 (MPEG-PS at 0.5 s, MPEG-TS at 1.4 s) counts from its
    /// start, as ffmpeg's `-ss`: the frames ffmpeg decodes, no damage reported, and the record's duration is the file's.
    @Test(arguments: ["ps", "ts", "h264TS"])
    func aRangeOfMPEGDeliversWhatFFmpegDecodes(kind: String) throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let source = ["ps": Self.inputs.ps, "ts": Self.inputs.ts][kind] ?? Self.inputs.h264TS
        let out = dir.appendingPathComponent("range.mp4").path
        let r = try Self.export(["--preset", "1280x720", "--start", "1", "--end", "3", source, out])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.completed["route"] as? String == "transcode")
        #expect(r.completed["skippedPackets"] as? Int == 0)
        #expect(!r.stderr.contains("corrupt"), "\(r.stderr)")
        let oracle = try Self.ffmpegFrames(source, start: 1, end: 3)
        #expect(abs(try Self.shownFrames(out) - oracle) <= 1, "ffmpeg decodes \(oracle)")
        let duration = try #require(r.completed["duration"] as? Double)
        #expect(abs(try FFprobe(out).duration - duration) <= 1.0 / 25 + 0.001)
    }
}
