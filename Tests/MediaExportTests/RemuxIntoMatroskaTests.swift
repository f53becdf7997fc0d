import Foundation
import Testing
@testable import MediaExportCore

/// Healthy files that fell back on the corpus run (issue 41), remade with the ffmpeg CLI and exported through the
/// built binary: stream copies whose packets lack a PTS (MPEG-PS and AVI with B-frames), an Ogg with comments over
/// several pages, an Opus with a long pre-skip into Matroska, and languages as each container stores them. Each
/// must succeed on its planned route, with no `fallback` record, and read back (ffprobe) as planned.
@Suite(.serialized) struct RemuxIntoMatroskaTests {
    /// Runs the binary with `--json`; its exit status and whether a `fallback` record was written.
    static func export(_ args: [String]) throws -> (status: Int32, fellBack: Bool, stdout: String) {
        let r = try TestSupport.tool(["--json"] + args)
        return (r.status, r.stdout.contains("\"kind\":\"fallback\""), r.stdout + r.stderr)
    }

    /// One ffprobe value per line for `entries` of the streams `select` picks (e.g. `v:0`).
    static func probe(_ path: String, _ select: String, _ entries: String, count: Bool = false) throws -> [String] {
        let r = try TestSupport.run("/usr/bin/ffprobe", ["-v", "error"] + (count ? ["-count_packets"] : []) + ["-select_streams", select,
                                    "-show_entries", entries, "-of", "csv=p=0", path])
        return r.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: ", ")) }.filter { !$0.isEmpty }
    }

    /// An MPEG-PS (`-f vob`) and an AVI of MPEG-4 with B-frames: many video packets come without a PTS (several
    /// frames in one PES packet; AVI stores none), which Matroska refused ("Can't write packet with unknown
    /// timestamp", then a byte copy) and MP4 showed at their DTS (two frames at one time).
    @Test(arguments: [("mpg", ["-c:v", "mpeg2video", "-c:a", "mp2", "-f", "vob"]), ("avi", ["-c:v", "mpeg4", "-c:a", "mp3", "-f", "avi"])],
          ["mkv", "mp4"])
    func copyWithoutPresentationTimes(_ source: (ext: String, args: [String]), _ container: String) throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let input = dir.appendingPathComponent("in.\(source.ext)").path
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "testsrc=d=2:s=64x48:r=25", "-f", "lavfi", "-i", "sine=d=2", "-bf", "2", "-g", "12"]
                               + source.args + [input])
        #expect(try Self.probe(input, "v:0", "packet=pts").contains("N/A"), "the input should have packets without a PTS")
        let output = dir.appendingPathComponent("out.\(container)").path
        let run = try Self.export(["--preset", "passthrough", input, output])
        #expect(run.status == 0 && !run.fellBack, "\(run.stdout)")
        let frames = try Self.probe(input, "v:0", "stream=nb_read_packets", count: true)
        #expect(try Self.probe(output, "v:0", "stream=nb_read_packets", count: true) == frames)
        // Every frame has a time of its own, and the frames are shown in order once sorted (no two at one time).
        let pts = try Self.probe(output, "v:0", "packet=pts").compactMap { Int($0) }
        #expect(pts.count == Int(frames.first ?? "") && Set(pts).count == pts.count, "pts: \(pts)")
        #expect(try Self.probe(output, "a:0", "stream=codec_name").count == 1)
    }

    /// An Ogg Vorbis whose comment header spans several pages, copied into Matroska and MP4.
    @Test(arguments: ["mkv", "mp4"])
    func oggWithCommentPages(_ container: String) throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let input = dir.appendingPathComponent("in.ogg").path
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "sine=d=1.3", "-c:a", "libvorbis", "-metadata", "comment=" + String(repeating: "x", count: 70_000), input])
        let output = dir.appendingPathComponent("out.\(container)").path
        let run = try Self.export(["--preset", "passthrough", input, output])
        #expect(run.status == 0 && !run.fellBack, "\(run.stdout)")
        #expect(try Self.probe(output, "a:0", "stream=nb_read_packets", count: true) == Self.probe(input, "a:0", "stream=nb_read_packets", count: true))
    }

    /// An Ogg Opus whose pre-skip is half a second (the corpus's had 65535 samples): Matroska stores it as
    /// `CodecDelay` and adds it to every timestamp and to its `DURATION` tag, which the verifier took for the
    /// stream's length (a plan mismatch, then a byte copy).
    @Test func opusWithLongPreSkip() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let encoded = dir.appendingPathComponent("enc.opus").path
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "sine=d=3", "-c:a", "libopus", encoded])
        let input = dir.appendingPathComponent("in.opus").path
        try OggPages.setOpusPreSkip(24_000, from: encoded, to: input)
        let output = dir.appendingPathComponent("out.mkv").path
        let run = try Self.export(["--preset", "passthrough", input, output])
        #expect(run.status == 0 && !run.fellBack, "\(run.stdout)")
        // The read-back timeline (what plays) lasts 2.5 s; the DURATION tag counts the 0.5 s delay too.
        let last = try Self.probe(output, "a:0", "packet=pts,duration").last?.split(separator: ",").compactMap { Double($0) } ?? []
        #expect(last.count == 2 && abs((last[0] + last[1]) / 1000 - 2.5) < 0.03, "last packet: \(last)")
    }

    /// A Matroska clip whose streams say French and German (bibliographic codes) into each container: MOV's
    /// Macintosh list spells French `fra` (its muxer drops `fre`: "expected fre, measured none" before), MP4 and
    /// Matroska keep the codes as written.
    @Test(arguments: [("mov", "low", ["fra", "ger"]), ("mp4", "low", ["fre", "ger"]), ("mkv", "low", ["fre", "ger"]),
                      ("webm", "av1-1280x720", ["fre", "ger"])])
    func languagesAsTheContainerStores(_ container: String, _ preset: String, _ expected: [String]) throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let input = dir.appendingPathComponent("in.mkv").path
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "testsrc=d=1:s=128x72:r=10", "-f", "lavfi", "-i", "sine=d=1", "-c:v", "libx264", "-preset",
                                "ultrafast", "-c:a", "libvorbis", "-metadata:s:v:0", "language=fre", "-metadata:s:a:0", "language=ger", input])
        let output = dir.appendingPathComponent("out.\(container)").path
        let run = try Self.export(["--preset", preset, input, output])
        #expect(run.status == 0 && !run.fellBack, "\(run.stdout)")
        let languages = try Self.probe(output, "v:0", "stream_tags=language") + Self.probe(output, "a:0", "stream_tags=language")
        #expect(languages == expected)
    }
}

