import Foundation
import Testing
@testable import MediaExport
@testable import MediaExportCore
@testable import MediaExportFFmpeg

/// Same input, same bytes: every run on one machine, and with `--deterministic` on any x86-64 CPU and core count
/// (issue 28; docs/reproducible-outputs.md).
@Suite struct ReproducibilityTests {
    /// An iPhone-like clip: several QuickTime metadata keys, which a Dictionary's order used to shuffle in the file.
    static func quickTimeKeysClip(in dir: URL) throws -> String {
        let path = dir.appendingPathComponent("IMG_0100.MOV").path
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=320x240:d=1", "-f", "lavfi", "-i", "sine=d=1",
                                "-c:v", "libx264", "-c:a", "aac", "-movflags", "use_metadata_tags",
                                "-metadata", "com.apple.quicktime.make=Apple", "-metadata", "com.apple.quicktime.model=iPhone 15",
                                "-metadata", "com.apple.quicktime.software=17.1",
                                "-metadata", "com.apple.quicktime.location.ISO6709=+48.8584+002.2945/",
                                "-metadata", "creation_time=2024-05-01T12:34:56Z", path])
        return path
    }

    /// A Matroska file with two audio tracks, subtitles and chapters (its segment and track UIDs used to be random).
    static func richMatroska(in dir: URL) throws -> String {
        let srt = dir.appendingPathComponent("s.srt")
        try "1\n00:00:00,000 --> 00:00:01,000\nHello\n".write(to: srt, atomically: true, encoding: .utf8)
        let chapters = try TestSupport.twoChapters(in: dir, title: "Two tracks")
        let path = dir.appendingPathComponent("rich.mkv").path
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=320x240:d=4", "-f", "lavfi", "-i", "sine=f=440:d=4",
                                "-f", "lavfi", "-i", "sine=f=880:d=4", "-i", srt.path, "-i", chapters.path,
                                "-map", "0", "-map", "1", "-map", "2", "-map", "3", "-map_metadata", "4", "-map_chapters", "4",
                                "-c:v", "libx264", "-c:a", "aac", "-c:s", "srt",
                                "-metadata:s:a:0", "language=eng", "-metadata:s:a:1", "language=fra", path])
        return path
    }

    /// Exports `input` twice with `arguments` and returns the two outputs' SHA-256s.
    static func twice(_ input: String, _ arguments: [String], ext: String, in dir: URL) throws -> [String] {
        try (1...2).map { n in
            let out = dir.appendingPathComponent("out-\(n).\(ext)").path
            let r = try TestSupport.tool(["-q", "-y"] + arguments + [input, out])
            #expect(r.status == 0, "\(r.stderr)")
            return try TestSupport.sha256(out)
        }
    }

    @Test("the same export twice gives the same bytes", arguments: [("passthrough", "mov"), ("highest", "mp4")])
    func quickTimeKeysComeOutTheSameEveryRun(preset: String, ext: String) throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let input = try Self.quickTimeKeysClip(in: dir)
        let sums = try Self.twice(input, ["--preset", preset], ext: ext, in: dir)
        #expect(sums[0] == sums[1])
        // The keys are all there, in key order.
        let tags = try FFprobe(dir.appendingPathComponent("out-1.\(ext)").path).tags
        #expect(tags["com.apple.quicktime.make"] == "Apple" && tags["com.apple.quicktime.location.ISO6709"] != nil)
    }

    /// x264's macroblock-tree SIMD read heap memory it never wrote: the same clip came out other bytes as the heap
    /// differed (a second export in one process; `MALLOC_PERTURB_`, which fills each allocation with a byte). Three
    /// heaps, one file (`cpu-independent=1`, always set).
    @Test("the same export gives the same bytes whatever the heap holds (MALLOC_PERTURB_ 0, 77, 201)")
    func theHeapDoesNotReachTheFile() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let input = dir.appendingPathComponent("noise.mkv").path
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=320x240:d=4:r=25", "-c:v", "libx264", "-preset", "ultrafast", "-bf", "0",
                                "-pix_fmt", "yuv420p", input])
        var sums: [String] = []
        for perturb in ["0", "77", "201"] {
            let out = dir.appendingPathComponent("out-\(perturb).mp4").path
            let r = try TestSupport.run(TestSupport.binary, ["-q", "--preset", "highest", "--threads", "1", input, out], environment: ["MALLOC_PERTURB_": perturb])
            #expect(r.status == 0, "\(r.stderr)")
            sums.append(try TestSupport.sha256(out))
        }
        #expect(Set(sums).count == 1, "\(sums)")
    }

    @Test("a Matroska file with two audio tracks, subtitles and chapters comes out the same every run",
          arguments: ["passthrough", "highest"])
    func matroskaComesOutTheSameEveryRun(preset: String) throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let input = try Self.richMatroska(in: dir)
        let sums = try Self.twice(input, ["--preset", preset], ext: "mkv", in: dir)
        #expect(sums[0] == sums[1])
        let probe = try FFprobe(dir.appendingPathComponent("out-1.mkv").path)
        #expect(probe.streams.map(\.type) == ["video", "audio", "audio", "subtitle"])
    }

    @Test("a batch run twice into two folders gives the same bytes for every output")
    func batchOutputsComeOutTheSameEveryRun() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let uploads = dir.appendingPathComponent("uploads")
        try FileManager.default.createDirectory(at: uploads, withIntermediateDirectories: true)
        _ = try Self.quickTimeKeysClip(in: uploads)
        _ = try Self.richMatroska(in: uploads)
        for name in ["s.srt", "chapters.txt"] { try? FileManager.default.removeItem(at: uploads.appendingPathComponent(name)) }
        try FileManager.default.copyItem(atPath: TestSupport.fixture("portrait-rotated.mov"), toPath: uploads.appendingPathComponent("p.mov").path)
        var sums: [[String: String]] = []
        for n in 1...2 {
            let out = dir.appendingPathComponent("ready-\(n)")
            let r = try TestSupport.tool(["batch", uploads.path, "--out", out.path, "--preset", "low", "-q"])
            #expect(r.status == 0, "\(r.stderr)")
            let names = TestSupport.contents(out).filter { !$0.hasPrefix(".") }
            sums.append(Dictionary(uniqueKeysWithValues: try names.map { ($0, try TestSupport.sha256(out.appendingPathComponent($0).path)) }))
        }
        #expect(sums[0].count >= 3)
        #expect(sums[0] == sums[1])
    }

    @Test("--deterministic gives the same bytes on one core as on all of them")
    func deterministicIgnoresTheCoreCount() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        var sums: [String] = []
        for (n, prefix) in [[], ["/usr/bin/taskset", "-c", "0"]].enumerated() {
            let out = dir.appendingPathComponent("\(n).mp4").path
            let command = prefix + [TestSupport.binary, "-q", "-y", "--deterministic", "--preset", "low", TestSupport.fixture("hdr-pq.mp4"), out]
            let r = try TestSupport.run(command[0], Array(command.dropFirst()))
            #expect(r.status == 0, "\(r.stderr)")
            sums.append(try TestSupport.sha256(out))
        }
        #expect(sums[0] == sums[1])
    }

    @Test("x264's cpu-independent is always set (its mbtree SIMD reads heap it never wrote: other bytes run to run without it); --deterministic fixes x265's pools; x265 one frame at a time")
    func deterministicEncoderOptions() throws {
        let source = SourceInfo(path: "/x.mov", formatName: "mov,mp4,m4a,3gp,3g2,mj2", duration: 1, size: 1_000_000, streams: [
            SourceStream(index: 0, kind: .video, codec: "h264", duration: 1, width: 1920, height: 1080, frameRate: 30, pixelFormat: "yuv420p"),
        ], mainVideo: 0)
        for codec in [VideoCodec.h264, .hevc] {
            var preset = try TestSupport.preset(codec == .h264 ? "highest" : "hevc-1920x1080")
            preset.video?.codec = codec
            let plan = try ExportPlanner.plan(source: source, preset: preset, route: .transcode, container: .mp4, edits: nil, range: nil)
            guard case .transcodeVideo(let video) = try #require(plan.streams.first).action else { Issue.record("no video"); continue }
            let plain = video.encoderOptions().map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            let fixed = video.encoderOptions(codecs: CodecRun(threads: 4, deterministic: true)).map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            #expect((codec == .h264) == plain.contains("x264-params=cpu-independent=1") && !plain.contains("pools="))
            #expect(codec == .h264 || plain.contains("frame-threads=1"), "x265's frame threads give other bytes under load")
            #expect(codec == .h264 ? fixed.contains("x264-params=cpu-independent=1") : fixed.contains("frame-threads=1:asm=sse4.2:pools=4"))
        }
        #expect(ExportRequest(input: "a", output: "b", preset: try TestSupport.preset("low")).codecThreads == nil)
        var request = ExportRequest(input: "a", output: "b", preset: try TestSupport.preset("low"))
        request.deterministic = true
        #expect(request.codecThreads == ExportRequest.deterministicThreads)
        request.threads = 2
        #expect(request.codecThreads == 2)
    }

    @Test("x264 with a VBV runs on one thread (its VBV reads the other frame threads' progress); without one, or x265, as asked")
    func x264VBVOnOneThread() throws {
        let source = SourceInfo(path: "/x.mov", formatName: "mov,mp4,m4a,3gp,3g2,mj2", duration: 1, size: 1_000_000, streams: [
            SourceStream(index: 0, kind: .video, codec: "h264", duration: 1, width: 1920, height: 1080, frameRate: 30, pixelFormat: "yuv420p"),
        ], mainVideo: 0)
        for (name, capped) in [("highest", true), ("highest", false), ("hevc-1920x1080", true)] {
            var preset = try TestSupport.preset(name)
            if capped { preset.video?.maxBitrate = 2_000_000 }
            let plan = try ExportPlanner.plan(source: source, preset: preset, route: .transcode, container: .mp4, edits: nil, range: nil)
            guard case .transcodeVideo(let video) = try #require(plan.streams.first).action else { Issue.record("no video"); continue }
            let oneThread = name == "highest" && capped
            #expect(video.encoderThreads(CodecRun()) == (oneThread ? 1 : 0), "\(name) capped: \(capped)")
            #expect(video.encoderThreads(CodecRun(threads: 4, deterministic: true)) == (oneThread ? 1 : 4), "\(name) capped: \(capped)")
        }
    }

    @Test("tone mapping goes through mediaexport's choice of zimg's code path (never its AVX-512 kernels)")
    func toneMappingUsesTheChosenZimgPath() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let before = CodecRun.zimgGraphsBuilt
        let done = try TestSupport.export(TestSupport.fixture("hdr-hlg.mov"), to: dir.appendingPathComponent("t.mp4").path, preset: "low")
        #expect(done.route == .transcode)
        #expect(CodecRun.zimgGraphsBuilt > before)
    }

    static let qemu = "/usr/bin/qemu-x86_64"

    @Test("--deterministic gives the same bytes on a CPU without AVX (Nehalem) as here, for HEVC and HDR tone mapping",
          .enabled(if: FileManager.default.isExecutableFile(atPath: qemu), "needs Debian's qemu-user to emulate another CPU"),
          arguments: [("landscape.mov", "hevc-1920x1080"), ("hdr-hlg.mov", "low")])
    func deterministicOnAnotherCPU(sample: String, preset: String) throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        var sums: [String] = []
        for (n, prefix) in [[], [Self.qemu, "-cpu", "Nehalem"]].enumerated() {
            let out = dir.appendingPathComponent("\(n).mp4").path
            // Emulated on a loaded machine, a frame can take longer than the default stall timeout.
            let command = prefix + [TestSupport.binary, "-q", "-y", "--deterministic", "--stall-timeout", "600", "--preset", preset,
                                    TestSupport.fixture(sample), out]
            let r = try TestSupport.run(command[0], Array(command.dropFirst()))
            #expect(r.status == 0, "\(r.stderr.split(separator: "\n").filter { !$0.contains("TCG") }.joined(separator: "\n"))")
            sums.append(try TestSupport.sha256(out))
        }
        #expect(sums[0] == sums[1])
    }

    @Test("HEVC comes out the same when six exports starve each other on one core (x265's frame threads did not)",
          .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/taskset"), "needs taskset (util-linux)"),
          arguments: [false, true])
    func hevcSameBytesUnderLoad(deterministic: Bool) throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let runs = (0..<6).map { n -> Process in
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/taskset")
            p.arguments = ["-c", "0", TestSupport.binary, "-q", "-y"] + (deterministic ? ["--deterministic"] : ["--threads", "4"])
                + ["--preset", "hevc-1920x1080", TestSupport.fixture("landscape.mov"), dir.appendingPathComponent("\(n).mp4").path]
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            return p
        }
        for p in runs { try p.run() }
        for p in runs { p.waitUntilExit(); #expect(p.terminationStatus == 0) }
        let sums = try (0..<6).map { try TestSupport.sha256(dir.appendingPathComponent("\($0).mp4").path) }
        #expect(Set(sums).count == 1, "\(sums)")
    }
}
