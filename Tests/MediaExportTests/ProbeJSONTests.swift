import Foundation
import Testing
import MediaExport
@testable import MediaExportCore
@testable import MediaExportFFmpeg

/// `probe --json` gives ffprobe's names and values (`-show_format -show_streams -show_chapters`) beside its own
/// keys: each key it has is compared with what ffprobe prints for the same file.
@Suite struct ProbeJSONTests {
    /// The stream keys both print, compared as JSON values (ffprobe's strings stay strings, its numbers numbers).
    static let streamKeys = ["index", "codec_name", "codec_long_name", "codec_type", "codec_tag_string", "profile", "level",
                             "width", "height", "sample_aspect_ratio", "display_aspect_ratio", "pix_fmt",
                             "color_range", "color_space", "color_transfer", "color_primaries", "field_order",
                             "r_frame_rate", "avg_frame_rate", "time_base", "start_time", "duration_ts", "nb_frames",
                             "bit_rate", "sample_fmt", "sample_rate", "channels", "channel_layout", "tags"]
    static let formatKeys = ["filename", "nb_streams", "nb_programs", "format_name", "format_long_name", "start_time",
                             "duration", "size", "bit_rate", "probe_score", "tags"]
    static let chapterKeys = ["id", "time_base", "start", "start_time", "end", "end_time", "tags"]

