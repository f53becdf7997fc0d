import Foundation
import Testing
@testable import MediaExportCore

/// Issue 41: a rotated clip into .mkv/.webm (no display matrix there) is turned upright in the pixels by the
/// transcode, a stream copy that would lose its rotation is refused before any work, and RGB sources are converted
/// by BT.709 and tagged so — through the built binary, with ffprobe and the ffmpeg CLI (which auto-rotates) as oracle.
@Suite(.serialized) struct RotationIntoMatroskaTests {
    static func probe(_ path: String, _ entries: String) throws -> String {
        try TestSupport.run("/usr/bin/ffprobe", ["-v", "error", "-show_entries", entries, "-of", "default=nw=1", path]).stdout
    }

    /// Mean R, G, B of each quadrant of the first frame, decoded upright by the ffmpeg CLI and scaled to 32x32.
    static func quadrants(_ path: String) throws -> [[Double]] {
        let bytes = try rawFrame(path, filter: ["-vf", "scale=32:32"])
        guard bytes.count == 32 * 32 * 3 else { return [] }
        return [(0, 0), (16, 0), (0, 16), (16, 16)].map { (x0, y0) in
            (0..<3).map { c in
                var sum = 0.0
                for y in y0..<(y0 + 16) { for x in x0..<(x0 + 16) { sum += Double(bytes[(y * 32 + x) * 3 + c]) } }
                return sum / 256
            }
        }
    }

    /// Mean R, G, B of the first frame decoded to rgb24.
    static func means(_ path: String) throws -> [Double] {
        let data = try rawFrame(path)
        let n = Double(data.count / 3)
        return (0..<3).map { c in stride(from: c, to: data.count, by: 3).reduce(0.0) { $0 + Double(data[$1]) } / n }
    }

    static func rawFrame(_ path: String, filter: [String] = []) throws -> [UInt8] {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("frame-\(UUID().uuidString).rgb").path
        defer { try? FileManager.default.removeItem(atPath: out) }
        try TestSupport.ffmpeg(["-i", path, "-frames:v", "1"] + filter + ["-f", "rawvideo", "-pix_fmt", "rgb24", out])
        return Array(try Data(contentsOf: URL(fileURLWithPath: out)))
    }

