import Foundation
import Testing
@testable import MediaExportCore

/// `ContainerKeeps` is what FFmpeg 5.1's muxers really write: a short clip with a rotation, tags and a timecode is
/// written into each container by the same libavformat (the ffmpeg CLI as a tool), read back with ffprobe, and each
/// row of the table is compared with what came back — so the table the planner and the verifier use cannot drift.
@Suite("What each container keeps, asked of the muxer")
struct ContainerKeepsTests {
    @Test(arguments: [Container.mp4, .mov, .m4v, .mkv, .webm])
    func tableMatchesTheMuxer(_ container: Container) throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let out = dir.appendingPathComponent("k.\(container.rawValue)").path
        let codec = container == .webm ? ["-c:v", "libvpx-vp9", "-deadline", "realtime"] : ["-c:v", "libx264", "-preset", "ultrafast"]
        // FFmpeg 5.1's CLI turns a `rotate` tag into a display matrix only when it copies the stream: encode, then copy.
        let encoded = dir.appendingPathComponent("k-encoded.\(container.rawValue)").path
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=64x48:rate=10:duration=0.5"] + codec + ["-f", container.muxerName, encoded])
        try TestSupport.ffmpeg(["-i", encoded, "-c", "copy", "-metadata", "location=+48.8584+002.2945/", "-metadata:s:v:0", "rotate=90",
                                "-timecode", "01:00:00:00", "-f", container.muxerName, out])
        let probe = try TestSupport.run("/usr/bin/ffprobe", ["-v", "error", "-show_entries", "stream=codec_type:stream_tags:stream_side_data:format_tags",
                                                             "-of", "json", out])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(probe.stdout.utf8)) as? [String: Any])
        let streams = try #require(json["streams"] as? [[String: Any]])
        let video = try #require(streams.first { $0["codec_type"] as? String == "video" })
        let format = (json["format"] as? [String: Any])?["tags"] as? [String: String] ?? [:]
        let videoTags = video["tags"] as? [String: String] ?? [:]
        let keeps = container.keeps

        let matrix = (video["side_data_list"] as? [[String: Any]] ?? []).contains { ($0["side_data_type"] as? String) == "Display Matrix" }
        #expect(matrix == keeps.displayMatrix, "display matrix read back: \(matrix)")
        #expect((format["location"] != nil) == keeps.tagCaseKept, "tags: \(format.keys.sorted())")
        #expect(container.readBack("location", in: format) == "+48.8584+002.2945/")
        let own = Set(videoTags.keys.map { $0.lowercased() })
        for tag in keeps.muxerStreamTags where tag != "encoder" {
            #expect(own.contains(tag), "the muxer did not write \(tag): \(videoTags.keys.sorted())")
        }
        let tmcd = streams.contains { ($0["tags"] as? [String: String])?["handler_name"] == "TimeCodeHandler" || $0["codec_type"] as? String == "data" }
        let tagged = container.readBack("timecode", in: videoTags) ?? container.readBack("timecode", in: format) != nil
        switch keeps.timecode {
        case .track: #expect(tmcd, "no tmcd track")
        case .tag: #expect(tagged && !tmcd, "timecode tag: \(tagged), track: \(tmcd)")
        case .none: #expect(!tmcd)
        }
    }
}

/// `ContainerKeeps.languages` and `Container.language(_:)` against the muxer: every language is written into each
/// container under the source's two ISO 639-2 spellings and read back with ffprobe.
@Suite("Languages each container keeps, asked of the muxer")
struct ContainerLanguageTests {
    @Test(arguments: [Container.mp4, .mov, .mkv])
    func languagesMatchTheMuxer(_ container: Container) throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let base = dir.appendingPathComponent("a.m4a").path
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "sine=d=0.1", "-c:a", "aac", base])
        // Every 639-2 spelling of the alias table (B and T), plus codes outside it and a malformed one.
        let codes = Set(TrackSelection.aliases.filter { $0.key.count == 3 }.flatMap { [$0.key, $0.value] })
            .union(["swe", "hrv", "srp", "lat", "FRE"])
        for code in codes.sorted() {
            let out = dir.appendingPathComponent("l-\(code).\(container.rawValue)").path
            try TestSupport.ffmpeg(["-i", base, "-c", "copy", "-metadata:s:a:0", "language=\(code)", "-f", container.muxerName, out])
            let read = try TestSupport.run("/usr/bin/ffprobe", ["-v", "error", "-show_entries", "stream_tags=language", "-of", "csv=p=0", out])
                .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            let measured = read.isEmpty || read == "und" ? nil : read
            // What the executor writes (`language(_:)`) reads back unchanged…
            if let written = container.language(code) {
                let out2 = dir.appendingPathComponent("w-\(code).\(container.rawValue)").path
                try TestSupport.ffmpeg(["-i", base, "-c", "copy", "-metadata:s:a:0", "language=\(written)", "-f", container.muxerName, out2])
                let back = try TestSupport.run("/usr/bin/ffprobe", ["-v", "error", "-show_entries", "stream_tags=language", "-of", "csv=p=0", out2])
                #expect(back.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == written, "\(code) written as \(written)")
            }
            // …and a code the table says the container keeps as written is kept as written; one it cannot store is lost.
            if container.keeps.languages != .macintosh || container.language(code) == code {
                #expect(measured == container.language(code), "\(code): read back \(read)")
            } else if container.language(code) == nil {
                #expect(measured == nil, "\(code): .mov kept \(read), but the table says it cannot")
            }
        }
    }
}
