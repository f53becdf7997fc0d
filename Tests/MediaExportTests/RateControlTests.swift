import Foundation
import Testing
@testable import MediaExport
@testable import MediaExportCore

/// `video.maxBitrate` / `video.bufferSize`: a CRF capped by the VBV, as ffmpeg's `-maxrate`/`-bufsize`.
@Suite struct RateControlTests {
    static func videoBitRate(_ path: String) throws -> Int {
        let r = try TestSupport.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=bit_rate", "-of", "csv=p=0", path])
        return try #require(Int(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)), "ffprobe: \(r.stdout)")
    }

    @Test func maxBitrateCapsACRFEncodeOfNoise() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        // Camera-like noise, 6 s: CRF 18 alone gives several Mb/s.
        let source = dir.appendingPathComponent("noise.mp4").path
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=640x360:rate=30:duration=6,noise=alls=40:allf=t", "-c:v", "libx264",
                                "-preset", "ultrafast", "-crf", "8", source])
        var preset = try TestSupport.preset("1280x720")
        preset.video?.crf = 18
        let free = dir.appendingPathComponent("free.mp4").path
        try ExportSession(request: ExportRequest(input: source, output: free, preset: preset)).run()
        preset.video?.maxBitrate = 300_000
        let capped = dir.appendingPathComponent("capped.mp4").path
        try ExportSession(request: ExportRequest(input: source, output: capped, preset: preset)).run()
        let uncapped = try Self.videoBitRate(free), rate = try Self.videoBitRate(capped)
        #expect(uncapped > 3 * 300_000, "uncapped \(uncapped)")
        // The VBV starts 90 % full (its 600 000-bit buffer spent over the first seconds): 300 k + 540 k / 6 s at most.
        #expect(rate <= 300_000 + 540_000 / 6 + 15_000, "capped \(rate)")
    }

    /// A short clip: x264's VBV would start 90 % full and spend that above the cap (the CLI's `-maxrate 400k
    /// -bufsize 800k` gives ~560 kb/s on 2 s); the planner starts it emptier, so the whole output keeps to the cap.
    @Test(arguments: [VideoCodec.h264, .hevc])
    func maxBitrateHoldsOnAShortClip(codec: VideoCodec) throws {
        let dir = TestSupport.tempDir("short-\(codec)")
        defer { TestSupport.cleanup(dir) }
        let source = dir.appendingPathComponent("noise.mp4").path
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=30:duration=2,noise=alls=12:allf=t", "-c:v", "libx264",
                                "-preset", "ultrafast", "-crf", "20", source])
        var settings = VideoSettings(codec: codec, encoderPreset: "veryfast", crf: 23)
        settings.maxBitrate = 400_000
        let output = dir.appendingPathComponent("capped.mp4").path
        let completed = try ExportSession(request: ExportRequest(input: source, output: output, preset: Preset(name: "cap", video: settings))).run()
        let rate = try Self.videoBitRate(output)
        #expect(rate <= 460_000 && rate >= 150_000, "\(rate) b/s")
        #expect(completed.duration > 1.9)
    }

    @Test func maxBitrateIsValidated() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        for (json, field, reason) in [
            (#"{"name":"x","video":{"codec":"h264","maxBitrate":5}}"#, "video.maxBitrate", "must be between 10000 and 2000000000 bits/s, got 5"),
            (#"{"name":"x","video":{"codec":"h264","bufferSize":800000}}"#, "video.bufferSize", "needs video.maxBitrate"),
        ] {
            let file = dir.appendingPathComponent("p.json")
            try Data(json.utf8).write(to: file)
            #expect(throws: ExportError.invalidPreset(path: file.path, field: field, reason: reason)) { try PresetCatalog.load(file: file) }
        }
        let ok = dir.appendingPathComponent("ok.json")
        try Data(#"{"name":"ok","video":{"codec":"hevc","maxBitrate":400000,"bufferSize":1000000}}"#.utf8).write(to: ok)
        let preset = try PresetCatalog.load(file: ok)
        #expect(preset.video?.maxBitrate == 400_000 && preset.video?.bufferSize == 1_000_000)
    }
}
