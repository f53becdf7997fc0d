import Foundation
import Testing
@testable import MediaExport
@testable import MediaExportCore

/// Manifests over rungs that the ffmpeg CLI segments (`hls` muxer, fragmented MP4), checked against ffprobe, against
/// figures recomputed here from the files and the written playlists, and played by GStreamer and ffmpeg.
@Suite(.serialized) struct StreamingManifestTests {
    static let gstreamer = "/usr/bin/gst-launch-1.0"
    static var hasGStreamer: Bool { FileManager.default.isExecutableFile(atPath: gstreamer) }

    /// A 10 s ladder in `dir`: rungs `r0` (640x360) and `r1` (320x180), keyframes every 4 s (30 fps), AAC unless
    /// `audio` is false; or, with `video` false, two AAC rungs (128 and 64 kbit/s). Returns the renditions read back.
    static func ladder(in dir: URL, audio: Bool = true, video: Bool = true) throws -> [Rendition] {
        let rungs: [(String, String, String)] = video ? [("r0", "640x360", "96k"), ("r1", "320x180", "64k")]
                                                      : [("r0", "", "128k"), ("r1", "", "64k")]
        for (name, size, audioRate) in rungs {
            let source = dir.appendingPathComponent("\(name).mp4").path
            var args: [String] = []
            if video { args += ["-f", "lavfi", "-i", "testsrc2=s=\(size):r=30:d=10"] }
            if audio { args += ["-f", "lavfi", "-i", "sine=d=10:frequency=440"] }
            if video { args += ["-c:v", "libx264", "-preset", "veryfast", "-g", "120", "-keyint_min", "120", "-sc_threshold", "0"] }
            if audio { args += ["-c:a", "aac", "-b:a", audioRate] }
            try TestSupport.ffmpeg(args + ["-shortest", source])
            let folder = dir.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try TestSupport.ffmpeg(["-i", source, "-c", "copy", "-f", "hls", "-hls_time", "4", "-hls_playlist_type", "vod",
                                    "-hls_segment_type", "fmp4", "-hls_fmp4_init_filename", "init.mp4",
                                    "-hls_segment_filename", folder.appendingPathComponent("seg_%05d.m4s").path,
                                    folder.appendingPathComponent("media.m3u8").path])
        }
        return try rungs.map { try RenditionReader.read(root: dir.path, folder: $0.0) }
    }

    /// Writes the manifests into `dir`; returns them.
    @discardableResult
    static func write(_ renditions: [Rendition], in dir: URL) throws -> [StreamingManifests.File] {
        let files = StreamingManifests.files(for: renditions)
        for file in files { try file.text.write(to: dir.appendingPathComponent(file.name), atomically: true, encoding: .utf8) }
        return files
    }

