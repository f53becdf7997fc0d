import Foundation
import Testing
@testable import MediaExport
@testable import MediaExportCore
@testable import MediaExportFFmpeg

/// `mediaexport package`: the files, the ladder trimmed to the source, bandwidths against the segments, segment
/// boundaries aligned and on keyframes in every rung (by ffprobe), GStreamer and the ffmpeg CLI playing both
/// manifests, the folder published whole.
@Suite(.serialized) struct PackageTests {
    /// A base preset that encodes fast (the ladder sets everything else).
    static func fastPreset(in dir: URL) throws -> String {
        let path = dir.appendingPathComponent("fast.json").path
        try Data("""
        {"name": "fast", "video": {"codec": "h264", "encoderPreset": "veryfast"}, "audio": {"codec": "aac", "bitrate": 128000}}
        """.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    static func source(_ name: String, size: String, rate: String, seconds: Int, audio: Bool, in dir: URL,
                       sound: String = "sine=frequency=440") throws -> String {
        let path = dir.appendingPathComponent(name).path
        var args = ["-f", "lavfi", "-i", "testsrc2=size=\(size):rate=\(rate):duration=\(seconds)"]
        if audio { args += ["-f", "lavfi", "-i", "\(sound):duration=\(seconds)", "-c:a", "aac"] }
        try TestSupport.ffmpeg(args + ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", path])
        return path
    }

    static func package(_ arguments: [String]) throws -> (TestSupport.RunResult, [String: Any]?) {
        let r = try TestSupport.tool(["package", "--json"] + arguments)
        let records = r.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        return (r, records.first { $0["kind"] as? String == "packaged" }?["payload"] as? [String: Any])
    }

    @Test("a 1080p source: master.m3u8, manifest.mpd, ≥ 3 rungs, poster, package.json; bandwidths, keyframes and boundaries hold")
    func fullHDPackage() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let input = try Self.source("clip.mp4", size: "1920x1080", rate: "30", seconds: 10, audio: true, in: dir)
        let out = dir.appendingPathComponent("out").path
        let (r, record) = try Self.package(["--preset", try Self.fastPreset(in: dir), input, out])
        #expect(r.status == 0, "\(r.stderr)")
        for name in ["master.m3u8", "manifest.mpd", "poster.jpg", "package.json"] {
            #expect(FileSystem.isRegularFile(out + "/" + name), "\(name) missing")
        }
        let rungs = try #require(record?["rungs"] as? [[String: Any]])
        #expect(rungs.map { $0["name"] as? String } == ["1080p", "720p", "480p", "360p", "240p"])
        let variants = try PackageCheck.variants(out)
        #expect(variants.count == rungs.count)
        var boundaries: [[Double]] = []
        for variant in variants {
            let peak = try PackageCheck.peakBitRate(out, playlist: variant.uri)
            #expect(Double(variant.bandwidth) >= peak && Double(variant.bandwidth) <= 1.1 * peak, "\(variant.uri): \(variant.bandwidth) vs \(peak)")
            let starts = try PackageCheck.segmentStarts(out, playlist: variant.uri)
            let onKeyframes = starts.allSatisfy { $0.keyframe }
            #expect(onKeyframes, "\(variant.uri): a segment starts without a keyframe")
            boundaries.append(starts.map(\.time))
        }
        for other in boundaries.dropFirst() {
            #expect(other.count == boundaries[0].count && zip(other, boundaries[0]).allSatisfy { abs($0 - $1) <= 0.001 }, "\(other) vs \(boundaries[0])")
        }
        #expect(boundaries[0].count == 3, "10 s in segments of 4 s")
        // The record's files are the folder's, with their checksums.
        let files = try #require(record?["files"] as? [[String: Any]])
        for file in files.prefix(3) {
            let name = try #require(file["name"] as? String)
            let sha = try TestSupport.sha256(out + "/" + name)
            #expect(sha == file["sha256"] as? String)
        }
        try PackageCheck.ffmpegDecodes(out, variants: variants.count)
    }

    @Test("GStreamer's playbin3 plays the HLS and the DASH manifests to the end", .enabled(if: PackageCheck.hasGStreamer, "gst-launch-1.0 is not installed"))
    func gstreamerPlaysBoth() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let input = try Self.source("clip.mp4", size: "854x480", rate: "25", seconds: 6, audio: true, in: dir)
        let out = dir.appendingPathComponent("out").path
        let (r, _) = try Self.package(["--preset", try Self.fastPreset(in: dir), input, out])
        #expect(r.status == 0, "\(r.stderr)")
        for manifest in ["master.m3u8", "manifest.mpd"] {
            let played = try PackageCheck.gstreamerPlays(folder: out, manifest: manifest)
            #expect(played.ok, "\(manifest): \(played.log.suffix(1500))")
        }
    }

    @Test("a 720p 24 fps source without audio: no 1080p rung, 24 fps in every rung, no audio anywhere")
    func trimmedLadder() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let input = try Self.source("clip.mp4", size: "1280x720", rate: "24", seconds: 3, audio: false, in: dir)
        let out = dir.appendingPathComponent("out").path
        let (r, record) = try Self.package(["--preset", try Self.fastPreset(in: dir), "--segment", "2", input, out])
        #expect(r.status == 0, "\(r.stderr)")
        let rungs = try #require(record?["rungs"] as? [[String: Any]])
        #expect(rungs.map { $0["name"] as? String } == ["720p", "480p", "360p", "240p"])
        for rung in rungs {
            let name = try #require(rung["name"] as? String)
            let joined = try PackageCheck.firstSegment(out, rung: name)
            defer { try? FileManager.default.removeItem(atPath: joined) }
            let probe = try TestSupport.run("/usr/bin/ffprobe", ["-v", "error", "-show_entries", "stream=codec_type,r_frame_rate", "-of", "csv=p=0", joined])
            #expect(probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "video,24/1", "\(name): \(probe.stdout)")
            #expect(!(rung["codecs"] as? String ?? "mp4a").contains("mp4a"))
        }
        let master = try String(contentsOfFile: out + "/master.m3u8", encoding: .utf8)
        #expect(!master.contains("mp4a") && !master.contains("1920x1080"))
    }

