import Foundation
import Testing
@testable import MediaExport
@testable import MediaExportCore
@testable import MediaExportFFmpeg
@testable import mediaexport

/// Poster frames and thumbnails: sizes for fit and fill, uprightness, colours, the poster-time rule, errors.
@Suite struct ThumbnailTests {
    /// Width, height and RGB pixels of a picture, decoded by the ffmpeg CLI (independent of our code).
    static func pixels(_ path: String) throws -> (width: Int, height: Int, rgb: [UInt8]) {
        let probe = try TestSupport.run("/usr/bin/ffprobe", ["-v", "error", "-show_entries", "stream=width,height", "-of", "csv=p=0", path])
        let dims = probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",").compactMap { Int($0) }
        return (dims[0], dims[1], try rawRGB(path))
    }

    static func rawRGB(_ path: String) throws -> [UInt8] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        process.arguments = ["-v", "error", "-i", path, "-f", "rawvideo", "-pix_fmt", "rgb24", "-"]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Array(data)
    }

    static func thumbnail(_ input: String, _ dir: URL, _ name: String, time: Double? = nil, size: (Int, Int)? = nil,
                          mode: ThumbnailMode = .fit, exact: Bool = false, edits: String? = nil) throws -> ThumbnailResult {
        try Thumbnailer.make(ThumbnailRequest(input: input, output: dir.appendingPathComponent(name).path, time: time, width: size?.0,
                                              height: size?.1, mode: mode, exact: exact, editsPath: edits))
    }

    @Test(arguments: [
        // fixture, box, mode, expected size
        ("landscape.mov", 160, 160, ThumbnailMode.fit, 160, 90),
        ("landscape.mov", 160, 160, ThumbnailMode.fill, 160, 160),
        ("landscape.mov", 1000, 1000, ThumbnailMode.fit, 320, 180),   // never upscaled in fit
        ("portrait-rotated.mov", 200, 200, ThumbnailMode.fit, 113, 200),
        ("portrait-rotated.mov", 120, 60, ThumbnailMode.fill, 120, 60),
        ("odd-322x242.mov", 100, 100, ThumbnailMode.fit, 100, 75),
        ("odd-322x242.mov", 99, 51, ThumbnailMode.fill, 99, 51),
        ("portrait-rotated.mov", 0, 0, ThumbnailMode.fit, 180, 320),  // no size: as displayed
    ])
    func fitAndFillSizes(fixture: String, boxW: Int, boxH: Int, mode: ThumbnailMode, w: Int, h: Int) throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let result = try Self.thumbnail(TestSupport.fixture(fixture), dir, "t.png", size: boxW > 0 ? (boxW, boxH) : nil, mode: mode)
        let p = try Self.pixels(result.output)
        #expect(p.width == w && p.height == h, "\(fixture) \(mode) \(boxW)x\(boxH) → \(p.width)x\(p.height)")
        #expect(result.width == w && result.height == h)
        #expect(TestSupport.contents(dir) == ["t.png"])
    }

    @Test func pictureIsUprightLikeFFmpegsAutorotate() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let ours = try Self.thumbnail(TestSupport.fixture("portrait-rotated.mov"), dir, "t.png", time: 0.5, exact: true)
        let reference = dir.appendingPathComponent("ref.png").path
        _ = try TestSupport.run("/usr/bin/ffmpeg", ["-v", "error", "-i", TestSupport.fixture("portrait-rotated.mov"), "-ss", "0.5",
                                                   "-frames:v", "1", reference])
        let a = try Self.pixels(ours.output), b = try Self.pixels(reference)
        #expect(a.width == b.width && a.height == b.height && a.width == 180)
        let diff = zip(a.rgb, b.rgb).map { abs(Int($0) - Int($1)) }.reduce(0, +) / max(1, a.rgb.count)
        #expect(diff < 6, "mean difference \(diff)")
    }

    @Test(arguments: ["png", "jpg"])
    func knownColoursSurvive(format: String) throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let result = try Self.thumbnail(TestSupport.fixture("colors.mp4"), dir, "c.\(format)", time: 0.5, exact: true)
        let p = try Self.pixels(result.output)
        func at(_ x: Int, _ y: Int) -> [Int] { let i = (y * p.width + x) * 3; return [Int(p.rgb[i]), Int(p.rgb[i + 1]), Int(p.rgb[i + 2])] }
        let expectations: [((Int, Int), [Int])] = [((80, 45), [255, 0, 0]), ((240, 45), [0, 255, 0]), ((80, 135), [0, 0, 255]), ((240, 135), [255, 255, 255])]
        for ((x, y), colour) in expectations {
            let got = at(x, y)
            #expect(zip(got, colour).allSatisfy { abs($0 - $1) <= 12 }, "at (\(x), \(y)): \(got) vs \(colour)")
        }
    }

    @Test func posterTimeSkipsABlackLeadIn() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let result = try Self.thumbnail(TestSupport.fixture("lead-in.mp4"), dir, "p.png")
        #expect(result.time >= 1.0 && result.time < 1.5, "poster at \(result.time) s")
        let p = try Self.pixels(result.output)
        let mean = Double(p.rgb.reduce(0) { $0 + Int($1) }) / Double(p.rgb.count)
        #expect(mean > 40, "not black: mean \(mean)")
        // Asked explicitly for a time in the black, you get black.
        let black = try Self.pixels(try Self.thumbnail(TestSupport.fixture("lead-in.mp4"), dir, "b.png", time: 0.5, exact: true).output)
        #expect(black.rgb.allSatisfy { $0 < 20 })
    }

    @Test func fastUsesTheKeyframeExactDecodesToTheTime() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        // landscape.mov has keyframes at 0 and 1 s.
        let fast = try Self.thumbnail(TestSupport.fixture("landscape.mov"), dir, "f.png", time: 1.7)
        let exact = try Self.thumbnail(TestSupport.fixture("landscape.mov"), dir, "e.png", time: 1.7, exact: true)
        #expect(abs(fast.time - 1.0) < 0.01, "fast: \(fast.time)")
        #expect(abs(exact.time - 1.7) < 0.034, "exact: \(exact.time)")
    }

    @Test func currentVersionShowsTheEditsAndTheTrimmedTimeline() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        // IMG_0001: trim 1–3 s, crop 160x90, rotate 90 → shown 90x160; --at counts from the trim start.
        let current = try Self.thumbnail(AssetVersionTests.asset("IMG_0001.MOV"), dir, "c.png", time: 0.5, exact: true)
        #expect(current.width == 90 && current.height == 160)
        #expect(abs(current.time - 0.5) < 0.034)
        let original = try Thumbnailer.make(ThumbnailRequest(input: AssetVersionTests.asset("IMG_0001.MOV"), output: dir.appendingPathComponent("o.png").path,
                                                             time: 0.5, exact: true, version: .original))
        #expect(original.width == 320 && original.height == 180)
        #expect(original.version.delivered == .original)
        // Past the trimmed end (2 s long) is an error, though the original is 4 s.
        #expect(throws: ExportError.self) { try Self.thumbnail(AssetVersionTests.asset("IMG_0001.MOV"), dir, "x.png", time: 2.5) }
    }

    @Test func badTimesAndNamesAreClearErrors() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        for time in [-1.0, 2.0, 99] {
            do {
                _ = try Self.thumbnail(TestSupport.fixture("landscape.mov"), dir, "t.png", time: time)
                Issue.record("time \(time) accepted")
            } catch let ExportError.invalidTimeRange(_, reason) {
                #expect(reason.contains(time < 0 ? "negative" : "past the end"))
            }
        }
        #expect(throws: ExportError.self) { try Self.thumbnail(TestSupport.fixture("landscape.mov"), dir, "t.gif") }
        #expect(throws: ExportError.self) { try Self.thumbnail(TestSupport.fixture("audio.m4a"), dir, "t.png") }
        #expect(TestSupport.contents(dir).isEmpty)
        let r = try TestSupport.tool(["thumbnail", TestSupport.fixture("landscape.mov"), dir.appendingPathComponent("t.png").path, "--at=-1"])
        #expect(r.status == ExitStatus.usage && r.stderr.contains("--at must be from 0"), "\(r.stderr)")
    }
}
