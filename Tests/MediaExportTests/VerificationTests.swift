import Foundation
import Testing
@testable import MediaExport
@testable import MediaExportCore
@testable import MediaExportFFmpeg
@testable import mediaexport

/// Nothing silent (issue 14): every output is checked against its plan before it takes its name, each kept
/// stream is judged by its own duration, and everything dropped is counted and named.
@Suite("Verification and accounting")
struct VerificationTests {
    static func records(_ stdout: String) -> [[String: Any]] {
        stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    /// The last record's payload, its kind, and the fallback reasons on the way.
    static func outcome(_ r: TestSupport.RunResult) -> (kind: String?, payload: [String: Any], fallbacks: [String]) {
        let all = records(r.stdout)
        let last = all.last ?? [:]
        let reasons = all.filter { $0["kind"] as? String == "fallback" }.compactMap { ($0["payload"] as? [String: Any])?["reason"] as? String }
        return (last["kind"] as? String, last["payload"] as? [String: Any] ?? [:], reasons)
    }

    static func verification(_ payload: [String: Any]) -> (passed: Bool, checks: [[String: Any]]) {
        let v = payload["verification"] as? [String: Any] ?? [:]
        return (v["passed"] as? Bool ?? false, v["checks"] as? [[String: Any]] ?? [])
    }

    @Test("An .m4a of a clip whose audio (2 s) is shorter than its video (6 s) is a 2 s .m4a, exit 0 — not a truncated file")
    func shortAudioBesideLongVideo() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let input = dir.appendingPathComponent("clip.mp4").path
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "testsrc=d=6:s=320x240:r=30", "-f", "lavfi", "-i", "sine=d=2",
                         "-map", "0", "-map", "1", "-c:v", "libx264", "-c:a", "aac", input])
        let out = dir.appendingPathComponent("clip.m4a").path
        let r = try TestSupport.tool(["--json", "-p", "m4a", input, out])
        let (kind, payload, fallbacks) = Self.outcome(r)
        #expect(r.status == 0 && kind == "completed", "\(r.stdout)\n\(r.stderr)")
        #expect(fallbacks.isEmpty)
        #expect(payload["route"] as? String == "transcode")
        let probe = try FFprobe(out)
        #expect(probe.streams.map(\.type) == ["audio"])
        #expect(abs((probe.audio?.duration ?? 0) - 2) < 0.05, "audio \(probe.audio?.duration ?? -1) s")
        let v = Self.verification(payload)
        #expect(v.passed && v.checks.count >= 5)
        // The video the preset drops is named in the plan, not silent, and no warning: the preset asked for it.
        #expect(r.stdout.contains(#""reason":"preset m4a has no video""#), "\(r.stdout)")
        #expect(!(payload["warnings"] as? [String] ?? []).contains { $0.contains("dropped") }, "\(payload)")
    }

    @Test("Every completed record carries a passed verification with at least five checks: transcode, remux, byte copy")
    func completedRecordsAreVerified() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        for (preset, input, route) in [("highest", "landscape.mov", "transcode"), ("passthrough", "portrait-rotated.mov", "remux"),
                                       ("m4a", "audio.m4a", "transcode"), ("highest", "bad/no-decoder.mp4", "copy")] {
            let out = dir.appendingPathComponent("\(preset)-\((input as NSString).lastPathComponent).mp4").path
            let r = try TestSupport.tool(["--json", "-p", preset, TestSupport.fixture(input), out])
            let (kind, payload, _) = Self.outcome(r)
            #expect(kind == "completed" && payload["route"] as? String == route, "\(input): \(r.stdout)")
            let v = Self.verification(payload)
            #expect(v.passed, "\(input): \(v.checks)")
            #expect(v.checks.count >= 5, "\(input): \(v.checks.count) checks")
            #expect(v.checks.allSatisfy { ["passed", "skipped"].contains($0["outcome"] as? String ?? "") })
            #expect(v.checks.allSatisfy { $0["name"] is String && $0["expected"] is String && $0["measured"] is String })
        }
    }

    @Test("An output that loses its audio on the way fails verification and is never delivered as the transcode")
    func brokenOutputFallsBack() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let out = dir.appendingPathComponent("o.mp4").path
        var request = ExportRequest(input: TestSupport.fixture("landscape.mov"), output: out, preset: try TestSupport.preset("highest"))
        request.fallback = .auto
        let session = ExportSession(request: request)
        session.debugLoseStreamKind = .audio
        let events = LockedBox([ExportEvent]())
        session.onEvent = { e in events.withLock { $0.append(e) } }
        let done = try session.run()
        #expect(done.route == .remux, "the transcode's broken output must not complete")
        let fallbacks = events.withLock { $0 }.compactMap { e -> ExportEvent.Fallback? in if case .fallback(let f) = e { return f }; return nil }
        #expect(fallbacks.count == 1, "\(fallbacks)")
        // Clean input: the disagreement is the plan's mistake, said as such (issue 41).
        #expect(fallbacks.first?.reason.contains("internal plan mismatch") == true, "\(fallbacks)")
        #expect(fallbacks.first?.planMismatch == true)
        // The track with no samples is not in the file at all.
        #expect(fallbacks.first?.reason.contains("streams: expected video h264, audio aac, measured video h264") == true, "\(fallbacks)")
        #expect(done.verification?.passed == true)
        let probe = try FFprobe(out)
        #expect(probe.streams.map(\.type) == ["video", "audio"])
        #expect(TestSupport.contents(dir) == ["o.mp4"])

        // With no fallback allowed, the failure is the plan mismatch (exit 1), and nothing is left behind.
        var strict = request
        strict.fallback = .none
        strict.overwrite = true
        let failing = ExportSession(request: strict)
        failing.debugLoseStreamKind = .audio
        #expect(throws: ExportError.self) { try failing.run() }
        #expect(failing.error?.kind == .planMismatch)
        #expect(TestSupport.contents(dir) == ["o.mp4"])
    }

    @Test("Passthrough never drops a main stream: PCM audio into .mp4 is refused before any work, naming containers that can hold it")
    func passthroughKeepsEveryAudioStream() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let input = dir.appendingPathComponent("pcm.mov").path
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "testsrc=d=1:s=320x240:r=30", "-f", "lavfi", "-i", "sine=d=1",
                         "-c:v", "libx264", "-c:a", "pcm_s16le", input])
        let r = try TestSupport.tool(["--json", "-p", "passthrough", input, dir.appendingPathComponent("o.mp4").path])
        let (kind, _, fallbacks) = Self.outcome(r)
        // A healthy file is not byte-copied for a request its container cannot meet (issue 41): exit 65, nothing written.
        #expect(r.status == ExitStatus.notMedia, "\(r.stdout)")
        #expect(kind == "failed" && fallbacks.isEmpty)
        #expect(r.stderr.contains(".mp4 cannot hold audio stream #1 (pcm_s16le); .mov, .mkv can"), "\(r.stderr)")
        #expect(TestSupport.contents(dir) == ["pcm.mov"])
        // Into .mov the same passthrough keeps both streams.
        let mov = try TestSupport.tool(["--json", "-p", "passthrough", input, dir.appendingPathComponent("kept.mov").path])
        #expect(mov.status == 0, "\(mov.stdout)")
        #expect(try FFprobe(dir.appendingPathComponent("kept.mov").path).streams.map(\.codec) == ["h264", "pcm_s16le"])
    }

    @Test("Subtitles that run past the picture do not make a healthy MKV look truncated")
    func longerDroppedStreamIsNotTheMeasure() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let srt = dir.appendingPathComponent("s.srt").path
        try "1\n00:00:00,000 --> 00:00:09,000\nhello\n".write(toFile: srt, atomically: true, encoding: .utf8)
        let input = dir.appendingPathComponent("subs.mkv").path
        // mkvmerge-like: no per-track DURATION tags (the container's duration is the subtitles' 9 s).
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "testsrc=d=4:s=320x240:r=30", "-f", "lavfi", "-i", "sine=d=4", "-i", srt,
                         "-map", "0", "-map", "1", "-map", "2", "-c:v", "libx264", "-c:a", "aac", "-c:s", "srt",
                         "-map_metadata", "-1", "-metadata:s", "DURATION=", input])
        for name in ["o.mp4", "o.m4a"] {
            let out = dir.appendingPathComponent(name).path
            let r = try TestSupport.tool(["--json", "-p", name.hasSuffix("m4a") ? "m4a" : "highest", input, out])
            let (kind, payload, fallbacks) = Self.outcome(r)
            #expect(r.status == 0 && kind == "completed" && fallbacks.isEmpty, "\(name): \(r.stdout)")
            #expect(Self.verification(payload).passed)
            #expect(abs(try FFprobe(out).duration - 4) < 0.1)
        }
    }

    @Test("A file cut short still fails its transcode as truncated and falls back to a salvage (exit 3)")
    func truncatedStillFallsBack() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let whole = dir.appendingPathComponent("whole.mp4").path
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "testsrc2=d=6:s=640x480:r=30", "-f", "lavfi", "-i", "sine=d=6",
                         "-c:v", "libx264", "-b:v", "3M", "-c:a", "aac", "-movflags", "+faststart", whole])
        let data = try Data(contentsOf: URL(fileURLWithPath: whole))
        let cut = dir.appendingPathComponent("cut.mp4").path
        try data.prefix(data.count * 6 / 10).write(to: URL(fileURLWithPath: cut))
        for preset in ["highest", "m4a"] {
            let r = try TestSupport.tool(["--json", "-p", preset, cut, dir.appendingPathComponent("o-\(preset).mp4").path])
            let (_, payload, fallbacks) = Self.outcome(r)
            #expect(r.status == ExitStatus.completedWithFallback, "\(preset): \(r.stdout)")
            #expect(payload["route"] as? String == "salvage")
            #expect(payload["partial"] != nil)
            #expect(fallbacks.first?.contains("the file is truncated") == true, "\(fallbacks)")
        }
    }

    @Test("Exporting IMG_1234.MOV whose current version is IMG_E1234.MOV keeps the original's creation_time and location")
    func currentVersionKeepsCaptureMetadata() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let original = dir.appendingPathComponent("IMG_1234.MOV").path
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "testsrc=d=1:s=320x240:r=30", "-f", "lavfi", "-i", "sine=d=1", "-c:v", "libx264", "-c:a", "aac",
                         "-metadata", "creation_time=2024-06-01T12:34:56.000000Z", "-metadata", "location=+48.8584+002.2945/", original])
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "testsrc=d=1:s=320x240:r=30", "-f", "lavfi", "-i", "sine=d=1", "-c:v", "libx264", "-c:a", "aac",
                         "-map_metadata", "-1", dir.appendingPathComponent("IMG_E1234.MOV").path])
        let out = dir.appendingPathComponent("out.mp4").path
        let r = try TestSupport.tool(["--json", original, out])
        let (kind, payload, _) = Self.outcome(r)
        #expect(kind == "completed", "\(r.stdout)")
        #expect(((payload["version"] as? [String: Any])?["resource"] as? String)?.hasSuffix("IMG_E1234.MOV") == true)
        let probe = try FFprobe(out)
        #expect(probe.tags["creation_time"] == "2024-06-01T12:34:56.000000Z")
        #expect(probe.tags["location"]?.hasPrefix("+48.8584+002.2945") == true, "\(probe.tags)")
        #expect((payload["notes"] as? [String] ?? []).contains { $0.contains("taken from the original IMG_1234.MOV") })
        #expect(Self.verification(payload).checks.contains { $0["name"] as? String == "creation_time" && $0["outcome"] as? String == "passed" })
    }

    @Test("The human summary says what was verified on stdout; a WARNING line for each stream lost on stderr, not stdout")
    func humanSummaryWarns() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let input = dir.appendingPathComponent("two-videos.mp4").path
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "testsrc=d=1:s=320x240:r=10", "-f", "lavfi", "-i", "testsrc2=d=1:s=160x120:r=10",
                                "-map", "0", "-map", "1", "-c:v", "libx264", input])
        let r = try TestSupport.tool(["-p", "640x480", input, dir.appendingPathComponent("o.mp4").path])
        #expect(r.status == 0)
        #expect(r.stdout.contains("verified: "))
        #expect(r.stderr.contains("WARNING: stream #1 video (h264) dropped: only the main video stream is exported"), "\(r.stderr)")
        #expect(!r.stdout.contains("WARNING"), "\(r.stdout)")
    }

    @Test("The verifier fails a stream that is missing, short, or of the wrong size (pure)")
    func verifierCatchesMismatches() throws {
        let source = SourceInfo(path: "/in.mov", duration: 10, streams: [
            SourceStream(index: 0, kind: .video, codec: "h264", fitsIn: [.mp4], duration: 10, width: 1920, height: 1080, frameRate: 30),
            SourceStream(index: 1, kind: .audio, codec: "aac", fitsIn: [.mp4], duration: 10, channels: 2, sampleRate: 48000),
        ], mainVideo: 0, mainAudio: 1)
        let plan = try ExportPlanner.plan(source: source, preset: try TestSupport.preset("passthrough"), route: .remux, container: .mp4,
                                          edits: nil, range: nil)
        var video = OutputFacts.Stream(kind: .video, codec: "h264")
        video.width = 1920; video.height = 1080; video.duration = 10; video.timestampsIncreasing = true; video.frameCount = 300
        var audio = OutputFacts.Stream(kind: .audio, codec: "aac")
        audio.channels = 2; audio.sampleRate = 48000; audio.duration = 10; audio.timestampsIncreasing = true
        let delivered = [DeliveredStream(packets: 300, duration: 10), DeliveredStream(packets: 469, duration: 10)]
        let good = OutputFacts(formatName: "mov,mp4", streams: [video, audio], faststart: true)
        #expect(OutputVerifier.verify(plan: plan, source: source, facts: good, delivered: delivered, tags: [:]).passed)

        var shortAudio = good
        shortAudio.streams[1].duration = 9.9
        #expect(OutputVerifier.verify(plan: plan, source: source, facts: shortAudio, delivered: delivered, tags: [:]).failures.map(\.name)
                == ["stream #1 audio duration"])
        let missing = OutputFacts(formatName: "mov,mp4", streams: [video], faststart: true)
        #expect(OutputVerifier.verify(plan: plan, source: source, facts: missing, delivered: delivered, tags: [:]).failures.map(\.name) == ["streams"])
        var wrongSize = good
        wrongSize.streams[0].width = 1280
        #expect(OutputVerifier.verify(plan: plan, source: source, facts: wrongSize, delivered: delivered, tags: [:]).failures.map(\.name)
                == ["stream #0 video size"])
        var slow = good
        slow.faststart = false
        slow.streams[0].timestampsIncreasing = false
        #expect(OutputVerifier.verify(plan: plan, source: source, facts: slow, delivered: delivered, tags: ["creation_time": "2024-01-01T00:00:00Z"])
                .failures.map(\.name) == ["stream #0 video timestamps", "creation_time", "faststart"])
    }

    @Test("The verifier finds planned cover art after the tracks, as an attached picture, and checks no timeline of it (pure)")
    func verifierChecksCoverArt() throws {
        // The cover is the source's first stream; MP4 reads it back after its tracks (the `covr` atom is no track).
        let source = SourceInfo(path: "/in.mp3", duration: 10, streams: [
            SourceStream(index: 0, kind: .video, codec: "mjpeg", isAttachedPicture: true, fitsIn: [.mp4], width: 500, height: 500),
            SourceStream(index: 1, kind: .audio, codec: "aac", fitsIn: Set(Container.allCases), duration: 10, language: "eng",
                         channels: 2, sampleRate: 48000),
        ], mainVideo: 0, mainAudio: 1)
        let plan = try ExportPlanner.plan(source: source, preset: try TestSupport.preset("passthrough"), route: .remux, container: .m4a,
                                          edits: nil, range: nil)
        #expect(plan.streams.map(\.isCoverArt) == [true, false])
        var audio = OutputFacts.Stream(kind: .audio, codec: "aac")
        audio.channels = 2; audio.sampleRate = 48000; audio.duration = 10; audio.timestampsIncreasing = true; audio.frameCount = 469
        audio.language = "eng"
        var cover = OutputFacts.Stream(kind: .video, codec: "mjpeg")
        cover.isAttachedPicture = true
        // Written in the plan's order: the picture (one packet at 0), then the audio.
        let delivered = [DeliveredStream(packets: 1, duration: 0), DeliveredStream(packets: 469, duration: 10)]
        let good = OutputFacts(formatName: "mov,mp4", streams: [audio, cover], faststart: true)
        let verified = OutputVerifier.verify(plan: plan, source: source, facts: good, delivered: delivered, tags: [:])
        #expect(verified.passed, "\(verified.failureSummary)")
        #expect(verified.checks.first { $0.name == "streams" }?.expected == "audio aac, video mjpeg (cover art)")
        // Its size is compared once known (a header read of MP4 does not say).
        #expect(verified.checks.first { $0.name == "stream #1 video cover art size" }?.outcome == .skipped)
        var sized = good
        sized.streams[1].width = 500; sized.streams[1].height = 500
        #expect(OutputVerifier.verify(plan: plan, source: source, facts: sized, delivered: delivered, tags: [:])
                .checks.first { $0.name == "stream #1 video cover art size" }?.outcome == .passed)
        // Missing, or written as a one-frame video track instead of cover art: the streams are not as planned.
        let missing = OutputFacts(formatName: "mov,mp4", streams: [audio], faststart: true)
        #expect(OutputVerifier.verify(plan: plan, source: source, facts: missing, delivered: delivered, tags: [:]).failures.map(\.name) == ["streams"])
        var track = good
        track.streams[1].isAttachedPicture = false
        #expect(OutputVerifier.verify(plan: plan, source: source, facts: track, delivered: delivered, tags: [:]).failures.map(\.name) == ["streams"])
    }
}
