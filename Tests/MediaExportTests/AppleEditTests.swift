import Foundation
import Testing
@testable import MediaExport
@testable import MediaExportCore
@testable import mediaexport

/// Photos' edits rendered from the `.AAE` beside an original (Fixtures/aae, made by Fixtures/make-aae-fixtures.py),
/// checked with ffprobe.
@Suite struct AppleEditTests {
    /// An original `IMG_n.MOV` (`seconds` long at `fps`, with audio and a creation time) with `aae` beside it.
    static func asset(_ dir: URL, number: Int, seconds: Double, fps: Int, aae: String) throws -> String {
        let movie = dir.appendingPathComponent("IMG_\(number).MOV").path
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=\(fps):duration=\(seconds)", "-f", "lavfi",
                                "-i", "sine=frequency=440:sample_rate=48000:duration=\(seconds)", "-c:v", "libx264", "-preset", "ultrafast",
                                "-c:a", "aac", "-shortest", "-metadata", "creation_time=2024-05-01T12:34:56Z", movie])
        try FileManager.default.copyItem(atPath: TestSupport.fixture("aae/\(aae)"), toPath: dir.appendingPathComponent("IMG_\(number).AAE").path)
        return movie
    }

    static func streamDurations(_ path: String) throws -> (video: Double, audio: Double) {
        let probe = try FFprobe(path)
        return (try #require(probe.video?.duration), try #require(probe.audio?.duration))
    }

    @Test func anAppleTrimIsRenderedFrameAccurately() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let movie = try Self.asset(dir, number: 1, seconds: 4, fps: 30, aae: "trim.AAE")
        let out = dir.appendingPathComponent("out.mp4").path
        let completed = try TestSupport.export(movie, to: out, preset: "1280x720")
        #expect(completed.version?.delivered == .current)
        #expect(completed.version?.appliedAdjustments == ["Trim"])
        let probe = try FFprobe(out)
        #expect(abs(probe.duration - (248936.0 - 46059.0) / 90000) <= 1.0 / 30 + 0.001, "duration \(probe.duration)")
        #expect(probe.tags["creation_time"] == "2024-05-01T12:34:56.000000Z")
    }

    @Test func aTrimEndingJustPastTheMovieRunsToItsEnd() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let movie = try Self.asset(dir, number: 8, seconds: 4, fps: 30, aae: "trim-past-end.AAE")
        let out = dir.appendingPathComponent("out.mp4").path
        let completed = try TestSupport.export(movie, to: out, preset: "1280x720")
        #expect(completed.version?.delivered == .current)
        #expect(abs(try FFprobe(out).duration - 3) < 0.05)
    }

    @Test func appleSlowMotionStretchesVideoAndAudioAlike() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let movie = try Self.asset(dir, number: 2, seconds: 3, fps: 120, aae: "slomo.AAE")
        let out = dir.appendingPathComponent("out.mp4").path
        let completed = try TestSupport.export(movie, to: out, preset: "1280x720")
        #expect(completed.version?.delivered == .current && completed.version?.appliedAdjustments == ["SlowMotion"])
        #expect(completed.notes.contains { $0.hasPrefix("slow motion:") && $0.contains("without Photos' speed ramps") })
        // 3 s with 1.857 s at 1/8: 3 + 1.857 × 7 ≈ 16.0 s, video and audio alike; every frame kept.
        let d = try Self.streamDurations(out)
        #expect(abs(d.video - 16.0) < 0.05 && abs(d.audio - 16.0) < 0.05, "\(d)")
        #expect(try HDRExportTests.frameCount(out) == 360)
        // The original is still the original.
        let original = dir.appendingPathComponent("original.mp4").path
        try ExportSession(request: ExportRequest(input: movie, output: original, preset: try TestSupport.preset("1280x720"), version: .original)).run()
        #expect(abs(try FFprobe(original).duration - 3) < 0.05)
    }

    @Test func trimAndMuteTogether() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let movie = try Self.asset(dir, number: 3, seconds: 4, fps: 30, aae: "photo-trim-mute.AAE")
        let out = dir.appendingPathComponent("out.mp4").path
        let completed = try TestSupport.export(movie, to: out, preset: "1280x720")
        #expect(completed.version?.appliedAdjustments == ["Trim", "Mute"])
        let probe = try FFprobe(out)
        #expect(probe.audio == nil && probe.video != nil)
    }

    @Test func whatCannotBeRenderedDeliversTheOriginalAndSaysWhy() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let movie = try Self.asset(dir, number: 4, seconds: 1, fps: 30, aae: "portrait.AAE")
        let out = dir.appendingPathComponent("out.mp4").path
        let r = try TestSupport.tool(["--preset", "low", movie, out])
        #expect(r.status == 0)
        #expect(r.stderr.contains("cannot be rendered here: PortraitVideo"), "\(r.stderr)")
        let completed = try TestSupport.export(movie, to: dir.appendingPathComponent("lib.mp4").path, preset: "low")
        #expect(completed.version?.delivered == .original)
        let required = try TestSupport.tool(["--preset", "low", "--require-current", movie, dir.appendingPathComponent("req.mp4").path])
        #expect(required.status == 80, "\(required.stderr)")
        #expect(required.stderr.contains("PortraitVideo"))
    }

    @Test func passthroughRefusesSlowMotionAndCutsATrim() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let slow = try Self.asset(dir, number: 5, seconds: 3, fps: 120, aae: "slomo.AAE")
        #expect(throws: ExportError.editNeedsTranscode(path: dir.appendingPathComponent("IMG_5.AAE").path, edits: ["slowMotion"])) {
            try TestSupport.export(slow, to: dir.appendingPathComponent("slow.mov").path, preset: "passthrough")
        }
        let trimmed = try Self.asset(dir, number: 6, seconds: 4, fps: 30, aae: "trim.AAE")
        let completed = try TestSupport.export(trimmed, to: dir.appendingPathComponent("trim.mov").path, preset: "passthrough")
        #expect(completed.version?.delivered == .current)
        #expect(completed.notes.contains { $0.hasPrefix("passthrough cut: reads from the keyframe") })
    }

    @Test func resourcesShowTheDecodedAdjustments() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let movie = try Self.asset(dir, number: 7, seconds: 1, fps: 30, aae: "trim.AAE")
        let r = try TestSupport.tool(["resources", "--json", movie])
        #expect(r.status == 0)
        let asset = try JSONDecoder().decode(Asset.self, from: Data(r.stdout.utf8))
        let info = try #require(asset.adjustmentData?.adjustments)
        #expect(info.adjustments.first?.identifier == "Trim")
        let human = try TestSupport.tool(["resources", movie])
        #expect(human.stdout.contains("Trim 0.512–2.766 s") && human.stdout.contains("current version: rendered from the original (Trim)"))
    }
}
