import Foundation
import Testing
@testable import MediaExport
@testable import MediaExportCore
@testable import MediaExportFFmpeg
@testable import mediaexport

@Suite struct PresetTests {
    @Test func builtInCatalogHasEveryPreset() throws {
        let names = Set(try PresetCatalog.builtIn().presets.map(\.name))
        #expect(names == ["highest", "medium", "low", "640x480", "960x540", "1280x720", "1920x1080", "3840x2160",
                          "hevc-highest", "hevc-1920x1080", "hevc-3840x2160", "passthrough", "m4a",
                          "av1-highest", "av1-1920x1080", "av1-1280x720", "upload-high", "upload-web"])
    }

    @Test(arguments: [("AVAssetExportPresetHighestQuality", "highest"), ("avassetexportpreset1280x720", "1280x720"),
                      ("AVASSETEXPORTPRESETPASSTHROUGH", "passthrough"), ("AVAssetExportPresetHEVC1920x1080", "hevc-1920x1080"),
                      ("AVAssetExportPresetAppleM4A", "m4a"), ("HIGHEST", "highest")])
    func appleNamesAreAliases(alias: String, name: String) throws {
        #expect(try PresetCatalog.builtIn().resolve(alias).name == name)
    }

    @Test func unknownPresetNamesTheKnownOnes() throws {
        #expect(throws: ExportError.presetNotFound(name: "ultra", known: try PresetCatalog.builtIn().presets.map(\.name))) {
            try PresetCatalog.builtIn().resolve("ultra")
        }
    }

    // The box holds the displayed picture in either orientation; never upscales; keeps aspect; even sides.
    @Test(arguments: [
        (1920, 1080, 1280, 720, 1280, 720),
        (1080, 1920, 1280, 720, 720, 1280),   // portrait through a landscape box
        (640, 360, 1280, 720, 640, 360),      // never upscale
        (322, 242, 640, 480, 322, 242),
        (322, 242, 160, 120, 160, 120),
        (321, 241, 3840, 2160, 320, 240),     // odd sides rounded to even, not up
        (1440, 1080, 1280, 720, 960, 720),    // 4:3 in a 16:9 box: height bound
        (3840, 2160, 960, 540, 960, 540),
        (1000, 1000, 1280, 720, 720, 720),
    ])
    func sizeBoxFits(w: Int, h: Int, boxW: Int, boxH: Int, outW: Int, outH: Int) {
        let fitted = SizeBox(boxW, boxH).fit(width: w, height: h)
        #expect(fitted.width == outW && fitted.height == outH)
        #expect(fitted.width % 2 == 0 && fitted.height % 2 == 0)
        #expect(fitted.width <= max(w, 2) && fitted.height <= max(h, 2))
    }

    @Test(arguments: [
        ("{", "-", "not valid JSON"),
        (#"{"name": "x", "video": {"codec": "h264", "crf": "high"}}"#, "video.crf", "expected Int"),
        (#"{"name": "x", "video": {"codec": "vp9"}}"#, "video.codec", "VideoCodec"),
        (#"{"name": "x", "video": {"codec": "h264", "crf": 99}}"#, "video.crf", "between 0 and 51"),
        (#"{"name": "x", "video": {"codec": "av1", "pixelFormat": "yuv444p"}}"#, "video.pixelFormat", "must be one of yuv420p, yuv420p10le"),
        (#"{"name": "x", "video": {"codec": "h264", "hdr": "keep"}}"#, "video.hdr", "keep needs codec hevc or av1"),
        (#"{"name": "x", "video": {"codec": "h264", "maxSize": [1280]}}"#, "video.maxSize", "expected [width, height]"),
        (#"{"name": "x", "audio": {"bitrate": 128000, "sampleRate": 12345}}"#, "audio.sampleRate", "must be one of"),
        (#"{"name": "x", "audio": {}, "colour": "red"}"#, "colour", "unknown key"),
        (#"{"name": "x", "video": {"codec": "h264", "crf ": 20}}"#, "video.crf ", "unknown key"),
        (#"{"video": {"codec": "h264"}}"#, "name", "required key is missing"),
        (#"{"name": "x"}"#, "video", "needs video or audio"),
        (#"[1, 2]"#, "-", "JSON object"),
    ])
    func brokenPresetFileNamesFileAndField(json: String, field: String, reason: String) throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let file = dir.appendingPathComponent("bad.json")
        try json.write(to: file, atomically: true, encoding: .utf8)
        do {
            _ = try PresetCatalog.builtIn().resolve(file.path)
            Issue.record("expected an error for \(json)")
        } catch let ExportError.invalidPreset(path, f, r) {
            #expect(path == file.path)
            #expect(f == field)
            #expect(r.contains(reason))
        }
    }

    @Test func userPresetFileLoads() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let file = dir.appendingPathComponent("tiny.json")
        try #"{"name": "tiny", "video": {"codec": "h264", "encoderPreset": "ultrafast", "crf": 30, "maxSize": [160, 90]}, "audio": {"bitrate": 64000, "sampleRate": 44100, "channels": 1}}"#
            .write(to: file, atomically: true, encoding: .utf8)
        let preset = try PresetCatalog.builtIn().resolve(file.path)
        #expect(preset.video?.maxSize == SizeBox(160, 90))
        #expect(preset.audio?.sampleRate == 44100)
        let out = dir.appendingPathComponent("out.mp4").path
        try TestSupport.export(TestSupport.fixture("landscape.mov"), to: out, preset: file.path)
        let probe = try FFprobe(out)
        #expect(probe.video?.width == 160 && probe.video?.height == 90)
        #expect(probe.audio?.sampleRate == 44100 && probe.audio?.channels == 1)
    }

    @Test func presetsRoundTripThroughJSON() throws {
        for preset in try PresetCatalog.builtIn().presets {
            let data = try JSONEncoder().encode(preset)
            #expect(try JSONDecoder().decode(Preset.self, from: data) == preset)
        }
    }
}
