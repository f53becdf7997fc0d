import Foundation
import Testing
@testable import MediaExportCore

/// `Timecode` counts as libavutil's `av_timecode` does (the MP4/MOV muxer and demuxer), and the planner decides what
/// the output's timecode is: kept, moved by a trim, counted at a capped rate, dropped with its reason.
@Suite struct TimecodeArithmeticTests {
    @Test(arguments: [
        // (text, rate, frames added, expected)
        ("10:00:00:00", 25.0, 50, "10:00:02:00"),
        ("10:00:00:24", 25.0, 1, "10:00:01:00"),
        ("23:59:59:24", 25.0, 1, "00:00:00:00"),           // a day wraps, as a camera's clock does
        ("00:00:59;29", 29.97, 1, "00:01:00;02"),           // drop frame: ;00 and ;01 skipped each minute …
        ("00:09:59;29", 29.97, 1, "00:10:00;00"),           // … but the tenth
        ("00:00:59;28", 29.97, 60, "00:01:02;00"),
        ("01:00:00;00", 59.94, 120, "01:00:02;00"),         // 59.94: four labels a minute
        ("00:00:59;59", 59.94, 1, "00:01:00;04"),
        ("00:00:00.00", 29.97, 0, "00:00:00;00"),           // `.` is drop frame too
    ])
    func counting(_ text: String, _ rate: Double, _ frames: Int, _ expected: String) throws {
        let start = try #require(Timecode(text, rate: rate))
        #expect(start.adding(frames: frames).text == expected)
    }

    @Test func refusedAsFFmpegRefusesThem() {
        #expect(Timecode("10:00:00;00", rate: 25) == nil)   // drop frame only at multiples of 30000/1001
        #expect(Timecode("10:00:00", rate: 25) == nil)
        #expect(Timecode("ten o'clock", rate: 25) == nil)
        #expect(Timecode("10:00:00:00", rate: 0) == nil)
        #expect(Timecode("10:00:00:00", rate: .nan) == nil)
    }

    @Test func anotherRateCountsTheSameMoment() throws {
        let start = try #require(Timecode("10:00:00:30", rate: 60))
        #expect(start.counted(at: 30).text == "10:00:00:15")
        #expect(try #require(Timecode("10:00:00;30", rate: 59.94)).counted(at: 25).dropFrame == false)
    }

    /// A camera's MOV: H.264 25 fps, AAC, and its timecode track.
    static func cameraClip(timecode: String = "10:00:00:00", fps: Double = 25) -> SourceInfo {
        var video = SourceStream.h264(0, 1920, 1080, fps: fps)
        video.timecode = timecode
        var track = SourceStream(index: 2, kind: .data, codec: "unknown 'tmcd'", codecKnown: false, decodable: false, frameRate: fps)
        track.timecode = timecode
        track.isTimecodeTrack = true
        return .make([video, .aac(1), track])
    }

    @Test(arguments: [(Container.mp4, "1280x720", true), (.mov, "passthrough", true), (.mkv, "1280x720", false), (.m4v, "passthrough", true)])
    func keptOnTheMainVideo(_ container: Container, _ preset: String, _ asTrack: Bool) throws {
        let plan = try ExportPlanner.plan(source: Self.cameraClip(), preset: Presets.named(preset), route: .transcode, container: container,
                                          edits: nil, range: nil)
        #expect(plan.timecode == TimecodePlan(source: "10:00:00:00", output: "10:00:00:00", stream: 0, asTrack: asTrack, dropReason: nil))
        // The source's track is no stream of the output (the muxer writes a new one), and no loss.
        let fate = asTrack ? "a timecode track" : "its TIMECODE tag"
        #expect(plan.streams[2].action == .drop(reason: "timecode track: not copied as a stream; its timecode (10:00:00:00) is written anew on the video, as \(fate)"))
        #expect(Accounting.warnings(plan: plan, skippedPackets: 0, droppedFrames: 0, timestampRepairs: 0, version: nil).isEmpty)
        #expect(plan.isPossible)
    }

