import Foundation
import Testing
import CFFmpeg
@testable import MediaExport
@testable import MediaExportCore
@testable import MediaExportFFmpeg
@testable import mediaexport

/// The executor (`Transcoder.run`, the one loop that writes the muxer and counts) and the encoder option check.
@Suite struct ExecutorTests {
    /// What one run of the executor reported, and the file it wrote.
    struct Run {
        var outcome: Transcoder.Outcome
        /// The last progress call's values (the one with `final` set).
        var outputTime: Double
        var videoFrames: Int
        /// Progress calls with `final` set (exactly one expected).
        var finalCalls: Int
        var output: String
    }

    /// Plans and runs one route through the executor directly, as `ExportSession` does, and commits the file.
    static func execute(_ fixture: String, preset name: String, route: ExportRoute = .transcode, range: TimeRange? = nil,
                        in dir: URL) throws -> Run {
        let preset = try TestSupport.preset(name)
        let source = try ProbedSource(path: TestSupport.fixture(fixture), cancel: nil)
        let target = try OutputTarget(output: dir.appendingPathComponent("out").path, inputs: [source.info.path], overwrite: false,
                                      sandbox: nil, defaultExtension: preset.defaultExtension)
        let plan = try ExportPlanner.plan(source: source.info, preset: preset, route: route, container: target.container, edits: nil, range: range)
        let transcoder = try Transcoder(source: source, plan: plan, target: target, cancel: CancelToken())
        var last = (time: 0.0, frames: 0), finals = 0, previousTime = 0.0, monotonic = true
        let outcome = try transcoder.run { time, frames, final in
            if time < previousTime { monotonic = false }
            previousTime = time
            last = (time, frames)
            if final { finals += 1 }
        }
        #expect(monotonic, "the output time went backwards")
        try target.commit()
        return Run(outcome: outcome, outputTime: last.time, videoFrames: last.frames, finalCalls: finals, output: target.finalPath)
    }

