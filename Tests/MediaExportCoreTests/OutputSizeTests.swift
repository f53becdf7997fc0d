import Foundation
import Testing
@testable import MediaExportCore

/// The size planner: bit rates chosen to fit a limit, and the estimate from a sample encode.
@Suite struct OutputSizeTests {
    static func plan(duration: Double = 10, audio: Bool = true) -> (ExportPlan, SourceInfo) {
        var streams = [SourceStream(index: 0, kind: .video, codec: "h264", duration: duration, width: 1920, height: 1080, frameRate: 30)]
        var decisions = [StreamDecision(index: 0, kind: .video, codec: "h264",
                                        action: .transcodeVideo(VideoPlan(width: 1920, height: 1080, settings: VideoSettings(codec: .h264))))]
        if audio {
            streams.append(SourceStream(index: 1, kind: .audio, codec: "aac", duration: duration, channels: 2, sampleRate: 48000))
            decisions.append(StreamDecision(index: 1, kind: .audio, codec: "aac", action: .transcodeAudio(AudioPlan(channels: 2, settings: AudioSettings()))))
        }
        let source = SourceInfo(path: "in.mp4", duration: duration, size: 100_000_000, streams: streams, mainVideo: 0, mainAudio: audio ? 1 : nil)
        return (ExportPlan(route: .transcode, container: .mp4, streams: decisions, timeline: PlannedTimeline(origin: 0, expectedDuration: duration)), source)
    }

    @Test func theBudgetLeavesRoomForAudioAndTheContainer() throws {
        let (plan, source) = Self.plan()
        let budget = try OutputSize.budget(limit: 16_000_000, plan: plan, source: source, ceiling: nil).get()
        let video = try #require(budget.videoBitrate), audio = try #require(budget.audioBitrate)
        #expect(audio == 128_000)
        let total = Double(video + audio) * 10 / 8
        #expect(total < 16_000_000 * 0.97 && total > 16_000_000 * 0.9, "\(total)")
        // A ceiling (what the CRF would have spent) is not exceeded: a short clip is not inflated to the limit.
        #expect(try OutputSize.budget(limit: 16_000_000, plan: plan, source: source, ceiling: 900_000).get().videoBitrate == 900_000)
    }

