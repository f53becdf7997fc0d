import Foundation
import Testing
@testable import MediaExport
@testable import MediaExportCore
@testable import MediaExportFFmpeg

/// Timestamps like the ffmpeg CLI: discontinuities offset (`TimestampRepair`), repeated or backwards timestamps
/// re-stamped, every repair and drop counted. Each input is made here with the ffmpeg CLI and each output is
/// probed with ffprobe.
@Suite struct TimestampTests {
    // MARK: Making inputs

    /// Runs the ffmpeg CLI quietly; throws with its message.
    static func ffmpeg(_ arguments: [String]) throws {
        let r = try TestSupport.run("/usr/bin/ffmpeg", ["-v", "error", "-y"] + arguments)
        guard r.status == 0 else { throw NSError(domain: "ffmpeg", code: Int(r.status), userInfo: [NSLocalizedDescriptionKey: r.stderr]) }
    }

    /// `seconds` of testsrc at `rate` fps with a sine tone, H.264 without B-frames + AAC, as `path`; `extra` goes
    /// before the output (bitstream filters, muxer options).
    static func makeClip(_ path: String, seconds: Double = 2.5, rate: Int = 30, tone: Int = 440, extra: [String] = []) throws {
        try ffmpeg(["-f", "lavfi", "-i", "testsrc=d=\(seconds):r=\(rate):s=320x240", "-f", "lavfi", "-i", "sine=f=\(tone):d=\(seconds)",
                    "-c:v", "libx264", "-preset", "ultrafast", "-bf", "0", "-pix_fmt", "yuv420p", "-c:a", "aac"] + extra + [path])
    }

    /// Two MPEG-TS recordings joined byte for byte (`cat a.ts b.ts`); the second's clock starts at `secondOffset`
    /// (nil: where the first's started, as two recordings of one camera).
    static func joinedTS(in dir: URL, secondOffset: Double?) throws -> String {
        let a = dir.appendingPathComponent("a.ts").path, b = dir.appendingPathComponent("b.ts").path
        try makeClip(a, extra: ["-f", "mpegts"])
        try makeClip(b, tone: 880, extra: (secondOffset.map { ["-output_ts_offset", String($0)] } ?? []) + ["-f", "mpegts"])
        let joined = dir.appendingPathComponent("joined.ts")
        var data = try Data(contentsOf: URL(fileURLWithPath: a))
        data.append(try Data(contentsOf: URL(fileURLWithPath: b)))
        try data.write(to: joined)
        return joined.path
    }

    // MARK: Measuring outputs

