import Foundation
import Testing
@testable import MediaExport
@testable import MediaExportCore

/// Holes in the video's timestamps are frames lost, counted and named (issue 29, item 4): a dropped cluster, zeroed
/// bytes or a forward jump in MKV, MPEG-TS and MP4. The oracle is ffprobe: the frames a 25 fps stream's decoded
/// timestamps span, less the frames it decodes.
@Suite struct VideoHoleTests {
    /// 6 s of testsrc2 at 25 fps (a keyframe a second, so the decoder recovers at once) with a tone, H.264 + AAC.
    static func base(in dir: URL, _ ext: String = "mkv") throws -> String {
        let path = dir.appendingPathComponent("base.\(ext)").path
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=320x240:r=25:d=6", "-f", "lavfi", "-i", "sine=d=6", "-c:v", "libx264",
                                "-preset", "ultrafast", "-g", "25", "-c:a", "aac", path])
        return path
    }

    /// `base` stream-copied into `name` through the video bitstream filter `bsf`.
    static func filtered(_ base: String, in dir: URL, _ name: String, bsf: String) throws -> String {
        let path = dir.appendingPathComponent(name).path
        try TestSupport.ffmpeg(["-i", base, "-c", "copy", "-bsf:v", bsf, path])
        return path
    }

    /// `bytes` zeroed at two fifths into the file.
    static func zeroed(_ path: String, bytes: Int = 20_000) throws {
        var data = try Data(contentsOf: URL(fileURLWithPath: path))
        let at = data.count * 2 / 5
        data.replaceSubrange(at..<at + bytes, with: Data(count: bytes))
        try data.write(to: URL(fileURLWithPath: path))
    }

    /// Frames missing by ffprobe: those the decoded timestamps of the first video stream span at `rate`, less those decoded.
    static func missingFrames(_ path: String, rate: Double = 25) throws -> Int {
        let r = try TestSupport.run("/usr/bin/ffprobe", ["-v", "quiet", "-select_streams", "v:0", "-show_entries", "frame=best_effort_timestamp_time",
                                                         "-of", "csv=p=0", path])
        let times = r.stdout.split(separator: "\n").compactMap { Double($0.split(separator: ",").first ?? "") }.sorted()
        guard let first = times.first, let last = times.last else { return -1 }
        return Int(((last - first) * rate).rounded()) + 1 - times.count
    }

    /// The frames the warning about video stream #0 says are missing, and where the first is.
    static func named(_ c: ExportEvent.Completed) -> (frames: Int, at: Double)? {
        for w in c.warnings {
            if let m = w.firstMatch(of: /^video stream #0: ([0-9]+) frames? missing (?:at|in [0-9]+ places \(at) ([0-9.]+) s/),
               let frames = Int(m.1), let at = Double(m.2) { return (frames, at) }
        }
        return nil
    }

    /// Exports `input` and checks the frames named and counted against ffprobe's, within two.
    static func expectCounted(_ input: String, in dir: URL, at: ClosedRange<Double>) throws {
        let truth = try Self.missingFrames(input)
        #expect(truth > 5, "the damage removes frames: \(truth)")
        let completed = try TestSupport.export(input, to: dir.appendingPathComponent("out.mp4").path, preset: "low")
        #expect(completed.route == .transcode && completed.fallbacks.isEmpty)
        let named = try #require(Self.named(completed), "\(completed.warnings)")
        #expect(abs(named.frames - truth) <= 2, "named \(named.frames), ffprobe \(truth): \(completed.warnings)")
        #expect(at.contains(named.at), "\(completed.warnings)")
        #expect(completed.skippedPackets >= named.frames)
    }

    @Test(arguments: ["mkv", "ts", "mp4"])
    func droppedSecondIsNamed(_ ext: String) throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let base = try Self.base(in: dir)
        let dropped = try Self.filtered(base, in: dir, "dropped.mkv", bsf: "noise=drop=between(pts*tb\\,2\\,3)")
        var input = dropped
        if ext != "mkv" {
            input = dir.appendingPathComponent("dropped.\(ext)").path
            try TestSupport.ffmpeg(["-i", dropped, "-c", "copy", input])
        }
        try Self.expectCounted(input, in: dir, at: 1.9...2.1)
    }

    @Test func forwardJumpIsNamed() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let input = try Self.filtered(try Self.base(in: dir), in: dir, "jump.mkv", bsf: "setts=ts=TS+gte(TS*TB\\,3)*1.92/TB")
        #expect(try Self.missingFrames(input) == 48)
        try Self.expectCounted(input, in: dir, at: 2.9...3.1)
    }

    @Test(arguments: ["mkv", "ts"])
    func zeroedBytesAreNamed(_ ext: String) throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let input = try Self.base(in: dir, ext)
        try Self.zeroed(input)
        try Self.expectCounted(input, in: dir, at: 2.0...3.0)
    }

    /// A variable frame rate made on purpose (every second frame from 2 s to 4 s, as a phone in low light) is no loss.
    @Test func variableFrameRateIsNoLoss() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let input = dir.appendingPathComponent("vfr.mp4").path
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=320x240:r=30:d=6", "-vf", "select='lt(t\\,2)+gte(t\\,4)+not(mod(n\\,2))'",
                                "-vsync", "vfr", "-c:v", "libx264", "-preset", "ultrafast", input])
        let completed = try TestSupport.export(input, to: dir.appendingPathComponent("out.mp4").path, preset: "low")
        #expect(completed.route == .transcode && completed.skippedPackets == 0)
        #expect(completed.warnings.isEmpty, "\(completed.warnings)")
    }

    /// A 20 s transport stream of H.264 with B-frames cut at 37 % of its bytes: the cut takes the last packet in part
    /// and two B-frames shown before the last frames read. The old executor's output failed its own duration check
    /// (MP4 states a track's length by decode times, without the two missing frames among the last: 7.433 s of the
    /// 7.500 s written) and fell back to a remux. It exports what is there and names the frames lost.
    @Test func cutTransportStreamExportsWhatIsThereAndNamesTheLoss() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let input = dir.appendingPathComponent("cut.ts").path
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=640x360:r=30:d=20", "-f", "lavfi", "-i", "sine=d=20", "-c:v", "libx264",
                                "-c:a", "aac", "-b:a", "128k", input])
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: input))
        try handle.truncate(atOffset: try handle.seekToEnd() * 37 / 100)
        try handle.close()
        let completed = try TestSupport.export(input, to: dir.appendingPathComponent("out.mp4").path, preset: "low")
        #expect(completed.route == .transcode && completed.fallbacks.isEmpty, "\(completed.fallbacks)")
        let named = try #require(Self.named(completed), "\(completed.warnings)")
        let truth = try Self.missingFrames(input, rate: 30)
        #expect(truth > 0 && abs(named.frames - truth) <= 2, "named \(named.frames), ffprobe \(truth)")
    }

    /// A one-frame MP4 whose `stts` delta is 0x7FFFFFFF (46.6 hours at 12800 Hz) in a 0.04 s file: the old executor
    /// wrote a 46.6-hour output and passed it ("± 167772 s"). The frame lasts its stream's 0.04 s, and that is said.
    @Test func absurdSingleFrameDurationIsBoundedAndNamed() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let input = dir.appendingPathComponent("one.mp4").path
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=320x240:r=25", "-frames:v", "1", "-c:v", "libx264", input])
        try TimestampTests.patchLargestVideoSampleDelta(input, to: 0x7FFF_FFFF)
        let out = dir.appendingPathComponent("out.mp4").path
        let completed = try TestSupport.export(input, to: out, preset: "low")
        #expect(completed.route == .transcode && completed.fallbacks.isEmpty)
        #expect(completed.warnings.contains { $0.hasPrefix("video stream #0: its frame rate makes a frame last 167772 s") }, "\(completed.warnings)")
        let duration = try #require(completed.verification?.checks.first { $0.name.hasSuffix("video duration") })
        #expect(!duration.expected.contains("167772"), "\(duration)")
        let r = try TestSupport.run("/usr/bin/ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", out])
        #expect((Double(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? .infinity) < 1, "\(r.stdout)")
    }
}
