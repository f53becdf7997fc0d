import Foundation
import Testing
@testable import MediaExport
@testable import MediaExportCore

/// `--metadata sharing|none` in every channel metadata travels through (issue 44): chapter tags, QuickTime's author
/// atom (`©aut`, which FFmpeg reads as `artist`) at container and track level, a drone's GPS subtitle track. The
/// oracle is ffprobe's format, streams and chapters of the output.
@Suite struct MetadataChannelTests {
    static let secrets = ["Jane Author", "48.8584", "LOCATION", "AUTHOR"]

    /// A drone clip: video, audio, a DJI-style telemetry subtitle track, a container `author`, and chapters carrying
    /// Matroska chapter tags `LOCATION` and `AUTHOR` beside their titles.
    static func droneClip(in dir: URL) throws -> String {
        let meta = dir.appendingPathComponent("chapters.txt"), srt = dir.appendingPathComponent("telemetry.srt")
        try """
        ;FFMETADATA1
        [CHAPTER]
        TIMEBASE=1/1000
        START=0
        END=1000
        title=Grandma's house
        LOCATION=+48.8584+002.2945/
        AUTHOR=Jane Author
        [CHAPTER]
        TIMEBASE=1/1000
        START=1000
        END=2000
        title=Garden

        """.write(to: meta, atomically: true, encoding: .utf8)
        try """
        1
        00:00:00,000 --> 00:00:01,000
        FrameCnt: 1 [iso: 100] [fnum: 2.8] [latitude: 47.370300] [longitude: 8.687400] [rel_alt: 3.800]

        2
        00:00:01,000 --> 00:00:02,000
        F/2.8, SS 1000, ISO 100, EV 0, GPS (8.6874, 47.3703, 21), D 2.36m, H 3.80m

        """.write(to: srt, atomically: true, encoding: .utf8)
        let path = dir.appendingPathComponent("DJI_0001.mkv").path
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=320x240:d=2", "-f", "lavfi", "-i", "sine=d=2", "-i", meta.path, "-i", srt.path,
                                "-map", "0", "-map", "1", "-map", "3", "-map_chapters", "2", "-c:v", "libx264", "-c:a", "aac", "-c:s", "copy",
                                "-metadata", "author=Jane Author", path])
        return path
    }

    /// What ffprobe says of format, streams and chapters, as one text (JSON).
    static func everything(_ path: String) throws -> String {
        try TestSupport.run("/usr/bin/ffprobe", ["-v", "error", "-of", "json", "-show_format", "-show_streams", "-show_chapters", path]).stdout
    }

    /// The payload of the last JSON Lines record (`completed`).
    static func completed(_ stdout: String) throws -> [String: Any] {
        let last = try #require(stdout.split(separator: "\n").last)
        let record = try #require(try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any])
        return try #require(record["payload"] as? [String: Any])
    }

    @Test("sharing and none: no chapter tag, author or GPS text in any channel; the subtitle track dropped and named",
          arguments: ["mp4", "mov", "mkv", "webm"], ["sharing", "none"])
    func droneClipLeavesNothing(ext: String, level: String) throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let input = try Self.droneClip(in: dir)
        let before = try Self.everything(input)
        #expect(before.contains("LOCATION") && before.contains("Jane Author") && before.contains("\"subtitle\""))
        let out = dir.appendingPathComponent("out.\(ext)").path
        let r = try TestSupport.tool(["--json", "--preset", ext == "webm" ? "av1-1280x720" : "low", "--metadata", level, input, out])
        #expect(r.status == 0, "\(r.stderr)")
        let after = try Self.everything(out)
        for secret in Self.secrets { #expect(!after.contains(secret), "\(secret) in \(after)") }
        #expect(!after.contains("\"subtitle\""), "the telemetry track is gone")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: out))
        #expect(bytes.range(of: Data("47.3703".utf8)) == nil && bytes.range(of: Data("latitude".utf8)) == nil)
        let payload = try Self.completed(r.stdout)
        let dropped = (payload["metadata"] as? [String: Any])?["dropped"] as? [String] ?? []
        #expect(dropped.contains("stream #2") && dropped.contains("AUTHOR"), "\(dropped)")
        #expect(dropped.contains("chapter #1: AUTHOR") && dropped.contains("chapter #1: LOCATION"), "\(dropped)")
        let warnings = payload["warnings"] as? [String] ?? []
        #expect(warnings.contains { $0.hasPrefix("stream #2 subtitle (subrip) dropped: its text names positions") }, "\(warnings)")
        let checks = ((payload["verification"] as? [String: Any])?["checks"] as? [[String: Any]]) ?? []
        #expect(checks.contains { $0["name"] as? String == "metadata \(level)" && $0["outcome"] as? String == "passed" })
        // Chapters stay, as points to navigate by: `sharing` keeps their titles, `none` numbers them.
        #expect(after.contains(level == "none" ? "Chapter 1" : "Grandma") && !(level == "none" && after.contains("Grandma")))
    }

    @Test("--metadata all keeps the chapter tags and the subtitle track, as before")
    func allKeepsEveryChannel() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let input = try Self.droneClip(in: dir)
        let out = dir.appendingPathComponent("out.mkv").path
        let r = try TestSupport.tool(["--json", "--preset", "low", input, out])
        #expect(r.status == 0, "\(r.stderr)")
        let after = try Self.everything(out)
        #expect(after.contains("\"LOCATION\": \"+48.8584+002.2945/\"") && after.contains("\"subtitle\"") && after.contains("Grandma"))
        #expect(try Self.completed(r.stdout)["metadata"] == nil)
    }

    /// A MOV with the author atom `©aut` in its user data (`-metadata author`), or only in its video track's (written
    /// by hand: FFmpeg's MOV muxer writes no track author; FFmpeg 5.1's demuxer reads it into the file's tags).
    static func authoredMOV(in dir: URL, trackOnly: Bool) throws -> String {
        let path = dir.appendingPathComponent("authored.mov").path
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=320x240:d=1", "-f", "lavfi", "-i", "sine=d=1", "-c:v", "libx264", "-c:a", "aac"]
                               + (trackOnly ? [] : ["-metadata", "author=Jane Author"]) + [path])
        if trackOnly { try addTrackAuthor(path, "Jane Author") }
        return path
    }
    /// Puts `udta { ©aut name }` at the end of the file's first `trak` (the `moov` follows the media data, so no
    /// chunk offset moves).
    static func addTrackAuthor(_ path: String, _ name: String) throws {
        var d = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        func u32(_ o: Int) -> Int { d[o..<o + 4].reduce(0) { $0 << 8 | Int($1) } }
        func be(_ v: Int, _ bytes: Int) -> [UInt8] { (0..<bytes).map { UInt8((v >> (8 * (bytes - 1 - $0))) & 0xff) } }
        func find(_ type: String, from start: Int, to end: Int) -> Int? {
            var o = start
            while o + 8 <= end, u32(o) >= 8 {
                if String(decoding: d[o + 4..<o + 8], as: UTF8.self) == type { return o }
                o += u32(o)
            }
            return nil
        }
        let moov = try #require(find("moov", from: 0, to: d.count))
        #expect(try #require(find("mdat", from: 0, to: d.count)) < moov)
        let trak = try #require(find("trak", from: moov + 8, to: moov + u32(moov)))
        let text = Array(name.utf8)
        let aut = be(12 + text.count, 4) + [0xA9] + Array("aut".utf8) + be(text.count, 2) + be(0x55C4, 2) + text  // language und
        let udta = be(8 + aut.count, 4) + Array("udta".utf8) + aut
        let (trakSize, moovSize) = (u32(trak), u32(moov))
        d.insert(contentsOf: udta, at: trak + trakSize)
        d.replaceSubrange(trak..<trak + 4, with: be(trakSize + udta.count, 4))
        d.replaceSubrange(moov..<moov + 4, with: be(moovSize + udta.count, 4))
        try Data(d).write(to: URL(fileURLWithPath: path))
    }

    @Test("QuickTime's ©aut reads as artist, from the file's or a track's user data: sharing and none drop it",
          arguments: ["mp4", "mov", "mkv"], [(false, "sharing"), (true, "sharing"), (true, "none")])
    func quickTimeAuthorAtom(ext: String, at: (trackOnly: Bool, level: String)) throws {
        let (trackOnly, level) = at
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let input = try Self.authoredMOV(in: dir, trackOnly: trackOnly)
        let before = try Self.everything(input)
        #expect(before.contains("\"artist\": \"Jane Author\""), "\(before)")
        let out = dir.appendingPathComponent("out.\(ext)").path
        let r = try TestSupport.tool(["--json", "--preset", "low", "--metadata", level, input, out])
        #expect(r.status == 0, "\(r.stderr)")
        let after = try Self.everything(out)
        #expect(!after.contains("Jane Author"), "\(after)")
        let dropped = (try Self.completed(r.stdout)["metadata"] as? [String: Any])?["dropped"] as? [String] ?? []
        #expect(level == "sharing" ? dropped == ["artist"] : dropped.contains("artist"), "\(dropped)")
        // `all` writes the author as before (MOV's ©aut reads back as `artist`; MP4 writes it as ©ART).
        let kept = dir.appendingPathComponent("kept.\(ext)").path
        #expect(try TestSupport.tool(["--preset", "low", input, kept]).status == 0)
        #expect(try Self.everything(kept).contains("Jane Author"))
    }

    @Test("a Matroska cover's file name and title: kept at sharing, neutral at none")
    func coverAttachmentName() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let jpeg = dir.appendingPathComponent("picture.jpg").path, input = dir.appendingPathComponent("song.mkv").path
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "color=red:s=64x64", "-frames:v", "1", jpeg])
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "sine=d=1", "-c:a", "aac", "-attach", jpeg, "-metadata:s:t", "mimetype=image/jpeg",
                                "-metadata:s:t", "filename=Jane_Doe_passport.jpg", "-metadata:s:t", "title=Jane Doe", input])
        for (level, name) in [("sharing", "Jane_Doe_passport.jpg"), ("none", "cover.jpg")] {
            let out = dir.appendingPathComponent("\(level).mkv").path
            let r = try TestSupport.tool(["--json", "--preset", "m4a", "--metadata", level, input, out])
            #expect(r.status == 0, "\(r.stderr)")
            let after = try Self.everything(out)
            #expect(after.contains("\"filename\": \"\(name)\"") && after.contains("image/jpeg"), "\(after)")
            #expect(after.contains("Jane Doe") == (level == "sharing"), "\(after)")
        }
    }
}