    static func object(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "not a JSON object: \(text)")
    }

    static func same(_ a: Any?, _ b: Any?) -> Bool {
        switch (a, b) {
        case (nil, nil): return true
        case let (x as NSObject, y as NSObject): return x.isEqual(y)
        default: return false
        }
    }

    static func describe(_ v: Any?) -> String { v.map { "\($0)" } ?? "absent" }

    /// Runs both tools on `path` and compares every key in the lists; returns our JSON for further checks.
    @discardableResult
    static func compare(_ path: String) throws -> [String: Any] {
        let r = try TestSupport.tool(["probe", "--json", path])
        #expect(r.status == 0, "\(r.stderr)")
        let ours = try object(r.stdout)
        let p = try TestSupport.run("/usr/bin/ffprobe", ["-v", "error", "-print_format", "json", "-show_format", "-show_streams",
                                                         "-show_chapters", path])
        #expect(p.status == 0, "\(p.stderr)")
        let theirs = try object(p.stdout)
        let name = (path as NSString).lastPathComponent

        let ourStreams = ours["streams"] as? [[String: Any]] ?? [], theirStreams = theirs["streams"] as? [[String: Any]] ?? []
        #expect(ourStreams.count == theirStreams.count, "\(name): stream count")
        for (o, t) in zip(ourStreams, theirStreams) {
            for key in streamKeys {
                #expect(same(o[key], t[key]), "\(name) stream \(t["index"] ?? "?") \(key): ours \(describe(o[key])), ffprobe \(describe(t[key]))")
            }
            // The disposition object: the same names, the same 0/1.
            let od = o["disposition"] as? [String: Int] ?? [:], td = t["disposition"] as? [String: Int] ?? [:]
            #expect(od == td, "\(name) stream \(t["index"] ?? "?") disposition: ours \(od), ffprobe \(td)")
            #expect(od["default"] != nil)
            // `duration` is a number of seconds here, ffprobe's the same value as a "%f" string.
            if let d = t["duration"] as? String, let seconds = Double(d), seconds > 0 {
                let ourSeconds = try #require(o["duration"] as? Double, "\(name): stream duration")
                #expect(abs(ourSeconds - seconds) < 0.000_001, "\(name) duration \(ourSeconds) vs \(d)")
            }
        }

        let of = ours["format"] as? [String: Any] ?? [:], tf = theirs["format"] as? [String: Any] ?? [:]
        for key in formatKeys {
            #expect(same(of[key], tf[key]), "\(name) format \(key): ours \(describe(of[key])), ffprobe \(describe(tf[key]))")
        }

        let oc = ours["chapters"] as? [[String: Any]] ?? [], tc = theirs["chapters"] as? [[String: Any]] ?? []
        #expect(oc.count == tc.count, "\(name): \(oc.count) chapters, ffprobe \(tc.count)")
        for (o, t) in zip(oc, tc) {
            for key in chapterKeys {
                #expect(same(o[key], t[key]), "\(name) chapter \(key): ours \(describe(o[key])), ffprobe \(describe(t[key]))")
            }
        }
        // The old keys are still there and the value still decodes.
        #expect(ours["container"] as? String == tf["format_name"] as? String)
        _ = try JSONDecoder().decode(MediaInfo.self, from: Data(r.stdout.utf8))
        return ours
    }

    static func video(_ json: [String: Any]) -> [String: Any] {
        (json["streams"] as? [[String: Any]] ?? []).first { $0["codec_type"] as? String == "video" } ?? [:]
    }

    @Test func hlgMatchesFFprobe() throws {
        let json = try Self.compare(TestSupport.fixture("hdr-hlg.mov"))
        let v = Self.video(json)
        #expect(v["color_transfer"] as? String == "arib-std-b67")
        #expect(v["hdr"] as? String == "hlg")
        // The old keys beside the new ones.
        #expect(v["codec"] as? String == v["codec_name"] as? String && v["pixelFormat"] as? String == v["pix_fmt"] as? String)
    }

    @Test func interlacedMatchesFFprobe() throws {
        let json = try Self.compare(TestSupport.fixture("interlaced.ts"))
        let v = Self.video(json)
        #expect(v["field_order"] as? String == "tt")
        #expect(v["display_aspect_ratio"] as? String == "11:9")
        let audio = (json["streams"] as? [[String: Any]] ?? []).first { $0["codec_type"] as? String == "audio" } ?? [:]
        #expect(audio["sample_rate"] as? String == "48000" && audio["channel_layout"] as? String == "stereo")
        #expect(audio["channelLayout"] as? String == "stereo" && audio["sampleRate"] as? Int == 48000)
    }

    @Test func oddSizeMatchesFFprobe() throws {
        let json = try Self.compare(TestSupport.fixture("odd-322x242.mov"))
        let v = Self.video(json)
        let size = v["displaySize"] as? [String: Int]
        #expect(size?["width"] == v["displayWidth"] as? Int && size?["height"] == v["displayHeight"] as? Int && size?["width"] == 322)
    }

    @Test func rotatedMatchesFFprobe() throws {
        let json = try Self.compare(TestSupport.fixture("portrait-rotated.mov"))
        let v = Self.video(json)
        #expect(v["displaySize"] as? [String: Int] == ["width": 180, "height": 320])
        #expect(v["rotation"] as? Int != 0)
    }

    /// 720x480 shown 16:9: SAR 32:27, DAR 16:9.
    @Test func anamorphicMatchesFFprobe() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let path = dir.appendingPathComponent("anamorphic.mp4").path
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=720x480:rate=30000/1001:duration=1", "-vf", "setsar=32/27",
                                "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", path])
        let v = Self.video(try Self.compare(path))
        #expect(v["sample_aspect_ratio"] as? String == "32:27" && v["display_aspect_ratio"] as? String == "16:9")
        #expect(v["avg_frame_rate"] as? String == "30000/1001")
        #expect(v["displaySize"] as? [String: Int] == ["width": 853, "height": 480])
    }

    /// A sample aspect ratio only the container gives (Matroska's display size over raw video, whose codec
    /// parameters have none) is the picture's: `probe` shows the size the source probe plans with, 16:9 as ffprobe says.
    @Test func containerAspectIsTheDisplayedSize() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let path = dir.appendingPathComponent("anamorphic.mkv").path
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=720x480:rate=25:duration=0.2", "-c:v", "rawvideo",
                                "-pix_fmt", "yuv420p", "-aspect", "16:9", path])
        let v = Self.video(try Self.compare(path))
        #expect(v["sample_aspect_ratio"] as? String == "32:27" && v["display_aspect_ratio"] as? String == "16:9")
        #expect(v["displaySize"] as? [String: Int] == ["width": 853, "height": 480])
        let planned = try ProbedSource(path: path, cancel: nil).info.streams[0]
        #expect(planned.sampleAspect == Rational(32, 27) && planned.displaySize == PixelSize(width: 853, height: 480))
    }

    /// Chapters in Matroska and MP4 (whose chapter text track is a stream of its own), a cover in M4A.
    @Test(arguments: ["chaptered.mkv", "chaptered.mp4", "chaptered.mov"])
    func chaptersMatchFFprobe(_ name: String) throws {
        let dir = TestSupport.tempDir("probe-json-\(name)")
        defer { TestSupport.cleanup(dir) }
        let path = try ChapterExportTests.source(in: dir, name: name)
        let json = try Self.compare(path)
        let chapters = json["chapters"] as? [[String: Any]] ?? []
        #expect(chapters.compactMap { ($0["tags"] as? [String: String])?["title"] } == ["Opening", "Second part"])
        #expect(chapters.compactMap { $0["start_time"] as? String } == ["0.000000", "1.500000"])
        #expect(chapters.compactMap { $0["end_time"] as? String } == ["1.500000", "4.000000"])
        // Every stream has the whole disposition object (compared with ffprobe's above), 0 or 1 each.
        for stream in json["streams"] as? [[String: Any]] ?? [] {
            let disposition = stream["disposition"] as? [String: Int] ?? [:]
            #expect(disposition.count == 17 && disposition.values.allSatisfy { $0 == 0 || $0 == 1 })
        }
    }

    /// Every other media fixture, key by key.
    @Test(arguments: try FileManager.default.contentsOfDirectory(atPath: TestSupport.fixtures.path)
            .filter { ["mov", "mp4", "m4a", "ts"].contains(($0 as NSString).pathExtension) }.sorted()
            + ["IMG_0001.MOV", "IMG_0002.MOV", "IMG_E0002.MOV"].map { "assets/" + $0 })
    func fixtureMatchesFFprobe(_ name: String) throws {
        try Self.compare(TestSupport.fixture(name))
    }

    /// The library's probe (`MediaFileProbe`) is the tool's, and refuses what the tool refuses.
    @Test func libraryProbeIsTheTools() throws {
        let path = TestSupport.fixture("hdr-hlg.mov")
        #expect(try MediaFileProbe.probe(path: path) == MediaProbe.probe(path: path))
        #expect(InputFormats.isAllowed("mov,mp4,m4a,3gp,3g2,mj2") && !InputFormats.isAllowed("hls"))
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let list = dir.appendingPathComponent("list.mp4").path
        try "ffconcat version 1.0\nfile /etc/hostname\n".write(toFile: list, atomically: true, encoding: .utf8)
        #expect { try MediaFileProbe.probe(path: list) } throws: { error in
            guard let e = error as? ExportError, case .notMedia = e else { return false }
            return true
        }
    }

    /// A value written before the ffprobe keys existed still decodes (they are optional).
    @Test func oldJSONStillDecodes() throws {
        let old = #"{"container":"mov","path":"a.mov","size":1,"streams":[{"index":0,"type":"video","codec":"h264","isAttachedPicture":false}],"tags":{}}"#
        let info = try JSONDecoder().decode(MediaInfo.self, from: Data(old.utf8))
        #expect(info.streams.first?.codec == "h264" && info.format == nil && info.chapters == nil && info.streams.first?.codecName == nil)
    }
}
