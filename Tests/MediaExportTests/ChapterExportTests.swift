import Foundation
import Testing
@testable import MediaExport
@testable import MediaExportCore
@testable import MediaExportFFmpeg

/// Chapters survive exports as they survive the ffmpeg CLI: transcodes and passthrough into MP4, MOV, M4A and MKV,
/// shifted and clipped by a range, stretched by slow motion. Inputs are made with the ffmpeg CLI; outputs are read
/// with ffprobe `-show_chapters`.
@Suite struct ChapterExportTests {
    struct Chapter: Equatable { var start: Double; var end: Double; var title: String }

    /// One frame of the 30 fps sources: the tolerance on chapter times.
    static let frame = 1.0 / 30

    /// The chapters ffprobe lists in `path`.
    static func chapters(_ path: String) throws -> [Chapter] {
        let r = try TestSupport.run("/usr/bin/ffprobe", ["-v", "error", "-print_format", "json", "-show_chapters", path])
        guard r.status == 0, let json = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any] else {
            throw NSError(domain: "ffprobe", code: Int(r.status), userInfo: [NSLocalizedDescriptionKey: "ffprobe failed on \(path): \(r.stderr)"])
        }
        return (json["chapters"] as? [[String: Any]] ?? []).map { c in
            Chapter(start: Double(c["start_time"] as? String ?? "") ?? .nan, end: Double(c["end_time"] as? String ?? "") ?? .nan,
                    title: (c["tags"] as? [String: String])?["title"] ?? "")
        }
    }

    /// Expects `path` to hold exactly `want`, titles equal and times within a frame.
    static func expectChapters(_ path: String, _ want: [Chapter], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let got = try chapters(path)
        #expect(got.count == want.count, "\((path as NSString).lastPathComponent): \(got)", sourceLocation: sourceLocation)
        for (g, w) in zip(got, want) {
            #expect(g.title == w.title && abs(g.start - w.start) <= frame + 0.001 && abs(g.end - w.end) <= frame + 0.001,
                    "\((path as NSString).lastPathComponent): \(g) is not \(w)", sourceLocation: sourceLocation)
        }
    }

    /// The source's two chapters.
    static let two = [Chapter(start: 0, end: 1.5, title: "Opening"), Chapter(start: 1.5, end: 4, title: "Second part")]

    /// 4 s of 320x240 30 fps H.264 (a keyframe every half second) + AAC in `name` (its extension picks the container),
    /// with the chapters "Opening" 0–1.5 s and "Second part" 1.5–4 s from an FFMETADATA file.
    static func source(in dir: URL, name: String = "chaptered.mkv", chapters: Bool = true) throws -> String {
        let meta = try TestSupport.twoChapters(in: dir, title: "Chaptered")
        let path = dir.appendingPathComponent(name).path
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30:duration=4", "-f", "lavfi", "-i", "sine=frequency=440:duration=4",
                                "-i", meta.path, "-map", "0:v", "-map", "1:a", "-map_metadata", chapters ? "2" : "-1",
                                "-map_chapters", chapters ? "2" : "-1", "-c:v", "libx264", "-preset", "ultrafast", "-g", "15", "-pix_fmt", "yuv420p",
                                "-c:a", "aac", path])
        return path
    }

    @Test(arguments: [("1280x720", "mp4"), ("1280x720", "mkv"), ("passthrough", "mkv"), ("passthrough", "mov"), ("passthrough", "mp4"),
                      ("m4a", "m4a")])
    func chaptersAreKept(_ preset: String, _ ext: String) throws {
        let dir = TestSupport.tempDir("chapters-\(preset)-\(ext)")
        defer { TestSupport.cleanup(dir) }
        let input = try Self.source(in: dir)
        try Self.expectChapters(input, Self.two)
        let out = dir.appendingPathComponent("out.\(ext)").path
        let completed = try TestSupport.export(input, to: out, preset: preset)
        // The preset's own route (passthrough's is the remux), not a fallback: a byte copy would keep the chapters
        // by itself, and a failed verification would fall back to it.
        #expect(completed.fallbacks.isEmpty && completed.route == (preset == "passthrough" ? .remux : .transcode),
                "\(completed.route): \(completed.fallbacks)")
        try Self.expectChapters(out, Self.two)
        // The media streams are all there (MP4/MOV/M4A add the chapters' own text track, read back as data).
        let probe = try FFprobe(out)
        #expect(probe.audio?.codec == "aac")
        if ext != "m4a" { #expect(probe.video?.codec == "h264") }
        if ext == "mkv" { #expect(!probe.streams.contains { $0.type == "data" }) }
    }

    /// The last video keyframe at or before `seconds` in `path` (whose clock starts at 0): where a passthrough cut
    /// starts.
    static func keyframe(atOrBefore seconds: Double, in path: String) throws -> Double {
        let r = try TestSupport.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts_time,flags",
                                                         "-of", "csv=p=0", path])
        let keys = r.stdout.split(separator: "\n").compactMap { line -> Double? in
            let fields = line.split(separator: ",")
            return fields.count >= 2 && fields[1].hasPrefix("K") ? Double(fields[0]) : nil
        }
        return keys.filter { $0 <= seconds + 0.0005 }.max() ?? 0
    }

    /// The source's two chapters seen through a cut from `start` to `end` (seconds from the source's start).
    static func cut(from start: Double, to end: Double) -> [Chapter] {
        two.compactMap { c in
            let s = max(0, c.start - start), e = min(end, c.end) - start
            return e > s ? Chapter(start: s, end: e, title: c.title) : nil
        }
    }

    @Test func aRangeShiftsAndClipsTheChapters() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let input = try Self.source(in: dir)
        // 1–3 s: "Opening" keeps its last half second, "Second part" is cut at the range's end.
        let mp4 = dir.appendingPathComponent("range.mp4").path
        try TestSupport.export(input, to: mp4, preset: "1280x720", range: TimeRange(start: 1, end: 3))
        try Self.expectChapters(mp4, [Chapter(start: 0, end: 0.5, title: "Opening"), Chapter(start: 0.5, end: 2, title: "Second part")])
        // Passthrough starts at the keyframe before 1 s (0.523 s: the Matroska source's video starts 23 ms in, after
        // the AAC priming): the chapters follow where the output really starts.
        let key = try Self.keyframe(atOrBefore: 1, in: input)
        #expect(key > 0.4 && key <= 1)
        let mkv = dir.appendingPathComponent("range.mkv").path
        try TestSupport.export(input, to: mkv, preset: "passthrough", range: TimeRange(start: 1, end: 3))
        try Self.expectChapters(mkv, Self.cut(from: key, to: 3))
        // From 2 s to the end into .mov: the edit list hides the lead-in from the keyframe, so the output starts at
        // 2 s as asked; "Opening" ends before it, and is left out.
        let late = dir.appendingPathComponent("late.mov").path
        #expect(try Self.keyframe(atOrBefore: 2, in: input) < 2)
        try TestSupport.export(input, to: late, preset: "passthrough", range: TimeRange(start: 2))
        try Self.expectChapters(late, [Chapter(start: 0, end: 2, title: "Second part")])
    }

    @Test func slowMotionStretchesTheChapters() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let input = try Self.source(in: dir)
        // 1–2 s at half speed: that second lasts two, so everything after it comes one second later.
        let edits = dir.appendingPathComponent("edits.json")
        try #"{"formatVersion":1,"slowMotion":{"rate":0.5,"regions":[{"start":1,"duration":1}]}}"#.write(to: edits, atomically: true, encoding: .utf8)
        let out = dir.appendingPathComponent("slow.mp4").path
        let request = ExportRequest(input: input, output: out, preset: try TestSupport.preset("1280x720"), editsPath: edits.path)
        _ = try ExportSession(request: request).run()
        try Self.expectChapters(out, [Chapter(start: 0, end: 2, title: "Opening"), Chapter(start: 2, end: 5, title: "Second part")])
    }

    @Test func chaptersFromAnMP4SourceAreKeptOnce() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        // An MP4 source: its chapters come as a chapter track (a data stream the planner drops) and a Nero `chpl`.
        let input = try Self.source(in: dir, name: "chaptered.mp4")
        try Self.expectChapters(input, Self.two)
        for ext in ["mov", "mkv"] {
            let out = dir.appendingPathComponent("from-mp4.\(ext)").path
            try TestSupport.export(input, to: out, preset: "passthrough")
            try Self.expectChapters(out, Self.two)
            // One chapter track at most: the source's is not copied besides the one the muxer writes.
            let data = try FFprobe(out).streams.filter { $0.type == "data" }.count
            #expect(data == (ext == "mkv" ? 0 : 1))
        }
    }

    @Test func aSourceWithoutChaptersGetsNone() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let input = try Self.source(in: dir, chapters: false)
        try Self.expectChapters(input, [])
        for ext in ["mp4", "mkv"] {
            let out = dir.appendingPathComponent("plain.\(ext)").path
            try TestSupport.export(input, to: out, preset: "passthrough")
            try Self.expectChapters(out, [])
            #expect(try FFprobe(out).streams.map(\.type) == ["video", "audio"])
        }
    }
}
