import Foundation
import Testing
@testable import MediaExport
@testable import MediaExportCore
@testable import MediaExportFFmpeg

/// Text subtitles into MP4/MOV/M4V (issue 17): converted to `mov_text` as HandBrake does, with their language and
/// default disposition; copied where the container holds them (MKV, any stream copy); bitmap subtitles dropped
/// with a reason. Checked the way a user would: ffprobe, and the cues the ffmpeg CLI reads back out of the file.
@Suite("Subtitles")
struct SubtitleExportTests {
    /// One cue as the ffmpeg CLI reads it back into SubRip: times in seconds, text without markup.
    struct Cue: CustomStringConvertible {
        var start: Double
        var end: Double
        var text: String
        /// The text with its markup (`<b>`, `<font …>`), as written.
        var markup: String
        var description: String { String(format: "%.3f–%.3f %@", start, end, text.debugDescription) }
    }

    /// A subtitle stream as ffprobe reports it.
    struct SubtitleStream {
        var codec: String
        var language: String?
        var isDefault: Bool
    }

    static let srt = """
        1
        00:00:01,000 --> 00:00:02,500
        Hello world

        2
        00:00:04,000 --> 00:00:05,200
        Second cue,
        on two lines

        """

    static let ass = #"""
        [Script Info]
        ScriptType: v4.00+
        PlayResX: 320
        PlayResY: 240

        [V4+ Styles]
        Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, Encoding
        Style: Default,Arial,20,&H0000FFFF,&H000000FF,&H00000000,&H00000000,0,0,0,0,100,100,0,0,1,1,0,2,10,10,10,1
        Style: Sign,Arial,16,&H00FFFFFF,&H000000FF,&H00000000,&H00000000,1,0,0,0,100,100,0,0,1,1,0,8,10,10,10,1

        [Events]
        Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text
        Dialogue: 0,0:00:01.00,0:00:02.50,Default,,0,0,0,,Styled {\b1}bold{\b0} line
        Dialogue: 0,0:00:04.00,0:00:05.20,Sign,,0,0,0,,{\pos(10,10)}A sign

