import Foundation
import Testing
@testable import MediaExportCore

/// AV1 presets (SVT-AV1) and WebM output (issue 34), through the built binary, with ffprobe as the oracle.
@Suite struct AV1ExportTests {
    /// ffprobe's `key=value` lines for `entries` of `path`'s streams (and frames' side data when asked).
    static func probe(_ path: String, _ entries: String, frames: Bool = false) throws -> String {
        try TestSupport.run("/usr/bin/ffprobe", ["-v", "error", "-show_entries", entries, "-of", "default=nw=1"]
                            + (frames ? ["-show_frames", "-read_intervals", "%+#1"] : []) + [path]).stdout
    }

    @Test func av1IntoWebMIsAV1AndOpusAndIntoMP4IsAV01AndAAC() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let webm = dir.appendingPathComponent("out.webm").path, mp4 = dir.appendingPathComponent("out.mp4").path
        let a = try TestSupport.tool(["--preset", "av1-1280x720", TestSupport.fixture("landscape.mov"), webm])
        #expect(a.status == 0, "\(a.stderr)")
        let w = try FFprobe(webm)
        #expect(w.formatName == "matroska,webm")
        #expect(w.video?.codec == "av1" && w.audio?.codec == "opus" && w.audio?.sampleRate == 48_000)
        #expect((w.video?.width ?? 0) <= 1280 && (w.video?.height ?? 0) <= 720 && w.video?.width == 320)
        #expect(a.stdout.contains("verified:") && !a.stderr.contains("Svt["), "SVT-AV1 kept quiet: \(a.stderr)")
        let b = try TestSupport.tool(["--preset", "av1-1280x720", TestSupport.fixture("landscape.mov"), mp4])
        #expect(b.status == 0, "\(b.stderr)")
        let m = try FFprobe(mp4)
        #expect(m.formatName.contains("mp4"))
        #expect(m.video?.codec == "av1" && m.video?.tag == "av01" && m.video?.pixelFormat == "yuv420p" && m.audio?.codec == "aac")
    }

    @Test func av1HighestOfHDR10HEVCKeepsTenBitsAndPQ() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let out = dir.appendingPathComponent("out.mkv").path
        let r = try TestSupport.tool(["--preset", "av1-highest", TestSupport.fixture("hdr-pq.mp4"), out])
        #expect(r.status == 0, "\(r.stderr)")
        let stream = try Self.probe(out, "stream=codec_name,pix_fmt,color_transfer,color_primaries,color_space")
        #expect(stream.contains("codec_name=av1") && stream.contains("pix_fmt=yuv420p10le"), "\(stream)")
        #expect(stream.contains("color_transfer=smpte2084") && stream.contains("color_primaries=bt2020"), "\(stream)")
        // The HDR10 metadata of the source (its SEI) comes back as AV1 metadata OBUs, read by the decoder as side data.
        let side = try Self.probe(out, "frame=side_data_list", frames: true)
        #expect(side.contains("Mastering display metadata") && side.contains("Content light level metadata"), "\(side)")
        #expect((r.stdout + r.stderr).contains("HDR (PQ) kept: AV1 10-bit"), "\(r.stderr)")
    }

    @Test func presetsListsTheAV1Presets() throws {
        let r = try TestSupport.tool(["presets"])
        #expect(r.status == 0)
        for name in ["av1-highest", "av1-1920x1080", "av1-1280x720"] { #expect(r.stdout.contains(name), "\(r.stdout)") }
    }

    @Test func passthroughOfH264IntoWebMIsRefusedByThePlanner() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let out = dir.appendingPathComponent("out.webm").path
        let r = try TestSupport.tool(["--preset", "passthrough", "--fallback", "none", TestSupport.fixture("landscape.mov"), out])
        #expect(r.status != 0 && r.status != 3)
        #expect(r.stderr.contains(".webm cannot hold video stream #0 (h264); .mp4, .mov, .m4v, .mkv can"), "\(r.stderr)")
        #expect(TestSupport.contents(dir).isEmpty)
    }

    @Test func textSubtitlesBecomeWebVTTInWebM() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let srt = dir.appendingPathComponent("a.srt"), input = dir.appendingPathComponent("in.mkv").path
        try "1\n00:00:00,000 --> 00:00:00,400\nHello\n\n".write(to: srt, atomically: true, encoding: .utf8)
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=96x64:d=0.5:r=12", "-i", srt.path, "-c:v", "libx264", "-preset", "ultrafast",
                                "-c:s", "subrip", input])
        let out = dir.appendingPathComponent("out.webm").path
        let r = try TestSupport.tool(["--preset", "av1-1280x720", input, out])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try FFprobe(out).streams.map(\.codec) == ["av1", "webvtt"])
    }

    @Test func batchNeededCopiesAnAV1SourceThatFitsTheAV1Preset() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let inputs = dir.appendingPathComponent("in"), out = dir.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: inputs, withIntermediateDirectories: true)
        let av1 = inputs.appendingPathComponent("a.mp4").path
        #expect(try TestSupport.tool(["--preset", "av1-1280x720", TestSupport.fixture("landscape.mov"), av1]).status == 0)
        let r = try TestSupport.tool(["batch", inputs.path, "--out", out.path, "--preset", "av1-1280x720", "--policy", "needed"])
        #expect(r.status == 3 || r.status == 0, "\(r.stderr)")
        #expect((r.stdout + r.stderr).contains("0 transcoded"), "\(r.stdout)\(r.stderr)")
        #expect(try TestSupport.sha256(out.appendingPathComponent("a.mp4").path) == (try TestSupport.sha256(av1)))
    }
}
