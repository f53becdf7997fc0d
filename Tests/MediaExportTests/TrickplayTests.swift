import Foundation
import Testing
@testable import MediaExport
@testable import MediaExportCore

/// Scrub previews made from real files: sheet sizes as declared (probed by ffprobe), cues, the WebVTT text, the
/// keyframe rule, upright tiles of a rotated source, and a file with no video.
@Suite struct TrickplayTests {
    /// A 10 s 640x360 H.264 clip with keyframes every `gop` frames (25 fps).
    static func clip(_ dir: URL, gop: Int, name: String = "clip.mp4", extra: [String] = []) throws -> String {
        let path = dir.appendingPathComponent(name).path
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=640x360:rate=25:duration=10", "-c:v", "libx264",
                                "-preset", "ultrafast", "-g", String(gop), "-keyint_min", String(gop), "-sc_threshold", "0",
                                "-pix_fmt", "yuv420p"] + extra + [path])
        return path
    }

    static func size(_ path: String) throws -> (width: Int, height: Int) {
        let probe = try FFprobe(path)
        return (probe.video?.width ?? 0, probe.video?.height ?? 0)
    }

    @Test func tenSecondClipOnKeyframes() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let input = try Self.clip(dir, gop: 100)  // keyframes every 4 s
        let out = dir.appendingPathComponent("pkg").path
        let result = try Trickplay.render(input: input, into: out)
        // Keyframes 4 s apart: the interval is 4 s, three tiles (0, 4, 8), each a keyframe.
        #expect(result.interval == 4 && result.keyframesOnly && result.cueCount == 3 && result.duration == 10)
        #expect(result.tileWidth == 160 && result.tileHeight == 90 && result.columns == 3)
        #expect(result.framesDecoded == 3)
        #expect(result.sheets == [SpriteSheet(name: "sprites/sheet_000.jpg", width: 480, height: 90, tiles: 3)])
        let sheet = try Self.size(out + "/sprites/sheet_000.jpg")
        #expect(sheet.width == 480 && sheet.height == 90)
        #expect(try FFprobe(out + "/sprites/sheet_000.jpg").video?.codec == "mjpeg")
        let vtt = try String(contentsOfFile: out + "/thumbnails.vtt", encoding: .utf8)
        #expect(vtt == """
            WEBVTT

            00:00:00.000 --> 00:00:04.000
            sprites/sheet_000.jpg#xywh=0,0,160,90

            00:00:04.000 --> 00:00:08.000
            sprites/sheet_000.jpg#xywh=160,0,160,90

            00:00:08.000 --> 00:00:10.000
            sprites/sheet_000.jpg#xywh=320,0,160,90

            """)
        let index = try JSONDecoder().decode(SpriteIndex.self, from: Data(contentsOf: URL(fileURLWithPath: out + "/thumbnails.json")))
        #expect(index.cues.last?.end == 10 && index.cues.count == 3)
        #expect(index.problems(pictures: ["sprites/sheet_000.jpg": sheet]).isEmpty)
        #expect(TestSupport.contents(URL(fileURLWithPath: out)) == ["sprites", "thumbnails.json", "thumbnails.vtt"])
    }

    @Test func askedIntervalFinerThanKeyframesDecodesEveryFrame() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let input = try Self.clip(dir, gop: 250)  // one keyframe
        let out = dir.appendingPathComponent("pkg").path
        let result = try Trickplay.render(input: input, into: out, interval: 0.5, tileWidth: 120)
        #expect(!result.keyframesOnly && result.interval == 0.5 && result.cueCount == 20)
        #expect(result.tileWidth == 120 && result.tileHeight == 68 && result.columns == 10 && result.rows == 2)
        #expect(result.framesDecoded >= 238)  // up to the last tile (9.5 s)
        let sheet = try Self.size(out + "/sprites/sheet_000.jpg")
        #expect(sheet.width == 1200 && sheet.height == 136)
        let vtt = try String(contentsOfFile: out + "/thumbnails.vtt", encoding: .utf8)
        #expect(vtt.hasSuffix("00:00:09.500 --> 00:00:10.000\nsprites/sheet_000.jpg#xywh=1080,68,120,68\n"))
        #expect(vtt.components(separatedBy: "-->").count == 21)
    }

    @Test func rotatedSourceGivesPortraitTiles() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let plain = try Self.clip(dir, gop: 50)
        let rotated = dir.appendingPathComponent("rotated.mp4").path
        try TestSupport.ffmpeg(["-i", plain, "-c", "copy", "-metadata:s:v:0", "rotate=90", rotated])
        #expect(try FFprobe(rotated).video?.rotation != nil)
        let out = dir.appendingPathComponent("pkg").path
        let result = try Trickplay.render(input: rotated, into: out)
        #expect(result.tileWidth == 160 && result.tileHeight == 284 && result.keyframesOnly && result.interval == 2)
        let sheet = try Self.size(out + "/sprites/sheet_000.jpg")
        #expect(sheet.width == 800 && sheet.height == 284)
    }

    /// MPEG-TS has no index: the keyframes come from a read of the packets, then decoding starts afresh; 112 tiles
    /// fill a full sheet and a second of two rows (the cues past the 10 s of video show its last frame).
    @Test func transportStreamKeyframesFromPacketsAndTwoSheets() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let input = try Self.clip(dir, gop: 25, name: "clip.ts")
        let keyframes = try Trickplay.render(input: input, into: dir.appendingPathComponent("a").path)
        #expect(keyframes.keyframesOnly && keyframes.interval == 2 && keyframes.cueCount == 5 && keyframes.framesDecoded == 5)
        #expect(keyframes.largestKeyframeGap.map { abs($0 - 1) < 0.01 } == true)
        let out = dir.appendingPathComponent("b").path
        let every = try Trickplay.render(input: input, duration: 11.15, into: out, interval: 0.1, tileWidth: 64)
        #expect(!every.keyframesOnly && every.cueCount == 112 && every.sheets.count == 2)
        #expect(every.sheets.map(\.height) == [360, 72] && every.sheets.allSatisfy { $0.width == 640 })
        for sheet in every.sheets {
            let size = try Self.size(out + "/" + sheet.name)
            #expect(size.width == sheet.width && size.height == sheet.height)
        }
        let vtt = try String(contentsOfFile: out + "/thumbnails.vtt", encoding: .utf8)
        #expect(vtt.hasSuffix("00:00:11.100 --> 00:00:11.150\nsprites/sheet_001.jpg#xywh=64,36,64,36\n"))
    }

    /// An HDR (PQ) source is tone-mapped as thumbnails are: tiles come out, as declared.
    @Test func hdrSource() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let result = try Trickplay.render(input: TestSupport.fixture("hdr-pq.mp4"), into: dir.path, interval: 0.5)
        #expect(result.cueCount == 2 && result.tileWidth == 160 && result.tileHeight == 90)
        let size = try Self.size(dir.path + "/sprites/sheet_000.jpg")
        #expect(size.width == 320 && size.height == 90)
    }

    @Test func noVideoThrows() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let audio = dir.appendingPathComponent("tone.m4a").path
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "sine=duration=2", "-c:a", "aac", audio])
        #expect(throws: ExportError.self) { try Trickplay.render(input: audio, into: dir.appendingPathComponent("pkg").path) }
        let text = dir.appendingPathComponent("not.mp4").path
        try Data("not a video".utf8).write(to: URL(fileURLWithPath: text))
        #expect(throws: ExportError.self) { try Trickplay.render(input: text, into: dir.appendingPathComponent("pkg2").path) }
    }

    /// The speed figure of docs/trickplay.md: CPU seconds for the file `TRICKPLAY_BENCH` names (a 10-minute 1080p
    /// H.264 file with keyframes every 2 s), printed; run alone, as the process's CPU time is measured.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["TRICKPLAY_BENCH"] != nil, "set TRICKPLAY_BENCH to a video file"))
    func cpuSecondsOfALongFile() throws {
        let input = ProcessInfo.processInfo.environment["TRICKPLAY_BENCH"] ?? ""
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        func cpu() -> Double {
            var usage = rusage()
            getrusage(RUSAGE_SELF.rawValue, &usage)
            return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
        }
        let before = cpu(), wall = Date()
        // TRICKPLAY_OUT keeps the sheets to look at.
        let result = try Trickplay.render(input: input, into: ProcessInfo.processInfo.environment["TRICKPLAY_OUT"] ?? dir.path)
        print(String(format: "trickplay: %.2f s CPU, %.2f s wall, %d tiles every %.1f s, keyframes only: %@, %d frames decoded",
                     cpu() - before, Date().timeIntervalSince(wall), result.cueCount, result.interval,
                     result.keyframesOnly ? "yes" : "no", result.framesDecoded))
        #expect(result.keyframesOnly)
    }
}