    @Test func audioIsLoweredWhenItWouldTakeMoreThanAThird() throws {
        let (plan, source) = Self.plan()
        let budget = try OutputSize.budget(limit: 400_000, plan: plan, source: source, ceiling: nil).get()
        #expect(try #require(budget.audioBitrate) < 128_000)
        #expect(budget.note.contains("audio at"))
        let total = Double(try #require(budget.videoBitrate) + budget.audioBitrate!) * 10 / 8
        #expect(total < 400_000 * 0.97)
    }

    @Test func anImpossibleLimitIsRefusedWithTheReason() throws {
        let (plan, source) = Self.plan()
        #expect(throws: OutputSize.SizeRefusal.self) { try OutputSize.budget(limit: 20_000, plan: plan, source: source, ceiling: nil).get() }
        let (audioOnly, info) = Self.plan(audio: true)
        var onlyAudio = audioOnly
        onlyAudio.streams[0].action = .drop(reason: "audio preset")
        let refusal = OutputSize.budget(limit: 25_000, plan: onlyAudio, source: info, ceiling: nil)
        guard case .failure(let r) = refusal else { Issue.record("expected a refusal"); return }
        #expect(r.reason.contains("10.0 s of audio cannot fit in 25000 bytes"), "\(r.reason)")
    }

    @Test func applyingTheBudgetSwitchesToTwoPasses() throws {
        let preset = Preset(name: "p", video: VideoSettings(codec: .h264), audio: AudioSettings())
        let applied = OutputSize.apply(.init(videoBitrate: 250_000, audioBitrate: 96_000, note: ""), to: preset)
        #expect(applied.video?.bitrate == 250_000 && applied.video?.twoPass == true && applied.audio?.bitrate == 96_000)
    }

    @Test func theSampleEstimateWeighsKeyframesAsAFullEncodeWould() throws {
        // 3 samples of 10 frames: 3 keyframes of 50 kB and 27 frames of 5 kB. 300 frames in all: 2 keyframes.
        let rate = try #require(OutputSize.videoBitrate(sampleFrames: 30, bytes: 3 * 50_000 + 27 * 5_000, keyframes: 3, keyframeBytes: 150_000,
                                                        frameRate: 30, duration: 10))
        let expected = (2 * 50_000 + 298 * 5_000) * 8 / 10.0
        #expect(abs(rate / expected - 1) < 0.001, "\(rate) vs \(expected)")
    }

    @Test func theEstimateAddsEveryKeptStream() throws {
        let (plan, source) = Self.plan()
        let estimate = try #require(OutputSize.estimatedBytes(plan: plan, source: source, measured: .init(video: 2_000_000)))
        // 2 Mb/s + 128 kb/s for 10 s, plus the container.
        #expect(estimate > 2_660_000 && estimate < 2_700_000, "\(estimate)")
        var copy = plan
        copy.route = .copy
        #expect(OutputSize.estimatedBytes(plan: copy, source: source, measured: nil) == 100_000_000)
    }

    /// The `started` record says how its estimate was made: a guess is named as one.
    @Test func theEstimateSaysHowItWasMade() throws {
        let (plan, source) = Self.plan()
        #expect(OutputSize.estimateMethod(plan: plan, source: source, measured: .init(video: 2_000_000)) == .samples)
        #expect(OutputSize.estimateMethod(plan: plan, source: source, measured: nil) == .guess)
        var capped = plan
        // 1080p30 at CRF 23 guesses 6.2 Mb/s: a 1 Mb/s cap binds and is the figure; a 50 Mb/s one does not.
        var settings = VideoSettings(codec: .h264)
        settings.maxBitrate = 1_000_000
        capped.streams[0].action = .transcodeVideo(VideoPlan(width: 1920, height: 1080, settings: settings))
        #expect(OutputSize.estimateMethod(plan: capped, source: source, measured: nil) == .rates)
        settings.maxBitrate = 50_000_000
        capped.streams[0].action = .transcodeVideo(VideoPlan(width: 1920, height: 1080, settings: settings))
        #expect(OutputSize.estimateMethod(plan: capped, source: source, measured: nil) == .guess)
        var copy = plan
        copy.route = .copy
        #expect(OutputSize.estimateMethod(plan: copy, source: source, measured: nil) == .source)
        var audioOnly = plan
        audioOnly.streams[0].action = .drop(reason: "audio preset")
        #expect(OutputSize.estimateMethod(plan: audioOnly, source: source, measured: nil) == .rates)
    }

    @Test func theProjectionWaitsForATenthAndEveryStream() {
        let (plan, source) = Self.plan()
        let streams = [OutputSize.WrittenStream(bytes: 100_000, covered: 2), OutputSize.WrittenStream(bytes: 40_000, covered: 2.5)]
        #expect(OutputSize.projectedBytes(plan: plan, source: source, written: streams, fraction: 0.05) == nil)
        // The encoder's lookahead: no video packet yet while the audio is a quarter through.
        let noVideo = [OutputSize.WrittenStream(bytes: 0, covered: 0), streams[1]]
        #expect(OutputSize.projectedBytes(plan: plan, source: source, written: noVideo, fraction: 0.25) == nil)
    }

    @Test func eachStreamIsProjectedAtItsOwnRate() throws {
        let (plan, source) = Self.plan()
        // The video lags the audio (lookahead): 2 s of video packets, 2.5 s of audio, of 10 s each.
        let streams = [OutputSize.WrittenStream(bytes: 100_000, covered: 2), OutputSize.WrittenStream(bytes: 40_000, covered: 2.5)]
        let projected = try #require(OutputSize.projectedBytes(plan: plan, source: source, written: streams, fraction: 0.25))
        let overhead = 1500 + 10 * (30 * 20 + 47 * 10)
        #expect(projected == 500_000 + 160_000 + Int64(overhead))
        // Done: the packets as written, and the tables.
        let done = [OutputSize.WrittenStream(bytes: 480_000, covered: 10), OutputSize.WrittenStream(bytes: 160_000, covered: 10)]
        #expect(OutputSize.projectedBytes(plan: plan, source: source, written: done, fraction: 1) == 640_000 + Int64(overhead))
    }
}