    @Test func aTrimMovesIt() throws {
        let plan = try ExportPlanner.plan(source: Self.cameraClip(), preset: Presets.named("1280x720"), route: .transcode, container: .mp4,
                                          edits: nil, range: TimeRange(start: 2, end: nil))
        #expect(plan.timecode?.output == "10:00:02:00")
        #expect(plan.notes.contains { $0.contains("timecode 10:00:00:00 becomes 10:00:02:00") })
        let ntsc = try ExportPlanner.plan(source: Self.cameraClip(timecode: "00:00:59;28", fps: 30000.0 / 1001), preset: Presets.named("1280x720"),
                                          route: .transcode, container: .mov, edits: nil, range: TimeRange(start: 2, end: nil))
        #expect(ntsc.timecode?.output == "00:01:02;00")
        // A 25 fps timecode track beside 50p video: counted at 50 (as the muxer will), then 100 frames on.
        var fifty = Self.cameraClip(timecode: "10:00:00:12", fps: 50)
        fifty.streams[2].frameRate = 25
        let p50 = try ExportPlanner.plan(source: fifty, preset: Presets.named("passthrough"), route: .transcode, container: .mov,
                                         edits: nil, range: TimeRange(start: 2, end: nil))
        #expect(p50.timecode?.output == "10:00:02:24")
    }

    @Test func droppedWithoutVideoAndSaid() throws {
        let plan = try ExportPlanner.plan(source: Self.cameraClip(), preset: Presets.named("m4a"), route: .transcode, container: .m4a,
                                          edits: nil, range: nil)
        #expect(plan.timecode?.output == nil)
        let warnings = Accounting.warnings(plan: plan, skippedPackets: 0, droppedFrames: 0, timestampRepairs: 0, version: nil)
        #expect(warnings.contains("timecode 10:00:00:00 dropped: the output has no video"), "\(warnings)")
    }

    @Test func anImpossibleLabelIsDroppedAndSaid() throws {
        #expect(Timecode.outOfRange("99:99:99:99", fps: 25) == "not a valid time of day at 25 fps (hours 99 over 23, minutes 99 over 59, seconds 99 over 59, frames 99 over 24)")
        #expect(Timecode.outOfRange("23:59:59:24", fps: 25) == nil)
        #expect(Timecode.outOfRange("10:00:00:25", fps: 25) == "not a valid time of day at 25 fps (frames 25 over 24)")
        #expect(Timecode.outOfRange("24:00:00;00", fps: 30) == "not a valid time of day at 30 fps (hours 24 over 23)")
        var clip = Self.cameraClip(timecode: "99:99:99:99")
        clip.streams[2].isTimecodeTrack = false
        clip.streams[2].timecode = nil
        let plan = try ExportPlanner.plan(source: clip, preset: Presets.named("1280x720"), route: .transcode, container: .mkv, edits: nil, range: nil)
        #expect(plan.timecode?.output == nil && !plan.notes.contains { $0.contains("becomes") })
        let warnings = Accounting.warnings(plan: plan, skippedPackets: 0, droppedFrames: 0, timestampRepairs: 0, version: nil)
        #expect(warnings.contains("timecode 99:99:99:99 dropped: stream #0's label is not a valid time of day at 25 fps (hours 99 over 23, minutes 99 over 59, seconds 99 over 59, frames 99 over 24)"), "\(warnings)")
    }

    @Test func noTimecodeNoPlan() throws {
        let plan = try ExportPlanner.plan(source: .landscape1080, preset: Presets.named("1280x720"), route: .transcode, container: .mp4,
                                          edits: nil, range: nil)
        #expect(plan.timecode == nil)
    }

    /// Batch `--policy needed`: a timecode track is kept by a remux as by a transcode, so it is no reason to transcode.
    @Test func aTimecodeTrackIsNoMisfit() {
        var clip = Self.cameraClip()
        clip.streams[0] = .h264(0, 1280, 720, fps: 25, bitRate: 2_000_000)
        clip.streams[0].timecode = "10:00:00:00"
        #expect(unfit(clip, preset: Presets.named("1280x720")) == nil)
    }

    /// The verifier reads the output's timecode against the plan's.
    @Test func verified() throws {
        let plan = try ExportPlanner.plan(source: Self.cameraClip(), preset: Presets.named("passthrough"), route: .transcode, container: .mov,
                                          edits: nil, range: nil)
        var video = OutputFacts.Stream(kind: .video, codec: "h264")
        video.timecode = "10:00:00:00"
        var facts = OutputFacts(formatName: "mov", streams: [video, OutputFacts.Stream(kind: .audio, codec: "aac")])
        facts.timecodeTracks = 1
        func outcome(_ facts: OutputFacts) -> Verification.Outcome? {
            OutputVerifier.timecodeChecks(plan: plan, kept: plan.keptInOutputOrder, outStreams: facts.streams, facts: facts).first?.outcome
        }
        #expect(outcome(facts) == .passed)
        facts.streams[0].timecode = "10:00:00:01"
        #expect(outcome(facts) == .failed)
        facts.streams[0].timecode = "10:00:00:00"
        facts.timecodeTracks = 2
        #expect(outcome(facts) == .failed)
    }
}
