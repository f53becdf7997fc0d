import Foundation
import Testing
@testable import MediaExport
@testable import MediaExportCore
@testable import MediaExportFFmpeg

/// A camera's timecode track (`tmcd`) is kept: MP4/MOV outputs carry the source's timecode (moved by a trim), MKV
/// keeps its tag, and the verification expects what the muxer writes — a healthy camera file never falls back.
/// An iPhone-like clip whose first audio track has no decoder (APAC) exports its AAC twin. Sources are made with the
/// ffmpeg CLI; ffprobe is the oracle.
@Suite struct TimecodeTests {
    /// 4 s of 1280x720 H.264 (a keyframe a second) + AAC with the timecode `timecode` at `rate`, in a `.mov`.
    static func cameraClip(in dir: URL, timecode: String = "10:00:00:00", rate: String = "25", name: String = "C0001.MOV") throws -> String {
        let path = dir.appendingPathComponent(name).path
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=\(rate)", "-f", "lavfi", "-i", "sine=frequency=440", "-t", "4",
                                "-timecode", timecode, "-c:v", "libx264", "-preset", "ultrafast", "-g", rate == "25" ? "25" : "30",
                                "-pix_fmt", "yuv420p", "-c:a", "aac", path])
        return path
    }

    /// What ffprobe says of `path`'s timecode: the video stream's `timecode` tag (any case) and its timecode tracks.
    static func timecode(_ path: String) throws -> (video: String?, tracks: Int, streams: [String]) {
        let r = try TestSupport.run("/usr/bin/ffprobe", ["-v", "error", "-print_format", "json", "-show_streams", path])
        let json = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
        let streams = json?["streams"] as? [[String: Any]] ?? []
        let video = streams.first { $0["codec_type"] as? String == "video" }
        let tags = video?["tags"] as? [String: String] ?? [:]
        return (tags.first { $0.key.lowercased() == "timecode" }?.value,
                streams.filter { $0["codec_tag_string"] as? String == "tmcd" }.count,
                streams.map { "\($0["codec_type"] as? String ?? "") \($0["codec_name"] as? String ?? $0["codec_tag_string"] as? String ?? "")" })
    }

    /// The export ran its own route, verified, without a fallback.
    static func expectClean(_ c: ExportEvent.Completed, route: ExportRoute, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(c.fallbacks.isEmpty && c.route == route, "\(c.route): \(c.fallbacks)", sourceLocation: sourceLocation)
        #expect(c.verification?.passed == true, "\(c.verification?.checks.filter { $0.outcome == .failed } ?? [])", sourceLocation: sourceLocation)
        #expect(c.verification?.checks.contains { $0.name == "timecode" && $0.outcome == .passed } == true, sourceLocation: sourceLocation)
    }

    @Test func theFixtureHasATimecodeTrack() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let tc = try Self.timecode(try Self.cameraClip(in: dir))
        #expect(tc.video == "10:00:00:00" && tc.tracks == 1, "\(tc)")
    }

    @Test(arguments: [("1280x720", "mp4", ExportRoute.transcode), ("1280x720", "mov", .transcode), ("passthrough", "mov", .remux),
                      ("passthrough", "mp4", .remux), ("1280x720", "m4v", .transcode)])
    func keptAsATimecodeTrack(_ preset: String, _ ext: String, _ route: ExportRoute) throws {
        let dir = TestSupport.tempDir("tc-\(preset)-\(ext)")
        defer { TestSupport.cleanup(dir) }
        let out = dir.appendingPathComponent("out.\(ext)").path
        let c = try TestSupport.export(try Self.cameraClip(in: dir), to: out, preset: preset)
        Self.expectClean(c, route: route)
        #expect(c.output == out)
        let tc = try Self.timecode(out)
        #expect(tc.video == "10:00:00:00" && tc.tracks == 1, "\(tc)")
        #expect(tc.streams.filter { $0.hasPrefix("video") || $0.hasPrefix("audio") } == ["video h264", "audio aac"], "\(tc.streams)")
        #expect(!c.warnings.contains { $0.contains("tmcd") || $0.contains("timecode") }, "\(c.warnings)")
    }

    @Test(arguments: [("1280x720", ExportRoute.transcode), ("passthrough", .remux)])
    func matroskaKeepsTheTag(_ preset: String, _ route: ExportRoute) throws {
        let dir = TestSupport.tempDir("tc-mkv-\(preset)")
        defer { TestSupport.cleanup(dir) }
        let out = dir.appendingPathComponent("out.mkv").path
        let c = try TestSupport.export(try Self.cameraClip(in: dir), to: out, preset: preset)
        Self.expectClean(c, route: route)
        let tc = try Self.timecode(out)
        #expect(tc.video == "10:00:00:00" && tc.tracks == 0 && !tc.streams.contains { $0.hasPrefix("data") }, "\(tc)")
    }

    /// A trim moves the timecode to the output's first frame: 2 s at 25 fps is 50 frames; a passthrough cut starts
    /// at the keyframe at 2 s. Drop frame at 29.97: 59.94 frames from 00:00:59;28, the labels ;00 and ;01 of minute 1 skipped.
    @Test(arguments: [("1280x720", "mp4", "25", "10:00:00:00", "10:00:02:00"), ("passthrough", "mov", "25", "10:00:00:00", "10:00:02:00"),
                      ("1280x720", "mov", "30000/1001", "00:00:59;28", "00:01:02;00"), ("1280x720", "mkv", "25", "10:00:00:00", "10:00:02:00")])
    func aTrimMovesIt(_ preset: String, _ ext: String, _ rate: String, _ start: String, _ expected: String) throws {
        let dir = TestSupport.tempDir("tc-trim-\(preset)-\(ext)")
        defer { TestSupport.cleanup(dir) }
        let out = dir.appendingPathComponent("out.\(ext)").path
        let c = try TestSupport.export(try Self.cameraClip(in: dir, timecode: start, rate: rate), to: out, preset: preset,
                                       range: TimeRange(start: 2))
        Self.expectClean(c, route: preset == "passthrough" ? .remux : .transcode)
        let tc = try Self.timecode(out)
        #expect(tc.video == expected, "\(tc)")
    }

    /// Audio only: no video to carry the timecode; dropped, and said.
    @Test func droppedWithTheVideoAndSaid() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let out = dir.appendingPathComponent("out.m4a").path
        let c = try TestSupport.export(try Self.cameraClip(in: dir), to: out, preset: "m4a")
        #expect(c.fallbacks.isEmpty && c.route == .transcode && c.verification?.passed == true)
        #expect(c.warnings.contains("timecode 10:00:00:00 dropped: the output has no video"), "\(c.warnings)")
        #expect(try Self.timecode(out).tracks == 0)
    }

    /// A Matroska `TIMECODE` of 99:99:99:99 is no time of day: the output carries none (the muxer would wrap it into
    /// 04:40:42:24), and a warning says why.
    @Test(arguments: [("1280x720", "mp4", ExportRoute.transcode), ("1280x720", "mkv", .transcode), ("passthrough", "mkv", .remux)])
    func anImpossibleLabelIsDroppedAndSaid(_ preset: String, _ ext: String, _ route: ExportRoute) throws {
        let dir = TestSupport.tempDir("tc-bad-\(preset)-\(ext)")
        defer { TestSupport.cleanup(dir) }
        let source = dir.appendingPathComponent("t.mkv").path
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=2", "-metadata:s:v", "TIMECODE=99:99:99:99",
                                "-c:v", "libx264", "-preset", "ultrafast", source])
        #expect(try Self.timecode(source).video == "99:99:99:99")
        let out = dir.appendingPathComponent("out.\(ext)").path
        let c = try TestSupport.export(source, to: out, preset: preset)
        #expect(c.fallbacks.isEmpty && c.route == route && c.verification?.passed == true, "\(c.route) \(c.fallbacks)")
        let tc = try Self.timecode(out)
        #expect(tc.video == nil && tc.tracks == 0, "\(tc)")
        #expect(c.warnings.contains { $0.hasPrefix("timecode 99:99:99:99 dropped: stream #0's label is not a valid time of day at 25 fps") }, "\(c.warnings)")
    }

    /// The command line: exit 0, `out.mp4` at the name asked for (no byte copy as `out.mov`), the timecode kept.
    @Test func theToolExportsIt() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let input = try Self.cameraClip(in: dir)
        let out = dir.appendingPathComponent("out.mp4").path
        let r = try TestSupport.tool(["--preset", "1280x720", "-q", input, out])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(!r.stderr.contains("WARNING"), "\(r.stderr)")
        #expect(TestSupport.contents(dir) == ["C0001.MOV", "out.mp4"])
        #expect(try Self.timecode(out).video == "10:00:00:00")
    }

    /// Same input, same bytes: the timecode track is no clock's or run's.
    @Test func sameBytesTwice() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let input = try Self.cameraClip(in: dir)
        for preset in ["1280x720", "passthrough"] {
            let a = dir.appendingPathComponent("a-\(preset).mov").path, b = dir.appendingPathComponent("b-\(preset).mov").path
            try TestSupport.export(input, to: a, preset: preset)
            try TestSupport.export(input, to: b, preset: preset)
            #expect(try TestSupport.sha256(a) == TestSupport.sha256(b), "\(preset)")
        }
    }

    /// A Blackmagic-style MOV: ProRes LT, two 24-bit PCM tracks, a timecode at 23.976 fps. Passthrough keeps the
    /// ProRes flavour's tag (`apcs`, not the muxer's `apch`) and the timecode; a transcode keeps the timecode too.
    @Test func proResWithPCMAndTimecode() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let input = dir.appendingPathComponent("A001.mov").path
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=640x360:rate=24000/1001", "-f", "lavfi", "-i", "sine", "-f", "lavfi",
                                "-i", "sine=frequency=880", "-t", "3", "-map", "0:v", "-map", "1:a", "-map", "2:a", "-timecode", "01:00:00:00",
                                "-c:v", "prores_ks", "-profile:v", "1", "-c:a", "pcm_s24le", input])
        let copy = dir.appendingPathComponent("copy.mov").path
        Self.expectClean(try TestSupport.export(input, to: copy, preset: "passthrough", range: TimeRange(start: 1)), route: .remux)
        #expect(try FFprobe(copy).streams.map(\.tag) == ["apcs", "in24", "in24", "tmcd"])
        // The cut reads from the frame at or before 1 s (every ProRes frame is a keyframe: frame 23 at 0.959 s), and
        // the edit list hides it: the first frame shown is frame 24 at 1.001 s, as a transcode's would be — labelled
        // 01:00:01:00, the timecode counting 24 labels a second.
        #expect(try Self.timecode(copy).video == "01:00:01:00")
        let small = dir.appendingPathComponent("small.mp4").path
        Self.expectClean(try TestSupport.export(input, to: small, preset: "1280x720"), route: .transcode)
        #expect(try Self.timecode(small).video == "01:00:00:00")
    }

    /// An iPhone-like MOV: video, then an audio track whose sample entry is Apple's APAC (no decoder in FFmpeg 5.1),
    /// then its AAC twin. Made as a MOV with two AAC tracks whose first sample entry is renamed `mp4a` → `apac` (and its
    /// `esds` → `dapa`).
    static func apacClip(in dir: URL) throws -> String {
        let path = dir.appendingPathComponent("IMG_0001.MOV").path
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=640x360:rate=30", "-f", "lavfi", "-i", "sine=frequency=440", "-t", "3",
                                "-map", "0:v", "-map", "1:a", "-map", "1:a", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p",
                                "-c:a", "aac", path])
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        // The first `stsd` whose first entry is `mp4a`: box type, version/flags, entry count, entry size, then the fourcc.
        let stsd = Array("stsd".utf8), mp4a = Array("mp4a".utf8)
        var i = 0, patched = false
        while !patched, i + 20 <= bytes.count {
            if Array(bytes[i..<i + 4]) == stsd && Array(bytes[i + 16..<i + 20]) == mp4a {
                bytes.replaceSubrange(i + 16..<i + 20, with: Array("apac".utf8))
                // Its `esds` would tell FFmpeg the codec anyway (AAC): renamed as APAC's own configuration box.
                if let e = (i + 20..<min(bytes.count - 4, i + 200)).first(where: { Array(bytes[$0..<$0 + 4]) == Array("esds".utf8) }) {
                    bytes.replaceSubrange(e..<e + 4, with: Array("dapa".utf8))
                    patched = true
                }
            }
            i += 1
        }
        #expect(patched)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test(arguments: [("1280x720", "mp4", ExportRoute.transcode), ("passthrough", "mov", .remux)])
    func apacIsDroppedAndItsTwinKept(_ preset: String, _ ext: String, _ route: ExportRoute) throws {
        let dir = TestSupport.tempDir("apac-\(preset)")
        defer { TestSupport.cleanup(dir) }
        let input = try Self.apacClip(in: dir)
        let source = try FFprobe(input)
        #expect(source.streams.map(\.tag) == ["avc1", "apac", "mp4a"], "\(source.streams.map(\.tag))")
        let out = dir.appendingPathComponent("out.\(ext)").path
        let r = try TestSupport.tool(["--json", "--preset", preset, input, out])
        #expect(r.status == 0, "\(r.stderr)")
        let completed = r.stdout.split(separator: "\n").last { $0.contains("\"completed\"") }.map(String.init) ?? ""
        #expect(completed.contains("stream #1 audio (unknown 'apac') dropped"), "\(completed)")
        #expect(completed.contains("\"route\":\"\(route.rawValue)\""), "\(completed)")
        let probe = try FFprobe(out)
        #expect(probe.streams.map(\.codec) == ["h264", "aac"], "\(probe.streams.map(\.codec))")
    }
}