    /// ffprobe's codec tag, profile and level of the first stream of `kind` in `path`.
    static func probe(_ path: String, _ kind: String) throws -> (tag: String, profile: String, level: Int) {
        let r = try TestSupport.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "\(kind):0", "-show_entries",
                                                         "stream=codec_tag_string,profile,level", "-of", "json", path])
        let json = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
        let stream = (json?["streams"] as? [[String: Any]])?.first ?? [:]
        return (stream["codec_tag_string"] as? String ?? "", stream["profile"] as? String ?? "", stream["level"] as? Int ?? -1)
    }

    /// ffprobe's video (else audio) packet durations of one segment, summed (read through its init segment).
    static func probedDuration(_ rendition: Rendition, segment: Int, root: URL, video: Bool) throws -> Double {
        let folder = root.appendingPathComponent(rendition.folder)
        var bytes = try Data(contentsOf: folder.appendingPathComponent(rendition.initName))
        bytes += try Data(contentsOf: folder.appendingPathComponent(rendition.segments[segment].name))
        let joined = root.appendingPathComponent("probe-\(rendition.id)-\(segment).mp4")
        try bytes.write(to: joined)
        defer { try? FileManager.default.removeItem(at: joined) }
        let r = try TestSupport.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", video ? "v:0" : "a:0", "-show_entries",
                                                         "packet=duration_time", "-of", "csv=p=0", joined.path])
        return r.stdout.split(separator: "\n").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }.reduce(0, +)
    }

    /// The `BANDWIDTH` of each variant of the written master playlist, by its URI.
    static func declaredBandwidths(_ master: String) -> [String: Int] {
        var out: [String: Int] = [:]
        let lines = master.split(separator: "\n").map(String.init)
        for (i, line) in lines.enumerated() where line.hasPrefix("#EXT-X-STREAM-INF:") && i + 1 < lines.count {
            let value = line.split(separator: ",").first { $0.contains("BANDWIDTH=") && !$0.contains("AVERAGE") }
            out[lines[i + 1]] = Int(value?.split(separator: "=").last ?? "") ?? 0
        }
        return out
    }

    /// The peak segment bit rate recomputed from a written media playlist's EXTINFs and the segment files' sizes.
    static func peakFromPlaylist(_ playlist: URL) throws -> Double {
        let lines = try String(contentsOf: playlist, encoding: .utf8).split(separator: "\n").map(String.init)
        var peak = 0.0
        for (i, line) in lines.enumerated() where line.hasPrefix("#EXTINF:") {
            let seconds = Double(line.dropFirst(8).dropLast()) ?? 0
            let file = playlist.deletingLastPathComponent().appendingPathComponent(lines[i + 1])
            let size = try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int ?? 0
            peak = max(peak, Double(size) * 8 / seconds)
        }
        return peak
    }

    @Test func muxedLadderReadsWritesAndAgreesWithFFprobe() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let renditions = try Self.ladder(in: dir)
        try Self.write(renditions, in: dir)
        for rendition in renditions {
            let source = dir.appendingPathComponent("\(rendition.folder).mp4").path
            let video = try Self.probe(source, "v"), audio = try Self.probe(source, "a")
            let profile = ["High": "64", "Main": "4D", "Constrained Baseline": "42", "Baseline": "42"][video.profile] ?? "?"
            #expect(rendition.codecs.count == 2)
            #expect(rendition.codecs[0].hasPrefix("\(video.tag).\(profile)"))
            #expect(rendition.codecs[0].hasSuffix(SampleEntryCodec.hex(video.level, digits: 2)))
            #expect(audio.profile == "LC" && rendition.codecs[1] == "\(audio.tag).40.2")
            #expect(rendition.frameRate == 30 && rendition.segments.count == 3)
            for i in rendition.segments.indices {
                let probed = try Self.probedDuration(rendition, segment: i, root: dir, video: true)
                // ffprobe prints each packet's duration to 6 places (512/15360 s as 0.033333).
                let tolerance = 1e-6 * Double(rendition.segments[i].timing?.sampleCount ?? 0)
                #expect(abs(probed - rendition.durations[i]) < tolerance, "\(rendition.id) segment \(i): \(probed)")
                #expect(rendition.segments[i].tracks.allSatisfy { $0.startsWithSync })
            }
        }
        #expect(renditions[0].durations == [4, 4, 2] && renditions[1].starts == [0, 4, 8])
        try Self.checkBandwidths(renditions, in: dir)
        let declared = renditions.map { StreamingManifests.declared($0) }
        #expect(PackageValidator.check(renditions, declared: declared, targetDuration: 4) == [])
        #expect(PackageValidator.check(renditions, declared: declared, targetDuration: 3)
            .contains(.segmentTooLong(rendition: "r0", segment: 0, duration: 4, limit: 3.5)))
        try Self.checkIFrames(renditions[0], in: dir)
    }

    /// Each variant's BANDWIDTH within 0–10 % over the peak recomputed from the files and the written EXTINFs.
    static func checkBandwidths(_ renditions: [Rendition], in dir: URL) throws {
        let master = try String(contentsOf: dir.appendingPathComponent("master.m3u8"), encoding: .utf8)
        let bandwidths = declaredBandwidths(master)
        #expect(bandwidths.count == renditions.count)
        for rendition in renditions {
            let peak = try peakFromPlaylist(dir.appendingPathComponent("\(rendition.folder)/media.m3u8"))
            let declared = try #require(bandwidths["\(rendition.folder)/media.m3u8"])
            #expect(Double(declared) >= peak && Double(declared) <= peak * 1.10, "\(rendition.id): \(declared) for \(peak)")
        }
    }

    /// The I-frame playlist's first range, cut out with its init segment, is one decodable key frame.
    static func checkIFrames(_ rendition: Rendition, in dir: URL) throws {
        let folder = dir.appendingPathComponent(rendition.folder)
        let playlist = try String(contentsOf: folder.appendingPathComponent("iframes.m3u8"), encoding: .utf8)
        let range = try #require(rendition.segments[1].firstVideoSample)
        #expect(playlist.contains("#EXT-X-BYTERANGE:\(range.length)@\(range.offset)\nseg_00001.m4s"))
        let segment = try Data(contentsOf: folder.appendingPathComponent("seg_00001.m4s"))
        let cut = try Data(contentsOf: folder.appendingPathComponent("init.mp4")) + segment[range.offset..<range.offset + range.length]
        let path = dir.appendingPathComponent("iframe.mp4")
        try cut.write(to: path)
        let r = try TestSupport.run("/usr/bin/ffmpeg", ["-v", "error", "-i", path.path, "-map", "0:v", "-f", "null", "-"])
        let frames = try TestSupport.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "v:0", "-count_frames",
                                                              "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", path.path])
        #expect(r.status == 0 && frames.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "1", "\(r.stderr)")
    }
}