        """#

    /// A 6 s MKV: H.264 + AAC + one subtitle track per `(file text, extension, codec, language, default)`.
    static func source(in dir: URL, name: String = "in.mkv", tracks: [(String, String, String, String, Bool)]) throws -> String {
        var inputs = ["-f", "lavfi", "-i", "testsrc=d=6:s=320x240:r=30", "-f", "lavfi", "-i", "sine=d=6"]
        var maps = ["-map", "0", "-map", "1"]
        var codecs = ["-c:v", "libx264", "-c:a", "aac"]
        for (k, track) in tracks.enumerated() {
            let file = dir.appendingPathComponent("track\(k).\(track.1)").path
            try track.0.write(toFile: file, atomically: true, encoding: .utf8)
            inputs += ["-i", file]
            maps += ["-map", "\(k + 2)"]
            codecs += ["-c:s:\(k)", track.2, "-metadata:s:s:\(k)", "language=\(track.3)", "-disposition:s:\(k)", track.4 ? "default" : "0"]
        }
        let path = dir.appendingPathComponent(name).path
        try TestSupport.ffmpeg(inputs + maps + codecs + [path])
        return path
    }

    /// The subtitle streams of `path`, in order.
    static func subtitleStreams(_ path: String) throws -> [SubtitleStream] {
        let r = try TestSupport.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "s", "-show_entries",
                                                         "stream=codec_name:stream_tags=language:stream_disposition=default",
                                                         "-of", "json", path])
        let json = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
        return (json?["streams"] as? [[String: Any]] ?? []).map { s in
            SubtitleStream(codec: s["codec_name"] as? String ?? "", language: (s["tags"] as? [String: Any])?["language"] as? String,
                           isDefault: (s["disposition"] as? [String: Any])?["default"] as? Int == 1)
        }
    }

    /// The cues of subtitle stream `index` of `path`, read back with `ffmpeg -i path -map 0:s:index out.srt`.
    static func cues(_ path: String, stream index: Int = 0, dir: URL) throws -> [Cue] {
        let out = dir.appendingPathComponent("cues-\(UUID().uuidString.prefix(8)).srt").path
        try TestSupport.ffmpeg(["-i", path, "-map", "0:s:\(index)", out])
        let text = try String(contentsOfFile: out, encoding: .utf8).replacingOccurrences(of: "\r\n", with: "\n")
        func seconds(_ s: Substring) -> Double {
            let parts = s.trimmingCharacters(in: .whitespaces).split(whereSeparator: { $0 == ":" || $0 == "," }).compactMap { Double($0) }
            guard parts.count == 4 else { return -1 }
            return parts[0] * 3600 + parts[1] * 60 + parts[2] + parts[3] / 1000
        }
        return text.components(separatedBy: "\n\n").compactMap { block in
            let lines = block.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.isEmpty }
            guard let at = lines.firstIndex(where: { $0.contains("-->") }) else { return nil }
            let times = lines[at].components(separatedBy: "-->")
            let markup = lines[(at + 1)...].joined(separator: "\n")
            // Markup off: SubRip tags, and the ASS overrides the CLI leaves in SubRip (`{\an8}`, an alignment
            // mov_text cannot hold).
            let plain = markup.replacingOccurrences(of: #"<[^>]+>|\{\\[^}]*\}"#, with: "", options: .regularExpression)
            return Cue(start: seconds(Substring(times[0])), end: seconds(Substring(times[1])), text: plain, markup: markup)
        }
    }

    /// True when both lists hold the same texts at the same times, within `tolerance` seconds.
    static func same(_ got: [Cue], _ want: [Cue], tolerance: Double = 0.05) -> Bool {
        got.count == want.count && zip(got, want).allSatisfy {
            $0.text == $1.text && abs($0.start - $1.start) <= tolerance && abs($0.end - $1.end) <= tolerance
        }
    }

    /// Exports through the library, collecting the events.
    static func export(_ input: String, to output: String, preset: String, range: TimeRange? = nil) throws -> (ExportEvent.Completed, EventCollector) {
        let session = ExportSession(request: ExportRequest(input: input, output: output, preset: try TestSupport.preset(preset), timeRange: range))
        let collector = EventCollector()
        session.onEvent = { collector.append($0) }
        return (try session.run(), collector)
    }

    @Test("An SRT track exported to .mp4 becomes mov_text with its language, cue texts and times; the started record says so")
    func srtBecomesMovText() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let input = try Self.source(in: dir, tracks: [(Self.srt, "srt", "srt", "eng", true)])
        let out = dir.appendingPathComponent("out.mp4").path
        let (completed, events) = try Self.export(input, to: out, preset: "1280x720")

        let plan = try #require(events.started?.streams.first { $0.type == "subtitle" })
        #expect(plan.codec == "subrip" && plan.action == .transcode && plan.outputCodec == "mov_text", "\(plan)")
        #expect(completed.codecs == ["h264", "aac", "mov_text"])
        #expect(completed.droppedFrames == 0 && completed.skippedPackets == 0 && completed.timestampRepairs == 0)
        let streams = try Self.subtitleStreams(out)
        #expect(streams.count == 1)
        #expect(streams.first?.codec == "mov_text" && streams.first?.language == "eng", "\(streams)")

        // The source's own cues (as the CLI reads them: the MKV muxer moved them by the AAC priming) are the oracle;
        // they are the .srt's, within the tolerance.
        let want = try Self.cues(input, dir: dir)
        let nominal = [Cue(start: 1, end: 2.5, text: "Hello world", markup: ""), Cue(start: 4, end: 5.2, text: "Second cue,\non two lines", markup: "")]
        #expect(Self.same(want, nominal), "source cues \(want)")
        let got = try Self.cues(out, dir: dir)
        #expect(Self.same(got, want), "got \(got), want \(want)")
        // Subtitles never make the output longer than its picture and sound.
        #expect(abs(try FFprobe(out).duration - 6) < 0.1)
    }

    @Test("A trim shifts the cues onto the output's timeline, cuts the ones it crosses and drops the ones outside it",
          arguments: [(2.0, 5.0), (3.0, 6.0)])
    func trimShiftsAndDropsCues(start: Double, end: Double) throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let input = try Self.source(in: dir, tracks: [(Self.srt, "srt", "srt", "eng", true)])
        let out = dir.appendingPathComponent("trim.mp4").path
        let (completed, _) = try Self.export(input, to: out, preset: "1280x720", range: TimeRange(start: start, end: end))
        #expect(completed.codecs.contains("mov_text"))
        let want = try Self.cues(input, dir: dir).compactMap { c -> Cue? in
            guard c.end > start && c.start < end else { return nil }
            return Cue(start: max(0, c.start - start), end: min(end, c.end) - start, text: c.text, markup: c.markup)
        }
        // (2, 5): both cues, the first cut at the start, the second at the end; (3, 6): only the second, shifted.
        #expect(want.count == (start == 2 ? 2 : 1))
        let got = try Self.cues(out, dir: dir)
        #expect(Self.same(got, want), "got \(got), want \(want)")
        #expect(abs(try FFprobe(out).duration - (end - start)) < 0.1)
    }

    @Test("--subtitles drop leaves every subtitle stream out, each named with the reason, in a transcode and a passthrough",
          arguments: [("1280x720", "out.mp4"), ("passthrough", "out.mkv")])
    func subtitlesDrop(preset: String, name: String) throws {
        let dir = TestSupport.tempDir("subdrop-\(preset)")
        defer { TestSupport.cleanup(dir) }
        let input = try Self.source(in: dir, tracks: [(Self.srt, "srt", "srt", "eng", true), (Self.srt, "srt", "srt", "deu", false)])
        let output = dir.appendingPathComponent(name).path
        let r = try TestSupport.tool(["--preset", preset, "--subtitles", "drop", "--json", input, output])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try Self.subtitleStreams(output).isEmpty)
        #expect(r.stdout.components(separatedBy: #""reason":"--subtitles drop""#).count == 3, "\(r.stdout)")
        let bad = try TestSupport.tool(["--preset", preset, "--subtitles", "burn", input, dir.appendingPathComponent("x.mp4").path])
        #expect(bad.status == 64)
    }

    @Test("Passthrough to .mkv keeps SubRip as it is; passthrough to .mp4 drops it with the reason (a stream copy converts nothing)")
    func passthroughCopiesOrDrops() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let input = try Self.source(in: dir, tracks: [(Self.srt, "srt", "srt", "eng", true)])
        let mkv = dir.appendingPathComponent("copy.mkv").path
        let (kept, keptEvents) = try Self.export(input, to: mkv, preset: "passthrough")
        #expect(kept.codecs == ["h264", "aac", "subrip"])
        #expect(keptEvents.started?.streams.last?.action == .copy)
        let streams = try Self.subtitleStreams(mkv)
        #expect(streams.map(\.codec) == ["subrip"] && streams.first?.language == "eng", "\(streams)")
        #expect(Self.same(try Self.cues(mkv, dir: dir), try Self.cues(input, dir: dir), tolerance: 0.001))

        let mp4 = dir.appendingPathComponent("copy.mp4").path
        let (dropped, droppedEvents) = try Self.export(input, to: mp4, preset: "passthrough")
        #expect(dropped.codecs == ["h264", "aac"])
        let plan = try #require(droppedEvents.started?.streams.last)
        #expect(plan.action == .drop && plan.reason == ".mp4 cannot hold subrip", "\(plan)")
        #expect(try Self.subtitleStreams(mp4).isEmpty)
    }

    @Test("An ASS track converts to mov_text: texts, times and inline bold kept; the script's styles become mov_text styles")
    func assBecomesMovText() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let input = try Self.source(in: dir, tracks: [(Self.ass, "ass", "ass", "jpn", true)])
        let out = dir.appendingPathComponent("ass.mov").path
        let (completed, events) = try Self.export(input, to: out, preset: "1280x720")
        #expect(completed.codecs == ["h264", "aac", "mov_text"])
        #expect(events.started?.streams.last?.outputCodec == "mov_text")
        let streams = try Self.subtitleStreams(out)
        #expect(streams.map(\.codec) == ["mov_text"] && streams.first?.language == "jpn", "\(streams)")
        let got = try Self.cues(out, dir: dir)
        let want = try Self.cues(input, dir: dir)
        #expect(want.map(\.text) == ["Styled bold line", "A sign"], "\(want)")
        #expect(Self.same(got, want), "got \(got), want \(want)")
        // The inline override and the second style's weight come through as mov_text style records.
        #expect(got.first?.markup.contains("<b>bold</b>") == true, "\(got)")
        #expect(got.last?.markup.contains("<b>") == true, "\(got)")
    }

    @Test("Two subtitle languages both convert, each with its language; the default disposition stays on the one that had it")
    func languagesAndDefaultKept() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let french = Self.srt.replacingOccurrences(of: "Hello world", with: "Bonjour")
        let input = try Self.source(in: dir, tracks: [(Self.srt, "srt", "srt", "eng", false), (french, "srt", "srt", "fra", true)])
        let out = dir.appendingPathComponent("two.m4v").path
        let (completed, _) = try Self.export(input, to: out, preset: "1280x720")
        #expect(completed.codecs == ["h264", "aac", "mov_text", "mov_text"])
        let streams = try Self.subtitleStreams(out)
        #expect(streams.map(\.codec) == ["mov_text", "mov_text"])
        #expect(streams.map { $0.language ?? "none" } == ["eng", "fra"])
        #expect(streams.map(\.isDefault) == [false, true], "\(streams)")
        #expect(try Self.cues(out, stream: 1, dir: dir).first?.text == "Bonjour")
    }

    @Test("Planner: text subtitles convert for .mp4/.mov/.m4v, copy for .mkv; bitmap ones drop with the reason; .m4a and stream copies convert nothing")
    func plannerRule() throws {
        let transcode = try TestSupport.preset("1280x720")
        let streams = [
            SourceStream(index: 0, kind: .video, codec: "h264", fitsIn: [.mp4, .mov, .m4v, .mkv], width: 1920, height: 1080),
            SourceStream(index: 1, kind: .audio, codec: "aac", fitsIn: [.mp4, .mov, .m4v, .m4a, .mkv], channels: 2, sampleRate: 48000),
            SourceStream(index: 2, kind: .subtitle, codec: "subrip", fitsIn: [.mkv], language: "eng"),
            SourceStream(index: 3, kind: .subtitle, codec: "ass", fitsIn: [.mkv]),
            SourceStream(index: 4, kind: .subtitle, codec: "webvtt", fitsIn: [.mkv]),
            SourceStream(index: 5, kind: .subtitle, codec: "mov_text", fitsIn: [.mp4, .mov, .m4v]),
            SourceStream(index: 6, kind: .subtitle, codec: "hdmv_pgs_subtitle", fitsIn: [.mkv]),
            SourceStream(index: 7, kind: .subtitle, codec: "subrip", decodable: false, fitsIn: [.mkv]),
        ]
        let source = SourceInfo(path: "in.mkv", formatName: "matroska,webm", duration: 10, streams: streams, mainVideo: 0, mainAudio: 1)
        func actions(_ preset: Preset, _ container: Container) throws -> [StreamDecision.Action] {
            try ExportPlanner.plan(source: source, preset: preset, route: .transcode, container: container, edits: nil, range: nil)
                .streams.dropFirst(2).map(\.action)
        }
        let movText = StreamDecision.Action.transcodeSubtitle(codec: "mov_text")
        for container in [Container.mp4, .mov, .m4v] {
            let ext = ".\(container.rawValue)"
            #expect(try actions(transcode, container) == [
                movText, movText, movText, .copy(displayMatrix: nil),
                .drop(reason: "bitmap subtitles (PGS) cannot be converted to mov_text; burn-in is not done"),
                .drop(reason: "no decoder for subrip"),
            ], "\(ext)")
            // A stream copy copies what the container holds, nothing more.
            #expect(try actions(TestSupport.preset("passthrough"), container) == [
                .drop(reason: "\(ext) cannot hold subrip"), .drop(reason: "\(ext) cannot hold ass"), .drop(reason: "\(ext) cannot hold webvtt"),
                .copy(displayMatrix: nil), .drop(reason: "\(ext) cannot hold hdmv_pgs_subtitle"), .drop(reason: "\(ext) cannot hold subrip"),
            ], "\(ext)")
        }
        #expect(try actions(transcode, .mkv) == [
            .copy(displayMatrix: nil), .copy(displayMatrix: nil), .copy(displayMatrix: nil),
            .drop(reason: ".mkv cannot hold mov_text subtitles"), .copy(displayMatrix: nil), .copy(displayMatrix: nil),
        ])
        #expect(try actions(TestSupport.preset("m4a"), .m4a).allSatisfy { if case .drop = $0 { return true }; return false })
        // The started record: transcode → mov_text.
        let plan = try ExportPlanner.plan(source: source, preset: transcode, route: .transcode, container: .mp4, edits: nil, range: nil)
        #expect(plan.streamPlans[2] == StreamPlan(index: 2, type: "subtitle", codec: "subrip", action: .transcode, outputCodec: "mov_text"))
    }
}
