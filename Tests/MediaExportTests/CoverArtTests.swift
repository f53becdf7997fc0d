import Foundation
import Testing
@testable import MediaExport
@testable import MediaExportCore

/// Cover art (attached pictures) is kept as cover art where FFmpeg 5.1 writes it so — MP4/M4V/M4A's `covr`, a Matroska
/// attachment — by transcodes and stream copies alike, and dropped with its reason elsewhere. Inputs are made with the
/// ffmpeg CLI; outputs are read with ffprobe (`disposition.attached_pic`).
@Suite struct CoverArtTests {
    struct Stream: Equatable {
        var type: String
        var codec: String
        var attachedPicture: Bool
        var width: Int?
        var tags: [String: String] = [:]
    }

    /// Every stream ffprobe lists in `path`, with its `attached_pic` disposition.
    static func streams(_ path: String) throws -> [Stream] {
        let r = try TestSupport.run("/usr/bin/ffprobe", ["-v", "error", "-print_format", "json", "-show_streams", path])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], "ffprobe: \(r.stderr)")
        return (json["streams"] as? [[String: Any]] ?? []).map { s in
            Stream(type: s["codec_type"] as? String ?? "", codec: s["codec_name"] as? String ?? "",
                   attachedPicture: (s["disposition"] as? [String: Int])?["attached_pic"] == 1, width: s["width"] as? Int,
                   tags: s["tags"] as? [String: String] ?? [:])
        }
    }

    /// The pictures ffprobe reads as cover art.
    static func covers(_ path: String) throws -> [Stream] { try streams(path).filter(\.attachedPicture) }

    /// A 320x240 JPEG.
    static func picture(in dir: URL) throws -> String {
        let path = dir.appendingPathComponent("cover.jpg").path
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "testsrc=size=320x240:rate=1", "-frames:v", "1", path])
        return path
    }

    /// An audio book: 4 s of AAC, the chapters "Opening" 0–1.5 s and "Second part" 1.5–4 s, and a JPEG cover (the
    /// ffmpeg CLI writes `.m4b` with its iPod muxer: the cover goes into `covr`).
    static func book(in dir: URL) throws -> String {
        let meta = try TestSupport.twoChapters(in: dir, title: "Book")
        let path = dir.appendingPathComponent("book.m4b").path
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "sine=frequency=440:duration=4", "-i", try picture(in: dir), "-i", meta.path,
                                "-map", "0", "-map", "1", "-map_metadata", "2", "-map_chapters", "2", "-c:a", "aac", "-c:v", "copy",
                                "-disposition:v", "attached_pic", path])
        return path
    }

    /// A song: 4 s of MP3 with its cover in an ID3v2 APIC frame; `tags` become ID3 text frames.
    static func song(in dir: URL, name: String = "song.mp3", tags: [String: String] = [:]) throws -> String {
        let path = dir.appendingPathComponent(name).path
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "sine=frequency=440:duration=4", "-i", try picture(in: dir), "-map", "0", "-map", "1",
                                "-c:a", "libmp3lame", "-c:v", "copy", "-id3v2_version", "3", "-metadata:s:v", "comment=Cover (front)"]
                               + tags.flatMap { ["-metadata", "\($0.key)=\($0.value)"] } + [path])
        return path
    }

    /// A video: 4 s of 640x360 30 fps H.264 (a keyframe every half second) + AAC, and a JPEG cover after them.
    static func video(in dir: URL) throws -> String {
        let path = dir.appendingPathComponent("clip.mp4").path
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=640x360:rate=30:duration=4", "-f", "lavfi", "-i", "sine=frequency=440:duration=4",
                                "-i", try picture(in: dir), "-map", "0", "-map", "1", "-map", "2",
                                "-c:v:0", "libx264", "-preset", "ultrafast", "-g", "15", "-pix_fmt", "yuv420p", "-c:v:1", "copy",
                                "-disposition:v:1", "attached_pic", "-c:a", "aac", path])
        return path
    }

    /// The export ran its own route (no fallback: a byte copy would keep the cover by itself) and verified the cover.
    static func expectVerifiedCover(_ completed: ExportEvent.Completed, route: ExportRoute, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(completed.route == route && completed.fallbacks.isEmpty, "\(completed.route): \(completed.fallbacks)", sourceLocation: sourceLocation)
        let streams = completed.verification?.checks.first { $0.name == "streams" }
        #expect(streams?.outcome == .passed && streams?.measured.contains("video mjpeg (cover art)") == true, "\(String(describing: streams))",
                sourceLocation: sourceLocation)
    }

    @Test func anAudioBookToM4AKeepsItsAudioChaptersAndCover() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let input = try Self.book(in: dir)
        #expect(try Self.covers(input).map(\.codec) == ["mjpeg"])
        let out = dir.appendingPathComponent("book.m4a").path
        let completed = try TestSupport.export(input, to: out, preset: "m4a")
        Self.expectVerifiedCover(completed, route: .transcode)
        let streams = try Self.streams(out)
        #expect(streams.filter { $0.type == "audio" }.map(\.codec) == ["aac"])
        #expect(try Self.covers(out).map { "\($0.codec) \($0.width ?? 0)" } == ["mjpeg 320"])
        // Still an audio file: the only picture is the cover (no video track), and the record gives it no picture size.
        #expect(!streams.contains { $0.type == "video" && !$0.attachedPicture })
        #expect(completed.width == nil && completed.height == nil)
        #expect(!completed.warnings.contains { $0.contains("mjpeg") }, "\(completed.warnings)")
        try ChapterExportTests.expectChapters(out, ChapterExportTests.two)
    }

    @Test(arguments: ["m4a", "mp4", "m4v"])
    func passthroughKeepsTheCover(_ ext: String) throws {
        let dir = TestSupport.tempDir("cover-passthrough-\(ext)")
        defer { TestSupport.cleanup(dir) }
        let out = dir.appendingPathComponent("book.\(ext)").path
        let completed = try TestSupport.export(try Self.book(in: dir), to: out, preset: "passthrough")
        Self.expectVerifiedCover(completed, route: .remux)
        #expect(try Self.streams(out).filter { $0.type == "audio" }.map(\.codec) == ["aac"])
        #expect(try Self.covers(out).map(\.codec) == ["mjpeg"])
        try ChapterExportTests.expectChapters(out, ChapterExportTests.two)
    }

    @Test func anMP3sCoverGoesIntoTheM4A() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let input = try Self.song(in: dir)
        #expect(try Self.covers(input).map(\.codec) == ["mjpeg"])
        let out = dir.appendingPathComponent("song.m4a").path
        let completed = try TestSupport.export(input, to: out, preset: "m4a")
        Self.expectVerifiedCover(completed, route: .transcode)
        #expect(try Self.streams(out).map { "\($0.type) \($0.codec)\($0.attachedPicture ? " cover" : "")" } == ["audio aac", "video mjpeg cover"])
        // What the tool shows of it: cover art, not a video.
        let probe = try TestSupport.tool(["probe", out])
        #expect(probe.status == 0 && probe.stdout.contains("mjpeg") && probe.stdout.contains("(cover art)"), "\(probe.stdout)")
        let json = try TestSupport.tool(["probe", "--json", out])
        let info = try JSONDecoder().decode(MediaInfo.self, from: Data(json.stdout.utf8))
        #expect(info.streams.filter { $0.type == "video" }.map(\.isAttachedPicture) == [true])
    }

    @Test func aVideoKeepsItsCoverBesideTheRealVideo() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let input = try Self.video(in: dir)
        let out = dir.appendingPathComponent("clip-720.mp4").path
        let completed = try TestSupport.export(input, to: out, preset: "1280x720")
        Self.expectVerifiedCover(completed, route: .transcode)
        let streams = try Self.streams(out)
        // The main video is the clip, transcoded; the picture is cover art, copied.
        #expect(streams.first { $0.type == "video" && !$0.attachedPicture }.map { "\($0.codec) \($0.width ?? 0)" } == "h264 640")
        #expect(try Self.covers(out).map { "\($0.codec) \($0.width ?? 0)" } == ["mjpeg 320"])
        #expect(completed.width == 640 && completed.height == 360)
        // A range that starts after the picture's place (it has none: the demuxer delivers it first, or again after a seek)
        // does not cut it, and it does not count as a frame of the video.
        let cut = dir.appendingPathComponent("clip-cut.mp4").path
        let trimmed = try TestSupport.export(input, to: cut, preset: "1280x720", range: TimeRange(start: 1, end: 3))
        Self.expectVerifiedCover(trimmed, route: .transcode)
        #expect(try Self.covers(cut).map(\.codec) == ["mjpeg"])
        let probe = try FFprobe(cut)
        #expect(abs(probe.duration - 2) < 0.05, "\(probe.duration)")
    }

    @Test func mkvKeepsTheCoverAsAnAttachment() throws {
        // FFmpeg 5.1's Matroska muxer writes an attached picture given as a video stream as a one-frame video track:
        // mediaexport writes it as an attachment instead (with a file name and MIME type), which reads back as cover art.
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let video = dir.appendingPathComponent("clip.mkv").path
        let completed = try TestSupport.export(try Self.video(in: dir), to: video, preset: "1280x720")
        Self.expectVerifiedCover(completed, route: .transcode)
        let streams = try Self.streams(video)
        #expect(streams.map { "\($0.type) \($0.codec)\($0.attachedPicture ? " cover" : "")" } == ["video h264", "audio aac", "video mjpeg cover"])
        #expect(streams.last?.tags["filename"] == "cover.jpg" && streams.last?.tags["mimetype"] == "image/jpeg", "\(streams)")
        // A stream copy of a song: the same; and the cover comes back out of the MKV into an M4A.
        let song = dir.appendingPathComponent("song.mkv").path
        Self.expectVerifiedCover(try TestSupport.export(try Self.song(in: dir), to: song, preset: "passthrough"), route: .remux)
        #expect(try Self.streams(song).map { "\($0.type) \($0.codec)\($0.attachedPicture ? " cover" : "")" } == ["audio mp3", "video mjpeg cover"])
        let back = dir.appendingPathComponent("back.m4a").path
        Self.expectVerifiedCover(try TestSupport.export(song, to: back, preset: "m4a"), route: .transcode)
        #expect(try Self.covers(back).map(\.codec) == ["mjpeg"])
    }

    @Test func whereTheCoverCannotGoItIsDroppedWithItsReason() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        // MOV: FFmpeg 5.1 writes no `covr` in QuickTime mode.
        let mov = dir.appendingPathComponent("clip.mov").path
        let completed = try TestSupport.export(try Self.video(in: dir), to: mov, preset: "passthrough")
        #expect(completed.route == .remux && completed.fallbacks.isEmpty)
        #expect(try Self.covers(mov).isEmpty)
        #expect(completed.warnings.contains { $0.contains("cover art: FFmpeg's MOV muxer does not write it") }, "\(completed.warnings)")
        // Apple's QuickTime keys are written as `mdta` metadata, beside which the MP4 muxer writes no `covr`.
        let tagged = try Self.song(in: dir, name: "tagged.mp3", tags: ["com.apple.quicktime.make": "Apple"])
        let m4a = dir.appendingPathComponent("tagged.m4a").path
        let keyed = try TestSupport.export(tagged, to: m4a, preset: "m4a")
        #expect(keyed.route == .transcode && keyed.fallbacks.isEmpty)
        #expect(try Self.covers(m4a).isEmpty)
        #expect(keyed.warnings.contains { $0.contains("writes no cover beside Apple's QuickTime metadata keys") }, "\(keyed.warnings)")
        #expect(try FFprobe(m4a).tags["com.apple.quicktime.make"] == "Apple")
    }
}
