import Foundation
import Testing
@testable import MediaExport
@testable import MediaExportCore

/// Slow motion through real exports: sound stays on its pictures (a 1 kHz beep at every whole second of the source,
/// found again in the output with `silencedetect`).
@Suite struct SlowMotionExportTests {
    /// `seconds` of 30 fps video with a 50 ms beep at every whole second, and `edits` beside it as its sidecar.
    static func beeping(_ dir: URL, seconds: Int, edits: String) throws -> String {
        let movie = dir.appendingPathComponent("IMG_0001.MOV").path
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30:duration=\(seconds)", "-f", "lavfi",
                                "-i", "aevalsrc=sin(2*PI*1000*t)*lt(mod(t\\,1)\\,0.05):s=48000:d=\(seconds)",
                                "-c:v", "libx264", "-preset", "ultrafast", "-g", "60", "-c:a", "aac", movie])
        try Data(edits.utf8).write(to: dir.appendingPathComponent("IMG_0001.edit.json"))
        return movie
    }

    /// Where each beep starts in `path`'s audio, seconds.
    static func beeps(_ path: String) throws -> [Double] {
        let r = try TestSupport.run("/usr/bin/ffmpeg", ["-hide_banner", "-nostdin", "-i", path, "-af", "silencedetect=n=-30dB:d=0.2", "-f", "null", "-"])
        return r.stderr.components(separatedBy: "silence_end: ").dropFirst().compactMap { Double($0.prefix { $0.isNumber || $0 == "." }) }
    }

    @Test func aTrimThatStartsInsideASlowedRegionKeepsTheSoundOnItsPictures() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let movie = try Self.beeping(dir, seconds: 10, edits: #"{"formatVersion":1,"trim":{"start":4.5,"end":8},"slowMotion":{"rate":0.25,"regions":[{"start":3,"duration":3}]}}"#)
        let out = dir.appendingPathComponent("out.mp4").path
        let completed = try TestSupport.export(movie, to: out, preset: "1280x720")
        #expect(completed.fallbacks.isEmpty && completed.warnings.isEmpty, "\(completed.fallbacks) \(completed.warnings)")
        // Source 5 s → (5 − 4.5) × 4 = 2 s; 6 s → 6 s; 7 s → 7 s. Nothing of the audio before 4.5 s is heard.
        let found = try Self.beeps(out)
        for (want, got) in zip([2.0, 6.0, 7.0], found) { #expect(abs(want - got) < 0.08, "beeps at \(found)") }
        #expect(found.count >= 3 && found[0] > 1.5, "beeps at \(found)")
    }

    @Test func soundInsideARegionIsOnItsPictures() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let movie = try Self.beeping(dir, seconds: 6, edits: #"{"formatVersion":1,"slowMotion":{"rate":0.25,"regions":[{"start":1.5,"duration":2}]}}"#)
        let out = dir.appendingPathComponent("out.mp4").path
        try TestSupport.export(movie, to: out, preset: "1280x720")
        // Source 1, 2, 3, 4, 5 s → 1, 3.5, 7.5, 10, 11 s.
        let found = try Self.beeps(out)
        for (want, got) in zip([1.0, 3.5, 7.5, 10.0, 11.0], found) { #expect(abs(want - got) < 0.08, "beeps at \(found)") }
    }

    /// 900 regions of 5 ms, 5 ms apart, are one region of 8.995 s; 50 regions of 20 ms, 80 ms apart, are dropped
    /// (a frame at 30 fps is 33 ms); 50 regions of 40 ms are kept. Notes say so, and the audio never has "silence
    /// inserted … where packets are missing" for what the tempo filter loses at each region's start.
    @Test(arguments: [(0.005, 0.01, 900, 10 + 3 * 8.995, "899 joined"), (0.02, 0.1, 50, 10, "50 shorter than a frame dropped"),
                      (0.04, 0.1, 50, 16, "")])
    func tinyRegionsAreMergedOrDropped(_ length: Double, _ every: Double, _ count: Int, _ duration: Double, _ note: String) throws {
        let dir = TestSupport.tempDir("slow-\(count)-\(length)")
        defer { TestSupport.cleanup(dir) }
        let regions = (0..<count).map { String(format: #"{"start":%.3f,"duration":%.3f}"#, 0.5 + Double($0) * every, length) }
        let movie = try Self.beeping(dir, seconds: 10, edits: #"{"formatVersion":1,"slowMotion":{"rate":0.25,"regions":["# + regions.joined(separator: ",") + "]}}")
        let out = dir.appendingPathComponent("out.mp4").path
        let completed = try TestSupport.export(movie, to: out, preset: "low")
        #expect(completed.route == .transcode && completed.fallbacks.isEmpty, "\(completed.fallbacks)")
        #expect(!completed.warnings.contains { $0.contains("where packets are missing") || $0.contains("timestamps repaired") }, "\(completed.warnings)")
        let probe = try FFprobe(out)
        #expect(abs((probe.video?.duration ?? 0) - duration) < 0.1 && abs((probe.audio?.duration ?? 0) - duration) < 0.1,
                "\(probe.video?.duration ?? 0) \(probe.audio?.duration ?? 0) vs \(duration)")
        #expect(note.isEmpty != completed.notes.contains { $0.hasPrefix("slow motion: of \(count) regions, ") && $0.contains(note) }, "\(completed.notes)")
        // 40 ms at a quarter speed is 160 ms: all of it what `atempo` loses at its start.
        #expect(completed.warnings.contains { $0.hasPrefix("audio stream #1: \(count) of \(count) slow-motion regions lost more than half") } == note.isEmpty,
                "\(completed.warnings)")
    }

    @Test func aRegionEdgeBetweenTwoSamplesIsExact() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        // 1.0002170138888889 s is 48010.4 samples: the edge falls between two.
        let movie = try Self.beeping(dir, seconds: 3, edits: #"{"formatVersion":1,"slowMotion":{"rate":0.125,"regions":[{"start":1.0002170138888889,"duration":1.5}]}}"#)
        let out = dir.appendingPathComponent("out.mp4").path
        let completed = try TestSupport.export(movie, to: out, preset: "1280x720")
        #expect(completed.route == .transcode && completed.fallbacks.isEmpty)
        let probe = try FFprobe(out)
        #expect(abs((probe.audio?.duration ?? 0) - 13.5) < 0.05 && abs((probe.video?.duration ?? 0) - 13.5) < 0.05)
    }

    @Test func subtitlesCopiedIntoMatroskaCannotBeRetimedAndSaySo() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let srt = dir.appendingPathComponent("s.srt")
        try Data("1\n00:00:00,500 --> 00:00:01,500\nHello\n\n".utf8).write(to: srt)
        let movie = dir.appendingPathComponent("IMG_0002.mkv").path
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30:duration=2", "-i", srt.path, "-map", "0", "-map", "1",
                                "-c:v", "libx264", "-preset", "ultrafast", "-c:s", "srt", movie])
        try Data(#"{"formatVersion":1,"slowMotion":{"rate":0.5,"regions":[{"start":0.5,"duration":1}]}}"#.utf8)
            .write(to: dir.appendingPathComponent("IMG_0002.edit.json"))
        let completed = try TestSupport.export(movie, to: dir.appendingPathComponent("out.mkv").path, preset: "1280x720")
        #expect(completed.warnings.contains { $0.contains("slow motion: subrip subtitles copied into .mkv cannot be retimed") }, "\(completed.warnings)")
        // Into MP4 they are converted, and retimed.
        let mp4 = try TestSupport.export(movie, to: dir.appendingPathComponent("out.mp4").path, preset: "1280x720")
        #expect(try FFprobe(mp4.output).streams.contains { $0.codec == "mov_text" })
    }
}
