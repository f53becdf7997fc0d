import Foundation
import Testing
@testable import MediaExportCore

/// AV1 presets and the `.webm` container (issue 34): what the planner decides, from hand-built probes.
@Suite struct WebMPlanningTests {
    static let av1 = Presets.named("av1-1280x720")

    @Test func av1IntoWebMGetsOpusAndMP4KeepsAAC() throws {
        #expect(summary(try planned(.landscape1080, Self.av1, container: .webm)) == ["#0 video → av1 1280x720", "#1 audio → opus 2ch"])
        let webm = try planned(.landscape1080, Self.av1, container: .webm)
        guard case .transcodeAudio(let a) = webm.streams[1].action else { Issue.record("audio not transcoded"); return }
        #expect(a.settings.sampleRate == 48_000 && a.settings.bitrate == 160_000)
        #expect(summary(try planned(.landscape1080, Self.av1, container: .mp4)) == ["#0 video → av1 1280x720", "#1 audio → aac 2ch"])
        #expect(summary(try planned(.landscape1080, Self.av1, container: .mkv)) == ["#0 video → av1 1280x720", "#1 audio → aac 2ch"])
    }

    /// SVT-AV1 takes no side under 64 pixels: a smaller picture is refused by the plan before any work (not a
    /// fallback after the encoder failed), naming the presets that take it; 64 exactly is fine.
    @Test func av1RefusesPicturesUnder64() throws {
        let small = try planned(.make([.h264(0, 160, 48), .aac(1)]), Self.av1, container: .webm)
        #expect(small.refusal?.contains("libsvtav1 encodes pictures of at least 64x64, not 160x48") == true, "\(small.refusal ?? "")")
        #expect(try planned(.make([.h264(0, 64, 64), .aac(1)]), Self.av1, container: .webm).isPossible)
        #expect(try planned(.make([.h264(0, 160, 48), .aac(1)]), Presets.named("1280x720"), container: .mp4).isPossible)
    }

    @Test func containerTables() {
        #expect(Container.allCases.filter { $0.holds(VideoCodec.av1) } == [.mp4, .m4v, .mkv, .webm])
        #expect(Container.allCases.filter { $0.holds(VideoCodec.h264) } == [.mp4, .mov, .m4v, .mkv])
        #expect(Container.allCases.filter { $0.holds(AudioCodec.aac) } == [.mp4, .mov, .m4v, .m4a, .mkv])
        #expect(Container.webm.encodedAudio(.aac) == .opus && Container.mp4.encodedAudio(.aac) == .aac)
        #expect(Container.webm.muxerName == "webm" && !Container.webm.isQuickTimeFamily && Container.webm.textSubtitleEncoder == "webvtt")
    }

    @Test func h264PresetIntoWebMIsRefused() throws {
        let plan = try planned(.landscape1080, Presets.named("1280x720"), container: .webm)
        #expect(plan.isPossible == false)
        #expect(plan.blockers.map(\.description) == ["every video stream would be dropped (#0 h264: .webm cannot hold h264 video (preset 1280x720); "
                                  + ".mp4, .mov, .m4v, .mkv can; .webm takes av1 video)"])
    }

    @Test func passthroughOfH264AndAACIntoWebMNamesTheContainersThatCan() throws {
        let plan = try planned(.landscape1080, Presets.passthrough, container: .webm)
        #expect(plan.isPossible == false)
        #expect(plan.blockers.map(\.description) == [".webm cannot hold video stream #0 (h264); .mp4, .mov, .m4v, .mkv can",
                                  ".webm cannot hold audio stream #1 (aac); .mp4, .mov, .m4v, .m4a, .mkv can"])
        #expect(plan.impossible?.hasSuffix("; .webm cannot hold video stream #0 (h264); .mp4, .mov, .m4v, .mkv can; "
                                           + ".webm cannot hold audio stream #1 (aac); .mp4, .mov, .m4v, .m4a, .mkv can") == true)
    }

    @Test func subtitlesIntoWebMBecomeWebVTTOrAreDroppedAndNamed() throws {
        let source = SourceInfo.make([.h264(0, 640, 360), .aac(1),
                                      SourceStream(index: 2, kind: .subtitle, codec: "subrip", fitsIn: [.mkv]),
                                      SourceStream(index: 3, kind: .subtitle, codec: "hdmv_pgs_subtitle", fitsIn: [.mkv]),
                                      .cover(4)])
        #expect(summary(try planned(source, Self.av1, container: .webm)) == [
            "#0 video → av1 640x360", "#1 audio → opus 2ch", "#2 subtitle → webvtt",
            "#3 subtitle drop: bitmap subtitles (PGS) cannot be converted to webvtt; burn-in is not done",
            "#4 video drop: cover art: WebM has no attachments (.mp4, .m4v, .m4a and .mkv keep it)",
        ])
    }

    @Test func hdrKeptAsTenBitAV1() throws {
        let color = VideoColor(primaries: "bt2020", transfer: "smpte2084", matrix: "bt2020nc", range: "tv", bitDepth: 10)
        var stream = SourceStream.h264(0, 3840, 2160, codec: "hevc", pixelFormat: "yuv420p10le")
        stream.color = color
        let plan = try planned(.make([stream]), Presets.named("av1-highest"), container: .mkv)
        guard case .transcodeVideo(let v) = plan.streams[0].action else { Issue.record("video not transcoded"); return }
        #expect(v.pixelFormat == "yuv420p10le" && v.toneMap == nil && v.outputColor?.transfer == "smpte2084")
        #expect(PictureProcessing.notes(v).contains { $0.hasPrefix("HDR (PQ) kept: AV1 10-bit") })
    }

    @Test func av1SourceFitsAnAV1PresetInABatch() {
        let fitting = SourceInfo.make([SourceStream(index: 0, kind: .video, codec: "av1", fitsIn: [.mp4, .mkv, .webm], bitRate: 1_000_000,
                                                    width: 1280, height: 720, frameRate: 30, pixelFormat: "yuv420p"), .aac(1)])
        #expect(unfit(fitting, preset: Self.av1) == nil)
        #expect(unfit(.landscape1080, preset: Self.av1) == "video codec h264 is not av1")
        #expect(unfit(fitting, preset: Presets.named("hevc-1920x1080")) == "video codec av1 is not hevc")
    }

    @Test func aSizeLimitEncodesAV1InOnePass() {
        let budget = OutputSize.Budget(videoBitrate: 300_000, audioBitrate: nil, note: "")
        #expect(OutputSize.apply(budget, to: Self.av1).video?.twoPass == false)
        #expect(OutputSize.apply(budget, to: Self.av1).video?.bitrate == 300_000)
        #expect(OutputSize.apply(budget, to: Presets.named("1280x720")).video?.twoPass == true)
    }
}
