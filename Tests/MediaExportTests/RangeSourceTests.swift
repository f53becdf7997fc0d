import Foundation
import Testing
@testable import MediaExportCore

/// Ranges of sources whose peculiarities the corpus found (issue 41), recreated with the ffmpeg CLI: an AVI with
/// empty chunks (opencv-tree.avi), H.264 whose last frames before a cut's end are decoded after B-frame references
/// shown past it (moviepy-trailer_bbb.mp4), and Ogg Opus with a long pre-skip (mutagen-example.opus). Each exports
/// healthy input without a fallback, checked on the probed output against what ffmpeg decodes.
@Suite(.serialized) struct RangeSourceTests {
    /// Runs the tool with `--json`: its exit status, stderr, and whether any record is a fallback.
    static func export(_ arguments: [String]) throws -> (status: Int32, stderr: String, fellBack: Bool) {
        let r = try TestSupport.tool(["--json"] + arguments)
        return (r.status, r.stderr, r.stdout.contains("\"kind\":\"fallback\"") || r.stderr.contains("fallback"))
    }

    /// Seconds of audio ffmpeg decodes from `path` (the samples of every frame at the stream's rate: what a player plays).
    static func decodedSeconds(_ path: String) throws -> Double {
        func probe(_ entries: String) throws -> [Double] {
            let r = try TestSupport.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "a", "-show_entries", entries, "-of", "csv=p=0", path])
            return r.stdout.split(separator: "\n").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        }
        let rate = try probe("stream=sample_rate").first ?? 0
        return rate > 0 ? try probe("frame=nb_samples").reduce(0, +) / rate : 0
    }

    /// An AVI whose writer left most frames out as empty chunks (every fifth of 15 fps kept): a range of it holds
    /// the frames its index has there (5 in 1–3 s), not 2 s at 15 fps; the old plan expected 30.
    @Test(arguments: ["mp4", "mkv"])
    func aRangeOfAnAVIWithEmptyChunksHoldsItsFrames(ext: String) throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let source = dir.appendingPathComponent("sparse.avi").path
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=15:duration=6", "-vf", "select='not(mod(n\\,5))'",
                                "-vsync", "vfr", "-c:v", "mpeg4", "-g", "30", "-f", "avi", source])
        let out = dir.appendingPathComponent("cut.\(ext)").path
        let r = try Self.export(["--preset", "low", "--start", "1", "--end", "3", source, out])
        #expect(r.status == 0 && !r.fellBack, "\(r.stderr)")
        #expect(try CutTests.shownFrames(out) == CutTests.ffmpegFrames(source, start: 1, end: 3))
        #expect(try CutTests.shownFrames(out) < 15)
    }

    /// A stream copy ending at 2.9 s keeps frames shown after it, which the last ones before it are decoded after (at
    /// most the reorder depth, 2: three B-frames, pyramid): players show 48 frames for 46. The old plan expected 46 ± 1
    /// and fell back.
    @Test(arguments: ["mp4", "mkv"])
    func aPassthroughCutKeepsTheReferencesPastItsEnd(ext: String) throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let source = dir.appendingPathComponent("bf24.mp4").path
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=24:duration=6", "-c:v", "libx264", "-preset", "veryfast",
                                "-bf", "3", "-g", "48", "-b_strategy", "0", source])
        let out = dir.appendingPathComponent("cut.\(ext)").path
        let r = try Self.export(["--preset", "passthrough", "--start", "1", "--end", "2.9", source, out])
        #expect(r.status == 0 && !r.fellBack, "\(r.stderr)")
        // Into Matroska the copy starts at the keyframe at 0 (no edit list): one more second.
        let frames = try CutTests.shownFrames(out), planned = ext == "mp4" ? 46 : 70
        #expect((planned...(planned + 2)).contains(frames), "\(frames)")
        #expect(try CutTests.firstFrame(out) == CutTests.firstFrame(source, seek: ext == "mp4" ? 1 : 0))
    }

    /// Ogg Opus whose header's pre-skip is 0.5 s (libopus writes 312 samples; the OpusHead is patched, its page's
    /// CRC recomputed): a fresh decoder drops that much wherever it starts, so a range is read that much earlier
    /// and delivers 2 s, not 1.5; a stream copy into Matroska keeps it as CodecDelay, which the check takes off the
    /// track's DURATION tag.
    @Test(arguments: [["--preset", "m4a", "--start", "1", "--end", "3", "m4a"], ["--preset", "low", "--start", "1", "--end", "3", "mkv"],
                      ["--preset", "passthrough", "mkv"]])
    func opusWithALongPreSkipIsExportedAsHeard(arguments: [String]) throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let source = dir.appendingPathComponent("skip.opus").path
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=6", "-c:a", "libopus", "-f", "ogg", source])
        try Self.setPreSkip(24000, ogg: source)
        let out = dir.appendingPathComponent("out.\(arguments.last!)").path
        let r = try Self.export(arguments.dropLast() + [source, out])
        #expect(r.status == 0 && !r.fellBack, "\(r.stderr)")
        let want = arguments.contains("--start") ? 2.0 : try Self.decodedSeconds(source)
        let got = try Self.decodedSeconds(out)
        #expect(abs(got - want) <= 0.03, "\(got) for \(want)")
    }

    /// Rewrites the pre-skip of the OpusHead on the Ogg file's first page, and that page's CRC.
    static func setPreSkip(_ samples: UInt16, ogg path: String) throws {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let segments = Int(bytes[26])
        let length = 27 + segments + bytes[27..<(27 + segments)].reduce(0) { $0 + Int($1) }
        let head = 27 + segments
        #expect(String(decoding: bytes[head..<(head + 8)], as: UTF8.self) == "OpusHead")
        bytes[head + 10] = UInt8(samples & 0xff)
        bytes[head + 11] = UInt8(samples >> 8)
        for i in 22..<26 { bytes[i] = 0 }
        var crc: UInt32 = 0
        for byte in bytes[0..<length] {
            crc ^= UInt32(byte) << 24
            for _ in 0..<8 { crc = crc & 0x8000_0000 != 0 ? (crc << 1) ^ 0x04c1_1db7 : crc << 1 }
        }
        for k in 0..<4 { bytes[22 + k] = UInt8((crc >> (8 * UInt32(k))) & 0xff) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }
}