/// Independent players: GStreamer's adaptive demuxers (over HTTP on the loopback) and ffmpeg's.
extension StreamingManifestTests {
    /// A free TCP port on the loopback (the kernel's pick; released before the server binds it).
    static func freePort() throws -> Int {
        let r = try TestSupport.run("/usr/bin/python3", ["-c", "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])"])
        return Int(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }

    /// Serves `dir` with `python3 -m http.server` on the loopback while `body` runs with the base URL; stops it by its
    /// process after.
    static func serving<T>(_ dir: URL, _ body: (String) throws -> T) throws -> T {
        let port = try freePort()
        let server = Process()
        server.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        server.arguments = ["-m", "http.server", "\(port)", "--bind", "127.0.0.1"]
        server.currentDirectoryURL = dir
        server.standardOutput = FileHandle.nullDevice
        server.standardError = FileHandle.nullDevice
        try server.run()
        defer {
            // SIGKILL: a child inherits the test process's blocked signals, SIGTERM among them.
            kill(server.processIdentifier, SIGKILL)
            server.waitUntilExit()
        }
        // Wait (at most 5 s) until it answers.
        for _ in 0..<50 {
            let probe = try TestSupport.run("/usr/bin/python3", ["-c", "import urllib.request as u; u.urlopen('http://127.0.0.1:\(port)/', timeout=1)"])
            if probe.status == 0 { break }
            usleep(100_000)
        }
        return try body("http://127.0.0.1:\(port)")
    }

    /// playbin3 with fake sinks, at most 120 s: true when it reached EOS.
    static func playsToEOS(_ uri: String) throws -> (Bool, String) {
        let r = try TestSupport.run("/usr/bin/timeout", ["-s", "KILL", "120", gstreamer, "-m", "playbin3", "uri=\(uri)",
                                                         "video-sink=fakesink sync=false", "audio-sink=fakesink sync=false"])
        return (r.stdout.contains("Got EOS from element"), String(r.stdout.suffix(600)) + String(r.stderr.suffix(600)))
    }

    /// ffmpeg decodes each program (HLS variant) of the master playlist, and (with `mpd`) each stream of the MPD,
    /// with no error. FFmpeg 5.1's DASH demuxer takes one stream per Representation: the packets of a muxed one
    /// (video and audio in the same segments) all go to its first stream, so it cannot read a muxed MPD.
    static func ffmpegDecodes(_ dir: URL, programs: Int, mpd checkMPD: Bool) throws {
        for n in 0..<programs {
            let r = try TestSupport.run("/usr/bin/timeout", ["-s", "KILL", "120", "/usr/bin/ffmpeg", "-v", "error", "-i",
                                                             dir.appendingPathComponent("master.m3u8").path,
                                                             "-map", "0:p:\(n)", "-f", "null", "-"])
            #expect(r.status == 0 && r.stderr.isEmpty, "HLS variant \(n): \(r.stderr)")
        }
        guard checkMPD else { return }
        let mpd = try TestSupport.run("/usr/bin/timeout", ["-s", "KILL", "120", "/usr/bin/ffmpeg", "-v", "error", "-i",
                                                           dir.appendingPathComponent("manifest.mpd").path, "-map", "0", "-f", "null", "-"])
        #expect(mpd.status == 0 && mpd.stderr.isEmpty, "MPD: \(mpd.stderr)")
    }

    static func playBoth(_ dir: URL) throws {
        try serving(dir) { base in
            for name in ["master.m3u8", "manifest.mpd"] {
                let (ok, log) = try playsToEOS("\(base)/\(name)")
                #expect(ok, "\(name): \(log)")
            }
        }
    }

    @Test(.enabled(if: hasGStreamer, "needs gst-launch-1.0 (gstreamer1.0-tools, -plugins-good, -plugins-bad, -libav)"))
    func gstreamerAndFFmpegPlayTheMuxedLadder() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        try Self.write(try Self.ladder(in: dir), in: dir)
        try Self.playBoth(dir)
        try Self.ffmpegDecodes(dir, programs: 2, mpd: false)
    }