    /// Packets of the first stream of a kind in a file, counted by ffprobe.
    static func packetCount(_ path: String, stream: String) throws -> Int {
        let r = try TestSupport.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", stream, "-count_packets",
                                                         "-show_entries", "stream=nb_read_packets", "-of", "csv=p=0", path])
        return Int(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    /// Draining the encoders (x264 medium holds 40 frames of lookahead) reports progress as packets come out, so the
    /// stall watchdog sees work: on a loaded machine a 1080p flush took over 30 s and the export fell back to a remux.
    @Test func drainingReportsProgress() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let preset = try TestSupport.preset("highest")
        // Video alone: audio's packets come out without delay and would carry the output time to the end anyway.
        let input = dir.appendingPathComponent("video.mp4").path
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30:duration=2", "-c:v", "libx264", "-preset", "ultrafast", input])
        let source = try ProbedSource(path: input, cancel: nil)
        let target = try OutputTarget(output: dir.appendingPathComponent("out").path, inputs: [source.info.path], overwrite: false,
                                      sandbox: nil, defaultExtension: preset.defaultExtension)
        let plan = try ExportPlanner.plan(source: source.info, preset: preset, route: .transcode, container: target.container, edits: nil, range: nil)
        var lastRunning = 0.0
        _ = try Transcoder(source: source, plan: plan, target: target, cancel: CancelToken()).run { time, _, final in
            if !final { lastRunning = time }
        }
        // 2 s of video: the last report before the final one already has (nearly) all of it written.
        #expect(lastRunning > 1.9, "the last progress before the end was at \(lastRunning) s")
    }

    @Test func transcodeCountsWhatTheOutputHolds() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let run = try Self.execute("landscape.mov", preset: "low", in: dir)
        let probe = try FFprobe(run.output)
        // Every frame the loop counted became exactly one packet of the output's video stream.
        #expect(run.videoFrames == (try Self.packetCount(run.output, stream: "v:0")))
        #expect(run.videoFrames == 60)  // 2 s at 30 fps
        #expect(probe.audio != nil)
        // The output time the loop kept is where the file ends.
        #expect(abs(run.outputTime - probe.duration) < 0.05, "output time \(run.outputTime) vs probed \(probe.duration)")
        #expect(run.outcome.skippedPackets == 0)
        #expect(run.finalCalls == 1)
    }

    @Test func trimmedTranscodeStopsAtTheEnd() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let run = try Self.execute("landscape.mov", preset: "low", range: TimeRange(start: 0.5, end: 1.5), in: dir)
        let probe = try FFprobe(run.output)
        #expect(run.videoFrames == (try Self.packetCount(run.output, stream: "v:0")))
        #expect(run.videoFrames == 30)
        #expect(abs(probe.duration - 1.0) < 0.05, "duration \(probe.duration)")
        #expect(abs(run.outputTime - probe.duration) < 0.05)
    }

    @Test func streamCopyBypassCountsNoFramesAndKeepsEveryPacket() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let run = try Self.execute("landscape.mov", preset: "passthrough", route: .remux, in: dir)
        let input = TestSupport.fixture("landscape.mov")
        // The bypass decodes nothing, so no frame is counted, yet every packet of each stream reached the muxer.
        #expect(run.videoFrames == 0)
        #expect(try Self.packetCount(run.output, stream: "v:0") == (try Self.packetCount(input, stream: "v:0")))
        #expect(try Self.packetCount(run.output, stream: "a:0") == (try Self.packetCount(input, stream: "a:0")))
        #expect(abs(run.outputTime - (try FFprobe(run.output)).duration) < 0.05)
        #expect(run.finalCalls == 1)
    }

    // MARK: Encoder options: a leftover is an error naming the preset field

    @Test func videoSettingsNameTheFieldBehindEachOption() {
        let h264 = VideoPlan(width: 2, height: 2, settings: VideoSettings(codec: .h264, encoderPreset: "fast", crf: 20)).encoderOptions()
        #expect(h264 == [EncoderOption(key: "preset", value: "fast", field: "video.encoderPreset"),
                         EncoderOption(key: "crf", value: "20", field: "video.crf"),
                         EncoderOption(key: "x264-params", value: "cpu-independent=1", field: "reproducible")])
        var plan = VideoPlan(width: 2, height: 2, settings: VideoSettings(codec: .hevc))
        #expect(plan.encoderOptions().last == EncoderOption(key: "x265-params", value: "log-level=error:frame-threads=1", field: "video.codec"))
        // Kept HDR10 metadata goes into x265's SEI.
        plan.outputColor = VideoColor(transfer: "smpte2084", contentLight: ContentLightLevel(maxCLL: 1000, maxFALL: 400))
        #expect(plan.encoderOptions().last == EncoderOption(key: "x265-params", value: "log-level=error:max-cll=1000,400:frame-threads=1", field: "video.codec"))
    }

    @Test func leftoverOptionIsAnInvalidPresetNamingItsField() {
        let options = VideoPlan(width: 2, height: 2, settings: VideoSettings(codec: .h264, encoderPreset: "fast", crf: 20)).encoderOptions()
        #expect(throws: ExportError.invalidPreset(path: "/out.mp4", field: "video.crf",
                                                  reason: "the libx264 encoder has no option 'crf'; it would be ignored")) {
            try StreamEncoder.requireUsed(options, leftover: ["crf": "20"], encoder: "libx264", path: "/out.mp4")
        }
        // Nothing left over: every option was used.
        #expect(throws: Never.self) {
            try StreamEncoder.requireUsed(options, leftover: [:], encoder: "libx264", path: "/out.mp4")
        }
        // A key that matches no option given is still reported, by its own name.
        #expect(throws: ExportError.invalidPreset(path: "/out.mp4", field: "zzz",
                                                  reason: "the libx264 encoder has no option 'zzz'; it would be ignored")) {
            try StreamEncoder.requireUsed(options, leftover: ["zzz": "1"], encoder: "libx264", path: "/out.mp4")
        }
    }

    /// A small libx264 encoder, configured as the video stage does, ready to be opened.
    static func smallX264() throws -> StreamEncoder {
        FFmpegLog.applyDefault()  // quiet, as every export is: x264 would print its refusal on stderr
        let encoder = try StreamEncoder(encoderName: "libx264", path: "/out.mp4")
        let c = encoder.context
        c.pointee.width = 64
        c.pointee.height = 64
        c.pointee.pix_fmt = AV_PIX_FMT_YUV420P
        c.pointee.time_base = AVRational(num: 1, den: 30)
        c.pointee.framerate = AVRational(num: 30, den: 1)
        return encoder
    }

    @Test func realEncoderUsesEveryOptionOfItsOwnSettings() throws {
        let encoder = try Self.smallX264()
        try encoder.open(VideoPlan(width: 2, height: 2, settings: VideoSettings(codec: .h264, encoderPreset: "ultrafast", crf: 30)).encoderOptions())
    }

    @Test func realEncoderLeavesAnotherCodecsOptionUnused() throws {
        // x265's parameters given to libx264 (settings that say hevc, an encoder that is not): libx264 has no
        // `x265-params`, avcodec_open2 succeeds and hands the option back; that is the preset's codec at fault.
        let encoder = try Self.smallX264()
        #expect(throws: ExportError.invalidPreset(path: "/out.mp4", field: "video.codec",
                                                  reason: "the libx264 encoder has no option 'x265-params'; it would be ignored")) {
            try encoder.open(VideoPlan(width: 2, height: 2, settings: VideoSettings(codec: .hevc, encoderPreset: "ultrafast", crf: 30)).encoderOptions())
        }
    }

    @Test func unknownEncoderPresetFailsInTheEncoderItself() throws {
        // A value the encoder knows the key of but refuses is not a leftover: avcodec_open2 fails.
        let encoder = try Self.smallX264()
        do {
            try encoder.open(VideoPlan(width: 2, height: 2, settings: VideoSettings(codec: .h264, encoderPreset: "warp-speed", crf: 30)).encoderOptions())
            Issue.record("an unknown x264 preset opened")
        } catch let ExportError.ffmpeg(stage, path, _, message) {
            #expect(stage == .encode)
            #expect(path == "/out.mp4")
            #expect(message.contains("libx264"))
        }
    }
}
