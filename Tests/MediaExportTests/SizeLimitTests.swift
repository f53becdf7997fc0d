import Foundation
import Testing
@testable import MediaExport
@testable import MediaExportCore

/// `video.bitrate` with `video.twoPass`, `--max-size` / `maxFileSize` (AVAssetExportSession's `fileLengthLimit`), and the
/// `started` record's `estimatedBytes`.
@Suite struct SizeLimitTests {
    /// 10 s of 1080p30 camera-like noise (a CRF encode of it is megabytes) with a tone: made once per test.
    static func noisySource(_ dir: URL, seconds: Int = 10, size: String = "1920x1080") throws -> String {
        let source = dir.appendingPathComponent("noise.mp4").path
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=\(size):rate=30:duration=\(seconds),noise=alls=14:allf=t",
                                "-f", "lavfi", "-i", "sine=f=440:d=\(seconds)", "-c:v", "libx264", "-preset", "ultrafast", "-crf", "20",
                                "-c:a", "aac", "-b:a", "160k", "-shortest", source])
        return source
    }

    static func probe(_ path: String, _ entries: String) throws -> [String] {
        let r = try TestSupport.run("/usr/bin/ffprobe", ["-v", "error", "-show_entries", entries, "-of", "csv=p=0", path])
        return r.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    static func events(_ session: ExportSession) -> LockedBox<[ExportEvent]> {
        let box = LockedBox<[ExportEvent]>([])
        session.onEvent = { e in box.withLock { $0.append(e) } }
        return box
    }

    @Test func maxSizeFitsTenSecondsOf1080pIn400000Bytes() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let source = try Self.noisySource(dir)
        let output = dir.appendingPathComponent("small.mp4").path
        var request = ExportRequest(input: source, output: output, preset: try TestSupport.preset("highest"))
        request.maxFileSize = 400_000
        let session = ExportSession(request: request)
        let events = Self.events(session)
        let completed = try session.run()
        let size = try #require((try FileManager.default.attributesOfItem(atPath: output)[.size] as? NSNumber)?.int64Value)
        #expect(size <= 400_000, "\(size) bytes")
        #expect(size >= 300_000, "the budget is used, not wasted: \(size) bytes")
        // Complete: both streams, 10 s each, every frame.
        let durations = try Self.probe(output, "stream=codec_type,duration,nb_frames")
        #expect(durations.count == 2)
        for line in durations {
            let fields = line.split(separator: ",")
            #expect(abs((Double(fields[1]) ?? 0) - 10) < 0.05, "\(line)")
            if fields[0] == "video" { #expect(fields[2] == "300", "\(line)") }
        }
        #expect(completed.notes.contains { $0.hasPrefix("size limit 400000 bytes: video at") && $0.contains("two passes") }, "\(completed.notes)")
        #expect(completed.verification?.checks.contains { $0.name == "file size" && $0.outcome == .passed } == true)
        let started = try #require(events.withLock { $0 }.compactMap { if case .started(let s) = $0 { return s }; return nil }.first)
        #expect(started.maxFileSize == 400_000)
    }

    /// The two-pass statistics live in a private folder of `$TMPDIR` that is gone when the export ends (the tool runs
    /// with a `TMPDIR` of its own here: other tests of this process run two-pass exports at the same time).
    @Test func twoPassStatisticsLeaveNothingBehind() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let source = try Self.noisySource(dir, seconds: 3, size: "640x360")
        let tmp = dir.appendingPathComponent("tmp")
        try FileManager.default.createDirectory(at: tmp, withIntermediateDirectories: true)
        // A dead export's folder (PID 2^22 + 1 is above Linux's PID limit): swept by the next two-pass export.
        let stale = tmp.appendingPathComponent("mediaexport-2pass-4194305-abcdef")
        try FileManager.default.createDirectory(at: stale, withIntermediateDirectories: true)
        try Data("x".utf8).write(to: stale.appendingPathComponent("passlog"))
        let r = try TestSupport.run(TestSupport.binary, ["--preset", "low", "--max-size", "60k", "--json", source, dir.appendingPathComponent("o.mp4").path],
                                    environment: ["TMPDIR": tmp.path])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("two passes"), "\(r.stdout)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: tmp.path).isEmpty)
    }

    @Test func aLimitThatCannotBeMetFailsWithTheReasonAndWritesNothing() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let source = try Self.noisySource(dir, seconds: 4, size: "640x360")
        let output = dir.appendingPathComponent("tiny.mp4").path
        let r = try TestSupport.tool(["--preset", "1280x720", "--max-size", "20k", "-q", source, output])
        #expect(r.status == 1, "\(r.stderr)")
        #expect(r.stderr.contains("cannot fit in 20000 bytes: 4.0 s of"), "\(r.stderr)")
        #expect(TestSupport.contents(dir) == ["noise.mp4"])
        // Passthrough cannot lower anything: checked, refused, nothing left.
        let copy = try TestSupport.tool(["--preset", "passthrough", "--max-size", "50000", "--json", source, dir.appendingPathComponent("p.mp4").path])
        #expect(copy.status == 1)
        #expect(copy.stdout.contains(#""error":"sizeLimitExceeded""#), "\(copy.stdout)")
        #expect(TestSupport.contents(dir) == ["noise.mp4"])
    }

    /// A batch holds every file to the limit; a run with another limit redoes them (the limit is part of what the
    /// resume compares), and a file already under the limit that "fits" still does.
    @Test func batchHoldsEveryFileToTheLimit() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let input = dir.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        for name in ["a", "b"] {
            try TestSupport.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=960x540:rate=30:duration=4,noise=alls=14:allf=t", "-f", "lavfi",
                                    "-i", "sine=d=4", "-c:v", "libx264", "-preset", "ultrafast", "-crf", "18", "-c:a", "aac",
                                    input.appendingPathComponent("\(name).mp4").path])
        }
        let out = dir.appendingPathComponent("out").path
        let first = try TestSupport.tool(["batch", input.path, "--out", out, "--preset", "medium", "--max-size", "150k", "-q"])
        #expect(first.status == 0, "\(first.stderr)")
        for name in ["a", "b"] {
            let size = try #require((try FileManager.default.attributesOfItem(atPath: out + "/\(name).mp4")[.size] as? NSNumber)?.int64Value)
            #expect(size <= 150_000 && size > 100_000, "\(name): \(size)")
        }
        let again = try TestSupport.tool(["batch", input.path, "--out", out, "--preset", "medium", "--max-size", "120k", "--json"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(!again.stdout.contains(#""action":"skip""#), "\(again.stdout)")
        for name in ["a", "b"] {
            let size = try #require((try FileManager.default.attributesOfItem(atPath: out + "/\(name).mp4")[.size] as? NSNumber)?.int64Value)
            #expect(size <= 120_000, "\(name): \(size)")
        }
    }

    @Test func maxSizeTakesUnitsAndRefusesNonsense() throws {
        #expect(ByteSize(parsing: "400000")?.bytes == 400_000)
        #expect(ByteSize(parsing: "16MB")?.bytes == 16_000_000)
        #expect(ByteSize(parsing: "500k")?.bytes == 500_000)
        #expect(ByteSize(parsing: "1.5GiB")?.bytes == 1_610_612_736)
        #expect(ByteSize(parsing: "2 MiB")?.bytes == 2_097_152)
        for bad in ["", "MB", "-5", "1.2.3k", "10x", "0", "nan", "1e400"] { #expect(ByteSize(parsing: bad) == nil, "\(bad)") }
        let r = try TestSupport.tool(["--preset", "highest", "--max-size", "12 furlongs", "in.mp4", "out.mp4"])
        #expect(r.status == 64)
        #expect(r.stderr.contains("--max-size takes a size"), "\(r.stderr)")
    }

    @Test func presetKeysAreValidated() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        for (json, field, reason) in [
            (#"{"name":"x","video":{"codec":"h264","crf":20,"bitrate":500000}}"#, "video.bitrate", "give either crf or bitrate, not both"),
            (#"{"name":"x","video":{"codec":"h264","bitrate":5}}"#, "video.bitrate", "must be between 10000 and 2000000000 bits/s, got 5"),
            (#"{"name":"x","video":{"codec":"h264","twoPass":true}}"#, "video.twoPass", "needs video.bitrate (a CRF encode has nothing to aim for)"),
            (#"{"name":"x","video":{"codec":"h264","bitrate":900000,"maxBitrate":500000}}"#, "video.maxBitrate", "must be at least video.bitrate (900000), got 500000"),
            (#"{"name":"x","video":{"codec":"h264"},"maxFileSize":"5k"}"#, "maxFileSize", "must be at least 10000 bytes, got 5000"),
        ] {
            let file = dir.appendingPathComponent("p.json")
            try Data(json.utf8).write(to: file)
            #expect(throws: ExportError.invalidPreset(path: file.path, field: field, reason: reason)) { try PresetCatalog.load(file: file) }
        }
        let file = dir.appendingPathComponent("bad-size.json")
        try Data(#"{"name":"x","video":{"codec":"h264"},"maxFileSize":"lots"}"#.utf8).write(to: file)
        #expect(throws: ExportError.invalidPreset(path: file.path, field: "maxFileSize", reason: "not a size (use bytes, or e.g. 500k, 16MB, 1.5GiB)")) {
            try PresetCatalog.load(file: file)
        }
        let ok = dir.appendingPathComponent("ok.json")
        try Data(#"{"name":"ok","video":{"codec":"hevc","bitrate":800000,"twoPass":true},"maxFileSize":"16MB"}"#.utf8).write(to: ok)
        let preset = try PresetCatalog.load(file: ok)
        #expect(preset.video?.bitrate == 800_000 && preset.video?.twoPass == true && preset.maxFileSize == 16_000_000)
    }

    /// An average bit rate in two passes lands on it (x264 and x265 alike), and a one-pass average is honoured too.
    @Test(arguments: [(VideoCodec.h264, true), (.hevc, true), (.h264, false)])
    func averageBitrateIsMet(codec: VideoCodec, twoPass: Bool) throws {
        let dir = TestSupport.tempDir("avg-\(codec)-\(twoPass)")
        defer { TestSupport.cleanup(dir) }
        let source = try Self.noisySource(dir, seconds: 6, size: "640x360")
        var settings = VideoSettings(codec: codec, encoderPreset: "ultrafast")
        settings.bitrate = 300_000
        settings.twoPass = twoPass
        let preset = Preset(name: "avg", video: settings, audio: AudioSettings())
        let output = dir.appendingPathComponent("avg.mp4").path
        try ExportSession(request: ExportRequest(input: source, output: output, preset: preset)).run()
        let rate = try #require(Int(Self.probe(output, "stream=bit_rate").first ?? ""))
        #expect(abs(Double(rate) / 300_000 - 1) < (twoPass ? 0.08 : 0.2), "\(rate) b/s")
        #expect(try Self.probe(output, "stream=nb_frames").first == "180")
    }

    /// Done-when: `estimatedBytes` within a factor of 2 of the real size for a `1280x720` export, on noise and on a
    /// test pattern (sizes a bits-per-pixel guess gets wrong in opposite directions), when samples are asked for.
    /// Without asking, the estimate says it is a guess, and the progress records' projection comes close.
    @Test(arguments: [true, false])
    func estimateIsWithinAFactorOfTwo(noise: Bool) throws {
        let dir = TestSupport.tempDir("estimate-\(noise)")
        defer { TestSupport.cleanup(dir) }
        let source = dir.appendingPathComponent("src.mp4").path
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=30:duration=8" + (noise ? ",noise=alls=10:allf=t" : ""),
                                "-f", "lavfi", "-i", "sine=f=440:d=8", "-c:v", "libx264", "-preset", "ultrafast", "-crf", "18", "-c:a", "aac", source])
        let (estimate, real) = try Self.sampledEstimate(source, into: dir.appendingPathComponent("out.mp4").path)
        let ratio = Double(estimate) / Double(real)
        #expect(ratio > 0.5 && ratio < 2, "estimate \(estimate), real \(real)")

        // The default: no sample encode, an estimate that says it is a guess; the projection from the packets written
        // (once a tenth is done) comes within 25 % of the real size before the end.
        let plainOutput = dir.appendingPathComponent("plain.mp4").path
        let plain = ExportSession(request: ExportRequest(input: source, output: plainOutput, preset: try TestSupport.preset("1280x720")))
        plain.progressInterval = 0
        let plainEvents = Self.events(plain)
        let done = try plain.run()
        let all = plainEvents.withLock { $0 }
        let plainStarted = try #require(all.compactMap { if case .started(let s) = $0 { return s }; return nil }.first)
        #expect(plainStarted.estimateMethod == .guess)
        // Mid-run ones (the final record's is the file itself).
        let projections = all.compactMap { if case .progress(let p) = $0, p.fraction < 0.9 { return p.projectedBytes }; return nil }
        let last = try #require(projections.last)
        #expect(abs(Double(last) / Double(done.bytes) - 1) < 0.25, "projected \(last), real \(done.bytes)")
        // From the encoded packets against the output time they cover, not the bytes on disk (which lag the input's
        // progress by the encoder's lookahead and the muxer's interleaving): close already at a fifth to a half.
        let early = try #require(all.compactMap { if case .progress(let p) = $0, p.fraction >= 0.2, p.fraction <= 0.5 { return p.projectedBytes }; return nil }.first)
        #expect(abs(Double(early) / Double(done.bytes) - 1) < 0.35, "projected \(early) early, real \(done.bytes)")
    }

    /// A screen-like clip with a silent track: the audio is measured with the video samples (an AAC encoder spends a
    /// few kb/s of its nominal 160 on silence, which would otherwise be most of the estimate), and the video samples,
    /// encoded with frames on either side of those measured, come close on a pattern and on a still. A track that ends
    /// before the picture (3 s of 8: the last samples have no audio) is measured where it plays.
    @Test(arguments: [("testsrc2=size=640x360:rate=30:duration=8", "anullsrc=r=48000:cl=stereo"),
                      ("color=c=white:size=640x360:rate=30:duration=8,drawbox=x=40:y=40:w=200:h=100:c=black", "anullsrc=r=48000:cl=stereo"),
                      ("testsrc2=size=640x360:rate=30:duration=8", "sine=f=440:d=3")])
    func silentAudioAndVideoSamplesAreMeasured(video: String, audio: String) throws {
        let dir = TestSupport.tempDir("estimate-silent")
        defer { TestSupport.cleanup(dir) }
        let source = dir.appendingPathComponent("src.mp4").path
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", video, "-f", "lavfi", "-i", audio, "-t", "8",
                                "-c:v", "libx264", "-preset", "ultrafast", "-crf", "18", "-c:a", "aac", source])
        let (estimate, real) = try Self.sampledEstimate(source, into: dir.appendingPathComponent("out.mp4").path)
        let ratio = Double(estimate) / Double(real)
        #expect(ratio > 0.8 && ratio < 1.25, "estimate \(estimate), real \(real)")
    }

    /// Exports `source` through `1280x720` with samples asked for: the `started` record's estimate (its method checked
    /// to be `samples`) and the real size.
    static func sampledEstimate(_ source: String, into output: String) throws -> (estimate: Int64, real: Int64) {
        var request = ExportRequest(input: source, output: output, preset: try TestSupport.preset("1280x720"))
        request.estimate = .samples
        let session = ExportSession(request: request)
        let events = Self.events(session)
        let completed = try session.run()
        let started = try #require(events.withLock { $0 }.compactMap { if case .started(let s) = $0 { return s }; return nil }.first)
        #expect(started.estimateMethod == .samples)
        return (try #require(started.estimatedBytes), completed.bytes)
    }

    /// On a still, the first keyframe is most of the file: the projection counts it once instead of for every stretch
    /// of the length (3-4x at a fifth done when it did).
    @Test func theProjectionCountsAStillsFirstKeyframeOnce() throws {
        let dir = TestSupport.tempDir("projection-still")
        defer { TestSupport.cleanup(dir) }
        let source = dir.appendingPathComponent("still.mp4").path
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=25,trim=end_frame=1,loop=loop=-1:size=1", "-t", "6",
                                "-c:v", "libx264", "-preset", "ultrafast", "-crf", "15", "-pix_fmt", "yuv420p", source])
        let session = ExportSession(request: ExportRequest(input: source, output: dir.appendingPathComponent("out.mp4").path,
                                                           preset: try TestSupport.preset("1280x720")))
        session.progressInterval = 0
        let events = Self.events(session)
        let done = try session.run()
        let early = events.withLock { $0 }.compactMap { e -> Int64? in
            if case .progress(let p) = e, p.fraction >= 0.2, p.fraction <= 0.5 { return p.projectedBytes }
            return nil
        }
        #expect(!early.isEmpty)
        for projected in early {
            let ratio = Double(projected) / Double(done.bytes)
            #expect(ratio > 0.67 && ratio < 1.5, "projected \(projected), real \(done.bytes)")
        }
    }
}