    @Test(arguments: [("highest", "mkv", [String]()), ("av1-1280x720", "webm", ["--duration", "1.5"])])
    func aRotatedClipIsTurnedUprightByTheTranscode(preset: String, ext: String, extra: [String]) throws {
        let dir = TestSupport.tempDir("rot-\(ext)"); defer { TestSupport.cleanup(dir) }
        let input = TestSupport.fixture("portrait-rotated.mov"), out = dir.appendingPathComponent("out.\(ext)").path
        let r = try TestSupport.tool(["--preset", preset, "--json"] + extra + [input, out])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(!r.stderr.contains("fallback"), "\(r.stderr)")
        let completed = try #require(r.stdout.split(separator: "\n").first { $0.contains("\"completed\"") })
        #expect(completed.contains("\"route\":\"transcode\"") && completed.contains("\"fallbacks\":[]"), "\(completed)")
        #expect(r.stdout.contains("rotate 270° into the pixels: .\(ext) has no display matrix"), "\(r.stdout)")
        let streams = try Self.probe(out, "stream=width,height:stream_side_data=rotation")
        #expect(streams.contains("width=180") && streams.contains("height=320") && !streams.contains("rotation"), "\(streams)")
        // Upright: the same quadrants as the ffmpeg CLI's auto-rotated decode of the source.
        let want = try Self.quadrants(input), got = try Self.quadrants(out)
        #expect(want.count == 4 && got.count == 4)
        for (a, b) in zip(want, got) { for (x, y) in zip(a, b) { #expect(abs(x - y) < 12, "\(want) vs \(got)") } }
    }

    @Test func aRotatedClipIntoMP4KeepsItsMatrixAndItsPixels() throws {
        let dir = TestSupport.tempDir(); defer { TestSupport.cleanup(dir) }
        let out = dir.appendingPathComponent("out.mp4").path
        let r = try TestSupport.tool(["--preset", "highest", TestSupport.fixture("portrait-rotated.mov"), out])
        #expect(r.status == 0, "\(r.stderr)")
        let streams = try Self.probe(out, "stream=width,height:stream_side_data=rotation")
        #expect(streams.contains("width=320") && streams.contains("height=180") && streams.contains("rotation=90"), "\(streams)")
    }

    @Test func aPassthroughThatWouldLoseTheRotationIsRefusedBeforeAnyWork() throws {
        let dir = TestSupport.tempDir(); defer { TestSupport.cleanup(dir) }
        let hevc = dir.appendingPathComponent("hevc.mov").path
        try TestSupport.ffmpeg(["-noautorotate", "-i", TestSupport.fixture("portrait-rotated.mov"), "-c:v", "libx265", "-x265-params", "log-level=error",
                                "-c:a", "copy", hevc])
        for (input, ext) in [(TestSupport.fixture("portrait-rotated.mov"), "mkv"), (hevc, "webm")] {
            let out = dir.appendingPathComponent("out.\(ext)").path
            let r = try TestSupport.tool(["--preset", "passthrough", input, out])
            #expect(r.status == 65, "\(r.stderr)")
            #expect(r.stderr.contains(".mp4, .mov") && !r.stderr.contains("byte copy"), "\(r.stderr)")
            #expect(TestSupport.contents(dir).filter { $0.hasPrefix("out") }.isEmpty, "no output, no byte copy")
        }
    }

    @Test(arguments: [("highest", "mp4"), ("av1-1280x720", "mp4"), ("av1-1280x720", "webm")])
    func rgbSourcesAreConvertedByBT709(preset: String, ext: String) throws {
        let dir = TestSupport.tempDir("rgb-\(preset)-\(ext)"); defer { TestSupport.cleanup(dir) }
        let gbrp = dir.appendingPathComponent("rgb.mkv").path, png = dir.appendingPathComponent("png.mov").path
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25", "-t", "1", "-c:v", "libx264rgb", "-pix_fmt", "gbrp", gbrp])
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25", "-t", "1", "-c:v", "png", "-pix_fmt", "rgb24", png])
        for input in [gbrp, png] {
            let out = dir.appendingPathComponent("out-\(URL(fileURLWithPath: input).lastPathComponent).\(ext)").path
            let r = try TestSupport.tool(["--preset", preset, input, out])
            #expect(r.status == 0 && !r.stderr.contains("fallback"), "\(r.stderr)")
            let tags = try Self.probe(out, "stream=color_space,color_primaries,color_transfer,color_range")
            #expect(tags.contains("color_space=bt709") && tags.contains("color_primaries=bt709") && tags.contains("color_range=tv"), "\(tags)")
            let want = try Self.means(input), got = try Self.means(out)
            for (a, b) in zip(want, got) { #expect(abs(a - b) / max(a, 1) < 0.02, "\(want) vs \(got)") }
        }
    }

    @Test func anAudioPresetOnAFilmWithoutAudioIsRefusedNotASubtitleAlone() throws {
        let dir = TestSupport.tempDir(); defer { TestSupport.cleanup(dir) }
        let srt = dir.appendingPathComponent("s.srt"), input = dir.appendingPathComponent("in.mkv").path
        try "1\n00:00:00,000 --> 00:00:01,000\nHello\n\n".write(to: srt, atomically: true, encoding: .utf8)
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25", "-i", srt.path, "-t", "1.5", "-c:v", "libx264", "-c:s", "subrip", input])
        let r = try TestSupport.tool(["--preset", "m4a", input, dir.appendingPathComponent("out.webm").path])
        #expect(r.status == 65 && r.stderr.contains("subtitles alone are no export"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("out.webm").path))
    }
}