    @Test("the same source twice: the same package, byte for byte")
    func sameBytes() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let input = try Self.source("clip.mp4", size: "640x360", rate: "30", seconds: 3, audio: true, in: dir)
        let preset = try Self.fastPreset(in: dir)
        let a = dir.appendingPathComponent("a").path, b = dir.appendingPathComponent("b").path
        #expect(try Self.package(["--preset", preset, input, a]).0.status == 0)
        #expect(try Self.package(["--preset", preset, input, b]).0.status == 0)
        let (shaA, shaB) = (try TestSupport.sha256(a + "/package.json"), try TestSupport.sha256(b + "/package.json"))
        #expect(shaA == shaB)
    }

    @Test("a folder of the user's is never replaced, a package only with --overwrite; AV1 and a bad segment length are refused")
    func refusals() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let input = try Self.source("clip.mp4", size: "320x180", rate: "30", seconds: 2, audio: false, in: dir)
        let preset = try Self.fastPreset(in: dir)
        let mine = dir.appendingPathComponent("mine")
        try FileManager.default.createDirectory(at: mine, withIntermediateDirectories: true)
        try Data("keep".utf8).write(to: mine.appendingPathComponent("notes.txt"))
        let refused = try Self.package(["--preset", preset, "-y", input, mine.path]).0
        #expect(refused.status != 0 && refused.stderr.contains("not a package"), "\(refused.stderr)")
        #expect(TestSupport.contents(mine) == ["notes.txt"])
        let out = dir.appendingPathComponent("out").path
        #expect(try Self.package(["--preset", preset, input, out]).0.status == 0)
        let again = try Self.package(["--preset", preset, input, out]).0
        #expect(again.status != 0 && again.stderr.contains("exists"), "\(again.stderr)")
        #expect(try Self.package(["--preset", preset, "--overwrite", input, out]).0.status == 0)
        #expect(try Self.package(["--preset", "av1-highest", input, dir.appendingPathComponent("av1").path]).0.status == 64)
        #expect(try Self.package(["--segment", "30", input, dir.appendingPathComponent("long").path]).0.status == 64)
        #expect(TestSupport.contents(dir).sorted() == ["clip.mp4", "fast.json", "mine", "out"], "no partial folder left behind")
    }

    @Test("--loudness -16 on a -30 LUFS source: every rung at -16 ± 0.5 LUFS and at most -1 dBTP by ffmpeg's ebur128")
    func loudnessNormalised() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let input = try Self.source("clip.mp4", size: "640x360", rate: "25", seconds: 6, audio: true, in: dir,
                                    sound: "anoisesrc=color=pink:amplitude=0.18")
        let before = try PackageCheck.loudness(input)
        #expect(abs(before.integrated + 30) < 3, "the source should be near -30 LUFS: \(before)")
        let out = dir.appendingPathComponent("out").path
        let (r, record) = try Self.package(["--preset", try Self.fastPreset(in: dir), "--loudness", "-16", input, out])
        #expect(r.status == 0, "\(r.stderr)")
        #expect((record?["loudness"] as? [String: Any])?["target"] != nil)
        for rung in ["360p", "240p"] {
            let joined = dir.appendingPathComponent("\(rung).mp4").path
            let parts = try FileManager.default.contentsOfDirectory(atPath: "\(out)/\(rung)").filter { $0.hasSuffix(".m4s") }.sorted()
            let data = try (["init.mp4"] + parts).map { try Data(contentsOf: URL(fileURLWithPath: "\(out)/\(rung)/\($0)")) }.reduce(Data(), +)
            try data.write(to: URL(fileURLWithPath: joined))
            let after = try PackageCheck.loudness(joined)
            #expect(abs(after.integrated + 16) <= 0.5 && after.truePeak <= -1, "\(rung): \(after)")
        }
    }

    @Test("--separate-audio: video-only rungs and audio/, an audio group in HLS, bandwidths summed; the ffmpeg CLI decodes the MPD too")
    func separateAudio() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let input = try Self.source("clip.mp4", size: "640x360", rate: "30", seconds: 3, audio: true, in: dir)
        let out = dir.appendingPathComponent("out").path
        let (r, record) = try Self.package(["--preset", try Self.fastPreset(in: dir), "--separate-audio", "--segment", "2", input, out])
        #expect(r.status == 0, "\(r.stderr)")
        let rungs = try #require(record?["rungs"] as? [[String: Any]])
        #expect(rungs.map { $0["name"] as? String } == ["360p", "240p"])
        for name in ["360p", "240p", "audio"] {
            let joined = try PackageCheck.firstSegment(out, rung: name)
            defer { try? FileManager.default.removeItem(atPath: joined) }
            let probe = try TestSupport.run("/usr/bin/ffprobe", ["-v", "error", "-show_entries", "stream=codec_type", "-of", "csv=p=0", joined])
            #expect(probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == (name == "audio" ? "audio" : "video"), "\(name): \(probe.stdout)")
        }
        let master = try String(contentsOfFile: out + "/master.m3u8", encoding: .utf8)
        #expect(master.contains("#EXT-X-MEDIA:TYPE=AUDIO") && master.contains("AUDIO=\"audio\""))
        let audioPeak = try PackageCheck.peakBitRate(out, playlist: "audio/media.m3u8")
        for variant in try PackageCheck.variants(out) {
            let peak = try PackageCheck.peakBitRate(out, playlist: variant.uri) + audioPeak
            #expect(Double(variant.bandwidth) >= peak && Double(variant.bandwidth) <= 1.1 * peak, "\(variant.uri): \(variant.bandwidth) vs \(peak)")
        }
        try PackageCheck.ffmpegDecodes(out, variants: 2, manifests: ["master.m3u8", "manifest.mpd"])
    }
}