/// Edits an Ogg file's pages in place (their CRC recomputed): for inputs the ffmpeg CLI cannot make.
enum OggPages {
    /// Ogg's CRC-32 (polynomial 0x04C11DB7, not reflected, no final XOR) over a page whose CRC field is zero.
    static func crc(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var c: UInt32 = 0
        for b in bytes {
            c ^= UInt32(b) << 24
            for _ in 0..<8 { c = (c & 0x8000_0000) != 0 ? (c << 1) ^ 0x04C1_1DB7 : c << 1 }
        }
        return c
    }

    /// Recomputes the CRC of the page that starts at `start`.
    static func fixCRC(_ d: inout [UInt8], page start: Int) {
        let segments = Int(d[start + 26])
        let body = d[(start + 27)..<(start + 27 + segments)].reduce(0) { $0 + Int($1) }
        for k in 22..<26 { d[start + k] = 0 }
        let value = crc(d[start..<(start + 27 + segments + body)])
        for k in 0..<4 { d[start + 22 + k] = UInt8(truncatingIfNeeded: value >> (8 * UInt32(k))) }
    }

    /// Copies an Ogg Opus file with its `OpusHead` pre-skip set to `samples` (48 kHz).
    static func setOpusPreSkip(_ samples: UInt16, from source: String, to target: String) throws {
        var d = Array(try Data(contentsOf: URL(fileURLWithPath: source)))
        let head = Array("OpusHead".utf8)
        let at = try #require((0..<(d.count - head.count)).first { Array(d[$0..<($0 + head.count)]) == head })
        d[at + 10] = UInt8(samples & 0xFF)
        d[at + 11] = UInt8(samples >> 8)
        fixCRC(&d, page: 0)
        try Data(d).write(to: URL(fileURLWithPath: target))
    }
}