    @Test(.enabled(if: hasGStreamer, "needs gst-launch-1.0 (gstreamer1.0-tools, -plugins-good, -plugins-bad, -libav)"))
    func videoOnlyAndAudioOnlyLaddersPlay() throws {
        for (audio, video) in [(false, true), (true, false)] {
            let dir = TestSupport.tempDir()
            defer { TestSupport.cleanup(dir) }
            let renditions = try Self.ladder(in: dir, audio: audio, video: video)
            let files = try Self.write(renditions, in: dir)
            #expect(renditions.allSatisfy { $0.codecs == [video ? $0.codecs[0] : "mp4a.40.2"] && $0.codecs.count == 1 })
            #expect(files.contains { $0.name == "r0/iframes.m3u8" } == video)
            let declared = renditions.map { StreamingManifests.declared($0) }
            #expect(PackageValidator.check(renditions, declared: declared, targetDuration: 4) == [])
            try Self.checkBandwidths(renditions, in: dir)
            try Self.playBoth(dir)
            try Self.ffmpegDecodes(dir, programs: 2, mpd: true)
        }
    }
}

/// Video-only rungs with one separate audio rendition: the layout every player reads, FFmpeg's DASH demuxer included.
extension StreamingManifestTests {
    /// An AAC-only rendition in `dir/audio`, 10 s, cut at 4 s.
    static func audioRendition(in dir: URL) throws -> Rendition {
        let source = dir.appendingPathComponent("audio.m4a").path
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "sine=d=10:frequency=440", "-c:a", "aac", "-b:a", "96k", source])
        let folder = dir.appendingPathComponent("audio")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try TestSupport.ffmpeg(["-i", source, "-c", "copy", "-f", "hls", "-hls_time", "4", "-hls_playlist_type", "vod",
                                "-hls_segment_type", "fmp4", "-hls_fmp4_init_filename", "init.mp4",
                                "-hls_segment_filename", folder.appendingPathComponent("seg_%05d.m4s").path,
                                folder.appendingPathComponent("media.m3u8").path])
        return try RenditionReader.read(root: dir.path, folder: "audio")
    }

    @Test(.enabled(if: hasGStreamer, "needs gst-launch-1.0 (gstreamer1.0-tools, -plugins-good, -plugins-bad, -libav)"))
    func separateAudioRenditionPlaysInBothManifests() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let renditions = try Self.ladder(in: dir, audio: false)
        let audio = try Self.audioRendition(in: dir)
        let files = StreamingManifests.files(for: renditions, audio: audio)
        for file in files { try file.text.write(to: dir.appendingPathComponent(file.name), atomically: true, encoding: .utf8) }
        let master = try #require(files.first { $0.name == "master.m3u8" }).text
        #expect(master.contains("#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"audio\",NAME=\"audio\",DEFAULT=YES,AUTOSELECT=YES,URI=\"audio/media.m3u8\""))
        #expect(master.contains(",AUDIO=\"audio\"") && master.contains("CODECS=\"\(renditions[0].codecs[0]),mp4a.40.2\""))
        // The variant's BANDWIDTH counts the audio it is played with: within 0–10 % of both peaks recomputed here.
        let audioPeak = try Self.peakFromPlaylist(dir.appendingPathComponent("audio/media.m3u8"))
        for (uri, declared) in Self.declaredBandwidths(master) {
            let peak = try Self.peakFromPlaylist(dir.appendingPathComponent(uri)) + audioPeak
            #expect(Double(declared) >= peak && Double(declared) <= peak * 1.10, "\(uri): \(declared) for \(peak)")
        }
        let declared = renditions.map { StreamingManifests.declared($0, audio: audio) } + [StreamingManifests.declared(audio)]
        #expect(PackageValidator.check(renditions, declared: declared, audio: audio, targetDuration: 4) == [])
        try Self.playBoth(dir)
        try Self.ffmpegDecodes(dir, programs: 2, mpd: true)
    }
}