    /// Frames (decoded) or packets of the first stream of `type` ("v", "a") in `path`, as ffprobe counts them.
    static func count(_ path: String, _ type: String, packets: Bool = false) throws -> Int {
        let what = packets ? ["-count_packets", "-show_entries", "stream=nb_read_packets"] : ["-count_frames", "-show_entries", "stream=nb_read_frames"]
        let r = try TestSupport.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "\(type):0"] + what + ["-of", "csv=p=0", path])
        // MPEG-TS lists its streams twice (under the program too): the first line is the stream's.
        return r.stdout.split(separator: "\n").first.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) } ?? -1
    }

    /// The video stream's duration: from its first frame to its last, plus one frame (the usual step).
    static func videoSpan(_ path: String) throws -> Double {
        let r = try TestSupport.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts_time",
                                                         "-of", "csv=p=0", path])
        let times = r.stdout.split(separator: "\n").compactMap { Double($0.split(separator: ",").first ?? "") }.sorted()
        guard let first = times.first, let last = times.last, times.count > 1 else { return 0 }
        let steps = zip(times.dropFirst(), times).map { $0 - $1 }.sorted()
        return last - first + steps[steps.count / 2]
    }

    // MARK: (a) Joined MPEG-TS recordings

    @Test(arguments: [nil, 5000.0])
    func joinedTransportStreamKeepsEveryFrameWhenTranscoded(_ secondOffset: Double?) throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let input = try Self.joinedTS(in: dir, secondOffset: secondOffset)
        #expect(try Self.count(input, "v") == 150)
        let out = dir.appendingPathComponent("out.mp4").path
        let completed = try TestSupport.export(input, to: out, preset: "highest")
        #expect(completed.route == .transcode)
        #expect(completed.timestampRepairs >= 1)
        #expect(completed.droppedFrames == 0)
        // The ffmpeg CLI keeps 151 of the 150 (its constant-rate sync doubles one); at least 99 % here.
        let frames = try Self.count(out, "v")
        #expect(frames >= 149 && frames <= 151, "video frames: \(frames)")
        // The two recordings one after the other: 2.5 s + 2.5 s, not 2.5 s overlaid nor 5000 s apart.
        let span = try Self.videoSpan(out)
        #expect(abs(span - 5.0) < 0.1, "video lasts \(span) s")
    }

    @Test(arguments: [(nil as Double?, "mkv"), (nil, "mp4"), (5000.0, "mkv"), (5000.0, "mp4")])
    func joinedTransportStreamKeepsEveryPacketInPassthrough(_ secondOffset: Double?, _ ext: String) throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let input = try Self.joinedTS(in: dir, secondOffset: secondOffset)
        let videoIn = try Self.count(input, "v", packets: true), audioIn = try Self.count(input, "a", packets: true)
        let out = dir.appendingPathComponent("out.\(ext)").path
        let completed = try TestSupport.export(input, to: out, preset: "passthrough")
        #expect(completed.route == .remux)
        #expect(completed.timestampRepairs >= 1)
        #expect(completed.droppedFrames == 0)
        let videoOut = try Self.count(out, "v", packets: true), audioOut = try Self.count(out, "a", packets: true)
        #expect(Double(videoOut) >= 0.99 * Double(videoIn), "video packets \(videoOut) of \(videoIn)")
        #expect(Double(audioOut) >= 0.99 * Double(audioIn), "audio packets \(audioOut) of \(audioIn)")
        #expect(abs(try Self.videoSpan(out) - 5.0) < 0.1)
    }

    /// The second recording's 33-bit clock wraps in its middle, and starts 26.5 hours from the first's.
    @Test func joinedTransportStreamAcrossTheClockWrapKeepsEveryFrame() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        // 2^33 / 90 kHz = 95443.7 s: a clip starting 1.4 s after 95441 s crosses it.
        let input = try Self.joinedTS(in: dir, secondOffset: 95441)
        let out = dir.appendingPathComponent("out.mp4").path
        let completed = try TestSupport.export(input, to: out, preset: "highest")
        #expect(completed.route == .transcode)
        #expect(completed.timestampRepairs >= 1 && completed.droppedFrames == 0)
        #expect(try Self.count(out, "v") >= 149)
        #expect(abs(try Self.videoSpan(out) - 5.0) < 0.1)
    }

    /// The record a program reads: `mediaexport --json` says what was repaired.
    @Test func completedRecordCountsTheRepair() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let input = try Self.joinedTS(in: dir, secondOffset: nil)
        let r = try TestSupport.tool(["--json", "--preset", "passthrough", input, dir.appendingPathComponent("out.mp4").path])
        #expect(r.status == 0, "\(r.stderr)")
        let records = r.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let completed = try #require(records.first { $0["kind"] as? String == "completed" })
        let payload = completed["payload"] as? [String: Any] ?? [:]
        #expect((payload["timestampRepairs"] as? Int ?? 0) >= 1)
        #expect(payload["droppedFrames"] as? Int == 0)
    }

    // MARK: (b) Repeated timestamps

    /// Every second frame carries its predecessor's timestamp (0, 0, 80, 80, … ms): the old executor kept 38 of 75.
    @Test(arguments: ["highest", "passthrough"])
    func repeatedTimestampsInMatroskaKeepEveryFrame(_ preset: String) throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let input = dir.appendingPathComponent("dup.mkv").path
        try Self.makeClip(input, seconds: 3, rate: 25, extra: ["-bsf:v", "setts=ts=TS-mod(N\\,2)*40"])
        #expect(try Self.count(input, "v") == 75)
        let out = dir.appendingPathComponent("out.mp4").path
        let completed = try TestSupport.export(input, to: out, preset: preset)
        #expect(completed.route == (preset == "highest" ? .transcode : .remux))
        #expect(try Self.count(out, "v") == 75)
        // One repair per repeated timestamp (37 of the 75 frames), nothing dropped.
        #expect(completed.timestampRepairs >= 37)
        #expect(completed.droppedFrames == 0)
        if preset == "highest" {
            // Re-stamped one frame after the previous: the 25 fps timeline of the original, 3 s.
            #expect(abs(try Self.videoSpan(out) - 3.0) < 0.05)
        }
    }

    /// The audio's timestamps go back 0.5 s in the middle: the half second they overlap is dropped (the audio
    /// stays on its pictures, `AudioGapTests`) and named; the transcoded audio stays continuous, frame after frame.
    @Test func audioGoingBackIsTrimmedAndNamed() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let input = dir.appendingPathComponent("back.mkv").path
        try Self.makeClip(input, seconds: 3, rate: 25, extra: ["-bsf:a", "setts=ts=if(gte(N\\,50)\\,TS-500\\,TS)"])
        let out = dir.appendingPathComponent("out.mp4").path
        let completed = try TestSupport.export(input, to: out, preset: "highest")
        #expect(completed.route == .transcode)
        #expect(completed.droppedFrames == 0)
        let dropped = try #require(completed.warnings.compactMap(AudioGapTests.dropped).first, "\(completed.warnings)")
        #expect(dropped.seconds > 0.4 && dropped.seconds <= 0.5 && abs(dropped.at - 1.16) < 0.05, "\(completed.warnings)")
        #expect(try Self.count(out, "v") == 75)
        // Every AAC frame starts where the previous one ends: 1024 samples, no gap, no overlap.
        let r = try TestSupport.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "a:0", "-show_entries", "packet=pts", "-of", "csv=p=0", out])
        let pts = r.stdout.split(separator: "\n").compactMap { Int($0.split(separator: ",").first ?? "") }.sorted()
        #expect(pts.count > 100)
        #expect(zip(pts.dropFirst(), pts).allSatisfy { $0 - $1 == 1024 })
    }

    // MARK: (c) A huge sample delta

    /// Sets the largest `stts` delta of the video track of the MP4 at `path` to `delta`.
    static func patchLargestVideoSampleDelta(_ path: String, to delta: UInt32) throws {
        var data = try Data(contentsOf: URL(fileURLWithPath: path))
        func u32(_ at: Int) -> UInt32 { data[at..<at + 4].reduce(0) { $0 << 8 | UInt32($1) } }
        let containers: Set<String> = ["moov", "trak", "mdia", "minf", "stbl"]
        var isVideo = false, videoSTTS: Int?
        func walk(_ start: Int, _ end: Int) {
            var at = start
            while at + 8 <= end {
                let size = Int(u32(at)), type = String(decoding: data[at + 4..<at + 8], as: UTF8.self)
                guard size >= 8, at + size <= end else { return }
                if type == "trak" { isVideo = false }
                if type == "hdlr", String(decoding: data[at + 16..<at + 20], as: UTF8.self) == "vide" { isVideo = true }
                if type == "stts", isVideo { videoSTTS = at + 8 }
                if containers.contains(type) { walk(at + 8, at + size) }
                at += size
            }
        }
        walk(0, data.count)
        let stts = try #require(videoSTTS)
        let entries = Int(u32(stts + 4))
        let largest = try #require((0..<entries).max { u32(stts + 8 + 8 * $0 + 4) < u32(stts + 8 + 8 * $1 + 4) })
        let at = stts + 8 + 8 * largest + 4
        for i in 0..<4 { data[at + i] = UInt8((delta >> (24 - 8 * UInt32(i))) & 0xff) }
        try data.write(to: URL(fileURLWithPath: path))
    }

    /// One sample of an MP4 lasts 2^31 ticks (46 hours at 12800 Hz) in a file that declares 3 s: the samples after
    /// it are placed where the stream goes on, not two days later (the old executor failed its own verification and
    /// fell back to a byte copy).
    @Test(arguments: ["highest", "passthrough"])
    func hugeSampleDeltaInMP4IsBridged(_ preset: String) throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let input = dir.appendingPathComponent("huge.mp4").path
        // A jump after frame 10 gives the track an stts entry of its own; without an edit list, so that
        // libavformat hands over every sample (an edit list would hide those after the jump before we see them).
        try Self.makeClip(input, seconds: 3, rate: 25, extra: ["-use_editlist", "0", "-bsf:v", "setts=ts=TS+gte(N\\,10)*1000"])
        try Self.patchLargestVideoSampleDelta(input, to: 0x7FFF_FF00)
        #expect(try Self.count(input, "v", packets: true) == 75)
        let out = dir.appendingPathComponent("out.mp4").path
        let completed = try TestSupport.export(input, to: out, preset: preset)
        #expect(completed.route == (preset == "highest" ? .transcode : .remux))
        #expect(completed.fallbacks.isEmpty)
        #expect(completed.timestampRepairs >= 1 && completed.droppedFrames == 0)
        #expect(try Self.count(out, "v") == 75)
        #expect(try Self.videoSpan(out) < 3.5)
    }

    // MARK: (d) Clean inputs

    @Test(arguments: [("clean.mp4", "highest"), ("clean.mp4", "passthrough"), ("clean.ts", "highest"), ("clean.ts", "passthrough"),
                      ("clean.mkv", "passthrough")])
    func cleanInputReportsNoRepairs(_ name: String, _ preset: String) throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let input = dir.appendingPathComponent(name).path
        try Self.makeClip(input)
        let out = dir.appendingPathComponent("out.mp4").path
        let completed = try TestSupport.export(input, to: out, preset: preset)
        #expect(completed.fallbacks.isEmpty)
        #expect(completed.timestampRepairs == 0)
        #expect(completed.droppedFrames == 0)
        #expect(try Self.count(out, "v") == 75)
    }
}
