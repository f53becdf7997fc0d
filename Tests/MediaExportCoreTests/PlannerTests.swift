import Foundation
import Testing
@testable import MediaExportCore

private let one: Int32 = 65536
private let w30: Int32 = 1 << 30
private let cw90: [Int32] = [0, one, 0, -one, 0, 0, 0, 0, w30]
private let cw180: [Int32] = [-one, 0, 0, 0, -one, 0, 0, 0, w30]
private let identity: [Int32] = [one, 0, 0, 0, one, 0, 0, 0, w30]

/// Each edit of the sidecar on a transcode: (name, source, preset, edits, plan lines).
let editCases: [(String, SourceInfo, String, EditSidecar, [String])] = [
    ("crop", .landscape1080, "highest", EditSidecar(crop: .init(x: 100, y: 200, width: 640, height: 360)),
     ["#0 video → h264 640x360 crop 100,200 640x360", "#1 audio → aac 2ch"]),
    ("crop of a rotated portrait: coded rect turned, source matrix kept", .portraitRotated, "highest",
     EditSidecar(crop: .init(x: 100, y: 200, width: 640, height: 360)),
     ["#0 video → h264 360x640 crop 200,340 360x640", "#1 audio → aac 2ch"]),
    ("crop then fit into a box", .landscape1080, "low", EditSidecar(crop: .init(x: 0, y: 0, width: 1280, height: 1080)),
     ["#0 video → h264 426x360 crop 0,0 1280x1080", "#1 audio → aac 2ch"]),
    ("crop of an anamorphic picture: SAR applied to the coded crop", .anamorphic, "highest",
     EditSidecar(crop: .init(x: 0, y: 0, width: 720, height: 1080)),
     ["#0 video → h264 960x1080 crop 0,0 720x1080", "#1 audio → aac 2ch"]),
    ("rotate", .landscape1080, "highest", EditSidecar(rotate: 90),
     ["#0 video → h264 1920x1080 matrix \(cw90)", "#1 audio → aac 2ch"]),
    ("rotate a rotated source", .portraitRotated, "highest", EditSidecar(rotate: 90),
     ["#0 video → h264 1920x1080 matrix \(cw180)", "#1 audio → aac 2ch"]),
    ("rotate back to upright writes the identity", .portraitRotated, "highest", EditSidecar(rotate: -90),
     ["#0 video → h264 1920x1080 matrix \(identity)", "#1 audio → aac 2ch"]),
    ("flip", .landscape1080, "highest", EditSidecar(flip: .horizontal),
     ["#0 video → h264 1920x1080 matrix \([-one, 0, 0, 0, one, 0, 0, 0, w30])", "#1 audio → aac 2ch"]),
    ("crop + rotate + flip on a rotated source", .portraitRotated, "960x540",
     EditSidecar(crop: .init(x: 100, y: 200, width: 640, height: 360), rotate: 180, flip: .vertical),
     ["#0 video → h264 360x640 crop 200,340 360x640 matrix \([0, one, 0, one, 0, 0, 0, 0, w30])", "#1 audio → aac 2ch"]),
    ("mute", .landscape1080, "highest", EditSidecar(mute: true),
     ["#0 video → h264 1920x1080", "#1 audio drop: muted by the edit sidecar"]),
    ("mute with nothing else left", .audioOnly, "m4a", EditSidecar(mute: true),
     ["#0 audio drop: muted by the edit sidecar",
      "impossible: no stream can be exported with preset m4a to .m4a (#0 audio aac: muted by the edit sidecar)"]),
    ("mute a song with its cover: nothing is left to export", .withCover, "m4a", EditSidecar(mute: true),
     ["#0 audio drop: muted by the edit sidecar", "#1 video drop: cover art alone is not exported",
      "impossible: no stream can be exported with preset m4a to .m4a (#0 audio aac: muted by the edit sidecar; #1 video mjpeg: cover art alone is not exported)"]),
    ("a trim does not cut the cover", .withCover, "m4a", EditSidecar(trim: .init(start: 2, end: 4)), ["#0 audio → aac 2ch", "#1 video cover art 500x500"]),
    ("volume", .landscape1080, "highest", EditSidecar(volume: 0.5), ["#0 video → h264 1920x1080", "#1 audio → aac 2ch gain 0.5"]),
    ("a full turn is no rotation", .landscape1080, "highest", EditSidecar(rotate: 360), ["#0 video → h264 1920x1080", "#1 audio → aac 2ch"]),
]

/// Stream-copy routes: (name, source, preset, route, container, edits, plan lines).
let copyCases: [(String, SourceInfo, String, ExportRoute, Container, EditSidecar?, [String])] = [
    ("remux of a transcoding preset, blocked by PCM audio in MP4", .pcmAudio, "highest", .remux, .mp4, nil,
     ["#0 video copy 1920x1080", "#1 audio drop: .mp4 cannot hold pcm_s16le",
      "impossible: remux skipped: .mp4 cannot hold audio stream #1 (pcm_s16le); .mov, .mkv can"]),
    ("the same remux into MOV is possible", .pcmAudio, "highest", .remux, .mov, nil,
     ["#0 video copy 1920x1080", "#1 audio copy"]),
    ("remux blocked by an unknown video codec", .noDecodable, "low", .remux, .mp4, nil,
     ["#0 video drop: .mp4 cannot hold unknown 'zzv9'", "#1 audio copy",
      "impossible: remux skipped: .mp4 cannot hold video stream #0 (unknown 'zzv9'); no container mediaexport writes can"]),
    ("remux: nothing left says so first (as today)", .make([.pcm(0)]), "highest", .remux, .mp4, nil,
     ["#0 audio drop: .mp4 cannot hold pcm_s16le",
      "impossible: no stream can be exported with preset highest (remux) to .mp4 (#0 audio pcm_s16le: .mp4 cannot hold pcm_s16le); "
      + ".mp4 cannot hold audio stream #0 (pcm_s16le); .mov, .mkv can"]),
    ("remux of an audio-only preset keeps audio only", .landscape1080, "m4a", .remux, .m4a, nil,
     ["#0 video drop: preset m4a (remux) has no video", "#1 audio copy"]),
    ("remux: a second audio the container cannot hold blocks too (no audio is dropped by a copy)", .make([.h264(0, 1280, 720), .aac(1), .pcm(2)]),
     "highest", .remux, .mp4, nil,
     ["#0 video copy 1280x720", "#1 audio copy", "#2 audio drop: .mp4 cannot hold pcm_s16le",
      "impossible: remux skipped: .mp4 cannot hold audio stream #2 (pcm_s16le); .mov, .mkv can"]),
    ("remux ignores crop and volume, keeps rotate and mute", .landscape1080, "highest", .remux, .mp4,
     EditSidecar(crop: .init(x: 0, y: 0, width: 640, height: 360), rotate: 90, mute: true, volume: 2),
     ["#0 video copy 1920x1080 matrix \(cw90)", "#1 audio drop: muted by the edit sidecar"]),
    ("passthrough (its own route) with extras: MOV holds no cover art", .withExtras, "passthrough", .remux, .mov, nil,
     ["#0 video copy 1920x1080", "#1 audio copy", "#2 subtitle copy", "#3 data drop: data streams are not copied",
      "#4 video drop: cover art: FFmpeg's MOV muxer does not write it (.mp4, .m4v, .m4a and .mkv keep it)"]),
    ("passthrough into MKV drops the mov_text it cannot hold, keeps the cover", .withExtras, "passthrough", .transcode, .mkv, nil,
     ["#0 video copy 1920x1080", "#1 audio copy", "#2 subtitle drop: .mkv cannot hold mov_text", "#3 data drop: data streams are not copied",
      "#4 video cover art 600x600"]),
    ("passthrough into MP4 keeps the cover", .withExtras, "passthrough", .remux, .mp4, nil,
     ["#0 video copy 1920x1080", "#1 audio copy", "#2 subtitle copy", "#3 data drop: data streams are not copied",
      "#4 video cover art 600x600"]),
    ("remux of an audio-only preset keeps the cover: it is no video track of an .m4a", .withCover, "m4a", .remux, .m4a, nil,
     ["#0 audio copy", "#1 video cover art 500x500"]),
    ("passthrough cannot drop a main stream: the route is impossible, naming containers that can hold it", .pcmAudio, "passthrough", .remux, .mp4, nil,
     ["#0 video copy 1920x1080", "#1 audio drop: .mp4 cannot hold pcm_s16le",
      "impossible: remux skipped: .mp4 cannot hold audio stream #1 (pcm_s16le); .mov, .mkv can"]),
    ("passthrough flip on a rotated source", .portraitRotated, "passthrough", .remux, .mov, EditSidecar(flip: .horizontal),
     ["#0 video copy 1920x1080 matrix \([0, one, 0, one, 0, 0, 0, 0, w30])", "#1 audio copy"]),
    ("passthrough: an attachment is not copied", .make([.h264(0, 640, 360), SourceStream(index: 1, kind: .attachment, codec: "ttf")]),
     "passthrough", .remux, .mkv, nil,
     ["#0 video copy 640x360", "#1 attachment drop: attachment streams are not copied"]),
]

/// Transcode-side drops, old and new: (name, source, preset, container, plan lines).
let dropCases: [(String, SourceInfo, String, Container, [String])] = [
    ("video preset into .m4a", .landscape1080, "highest", .m4a, ["#0 video drop: .m4a holds audio only", "#1 audio → aac 2ch"]),
    ("extras into MP4", .withExtras, "highest", .mp4,
     ["#0 video → h264 1920x1080", "#1 audio → aac 2ch", "#2 subtitle copy", "#3 data drop: data streams are not exported",
      "#4 video cover art 600x600"]),
    ("mov_text into MKV", .withExtras, "highest", .mkv,
     ["#0 video → h264 1920x1080", "#1 audio → aac 2ch", "#2 subtitle drop: .mkv cannot hold mov_text subtitles",
      "#3 data drop: data streams are not exported", "#4 video cover art 600x600"]),
    ("extras into MOV", .withExtras, "highest", .mov,
     ["#0 video → h264 1920x1080", "#1 audio → aac 2ch", "#2 subtitle copy", "#3 data drop: data streams are not exported", "#4 video drop: cover art: FFmpeg's MOV muxer does not write it (.mp4, .m4v, .m4a and .mkv keep it)"]),
    ("an audio-only preset keeps the cover", .withCover, "m4a", .m4a, ["#0 audio → aac 2ch", "#1 video cover art 500x500"]),
    ("a cover in front of the audio is still no main video", .make([.cover(0), .aac(1)]), "highest", .mp4,
     ["#0 video cover art 500x500", "#1 audio → aac 2ch"]),
    ("GIF cover art cannot go into MP4", .make([.aac(0), .cover(1, codec: "gif")]), "m4a", .m4a,
     ["#0 audio → aac 2ch", "#1 video drop: cover art in gif: .m4a keeps BMP, JPEG, PNG cover art only"]),
    ("GIF cover art goes into MKV, BMP does not", .make([.aac(0), .cover(1, codec: "gif"), .cover(2, codec: "bmp")]), "highest", .mkv,
     ["#0 audio → aac 2ch", "#1 video cover art 500x500", "#2 video drop: cover art in bmp: .mkv keeps GIF, JPEG, PNG cover art only"]),
    ("several pictures are all kept", .make([.aac(0), .cover(1), .cover(2, codec: "png")]), "m4a", .m4a,
     ["#0 audio → aac 2ch", "#1 video cover art 500x500", "#2 video cover art 500x500"]),
    ("cover art alone is no export", .make([.pcm(0, channels: 0), .cover(1)]), "m4a", .m4a,
     ["#0 audio drop: channel count unknown", "#1 video drop: cover art alone is not exported",
      "impossible: no stream can be exported with preset m4a to .m4a (#0 audio pcm_s16le: channel count unknown; #1 video mjpeg: cover art alone is not exported)"]),
    ("an attachment", .make([.h264(0, 640, 360), SourceStream(index: 1, kind: .attachment, codec: "ttf")]), "low", .mkv,
     ["#0 video → h264 640x360", "#1 attachment drop: attachment streams are not exported"]),
    ("a second video", .make([.h264(0, 1280, 720), .h264(1, 640, 360), .aac(2)]), "highest", .mp4,
     ["#0 video → h264 1280x720", "#1 video drop: only the main video stream is exported", "#2 audio → aac 2ch"]),
    ("picture size unknown: the only video cannot be lost, the transcode is impossible", .make([.h264(0, 0, 0), .aac(1)]), "highest", .mp4,
     ["#0 video drop: picture size unknown", "#1 audio → aac 2ch",
      "impossible: transcode skipped: every video stream would be dropped (#0 h264: picture size unknown)"]),
    ("sample rate unknown: the only audio cannot be lost, the transcode is impossible", .make([.h264(0, 640, 360), .aac(1, rate: 0)]), "highest", .mp4,
     ["#0 video → h264 640x360", "#1 audio drop: sample rate unknown",
      "impossible: transcode skipped: every audio stream would be dropped (#1 aac: sample rate unknown)"]),
    ("sample rate unknown on a second audio: dropped with its reason, the first kept", .make([.h264(0, 640, 360), .aac(1), .aac(2, rate: 0)]), "highest", .mp4,
     ["#0 video → h264 640x360", "#1 audio → aac 2ch", "#2 audio drop: sample rate unknown"]),
    ("new: channel count unknown", .wav0ch, "highest", .mp4,
     ["#0 audio drop: channel count unknown",
      "impossible: no stream can be exported with preset highest to .mp4 (#0 audio pcm_s16le: channel count unknown)"]),
    ("new: a second audio without a decoder is dropped", .make([.h264(0, 640, 360), .aac(1),
        SourceStream(index: 2, kind: .audio, codec: "unknown 'zzz1'", codecKnown: false, decodable: false, channels: 2, sampleRate: 48_000)]),
     "highest", .mp4,
     ["#0 video → h264 640x360", "#1 audio → aac 2ch", "#2 audio drop: no decoder for unknown 'zzz1'"]),
    ("new: the main audio without a decoder blocks the transcode", .make([.h264(0, 640, 360),
        SourceStream(index: 1, kind: .audio, codec: "ac4", decodable: false, channels: 2, sampleRate: 48_000)]),
     "highest", .mp4,
     ["#0 video → h264 640x360", "#1 audio drop: no decoder for ac4", "impossible: transcode skipped: no decoder for audio stream #1 (ac4)"]),
    ("an iPhone's spatial audio beside AAC: passthrough drops it with the reason, keeps the rest", .make([.h264(0, 640, 360), .aac(1),
        SourceStream(index: 2, kind: .audio, codec: "unknown 'apac'", codecKnown: false, decodable: false, channels: 4, sampleRate: 48_000)]),
     "passthrough", .mp4,
     ["#0 video copy 640x360", "#1 audio copy", "#2 audio drop: unknown 'apac' is a codec FFmpeg does not know: no container can carry it (the other audio is kept)"]),
    ("6 channels are downmixed to the preset's 2", .make([.aac(0, channels: 6)]), "m4a", .m4a, ["#0 audio → aac 2ch"]),
    ("the file has no streams", .make([]), "highest", .mp4, ["impossible: the file has no streams"]),
]

@Suite struct PlannerTests {
    @Test(arguments: editCases)
    func edit(_ name: String, _ source: SourceInfo, _ preset: String, _ edits: EditSidecar, _ expected: [String]) throws {
        #expect(try summary(planned(source, Presets.named(preset), edits: edits)) == expected, "\(name)")
    }

    @Test(arguments: copyCases)
    func streamCopy(_ name: String, _ source: SourceInfo, _ preset: String, _ route: ExportRoute, _ container: Container,
                    _ edits: EditSidecar?, _ expected: [String]) throws {
        let plan = try ExportPlanner.plan(source: source, preset: Presets.named(preset), route: route, container: container, edits: edits, range: nil)
        #expect(summary(plan) == expected, "\(name)")
        #expect(plan.route == route && plan.container == container)
    }

    @Test(arguments: dropCases)
    func drops(_ name: String, _ source: SourceInfo, _ preset: String, _ container: Container, _ expected: [String]) throws {
        #expect(try summary(planned(source, Presets.named(preset), container: container)) == expected, "\(name)")
    }

    @Test func coverArtBesideAppleKeysDurationsAndRecord() throws {
        // Apple's keys make the MP4 muxer write QuickTime `mdta` metadata, which has no `covr`: dropped, saying so.
        var tagged = SourceInfo.withCover
        tagged.tags = ["com.apple.quicktime.make": "Apple"]
        #expect(summary(try planned(tagged, Presets.m4a)) == ["#0 audio → aac 2ch",
            "#1 video drop: cover art: FFmpeg's MP4 muxer writes no cover beside Apple's QuickTime metadata keys (com.apple.quicktime.*), which this output carries"])
        #expect(summary(try planned(tagged, Presets.highest, container: .mkv)) == ["#0 audio → aac 2ch", "#1 video cover art 500x500"])
        // A picture has no duration or frames to expect, and does not lengthen the export (libavformat gives cover art
        // the file's duration).
        var long = SourceInfo.make([.aac(0), .cover(1)], duration: 10)
        long.streams[0].duration = 8
        long.streams[1].duration = 10
        let plan = try planned(long, Presets.m4a)
        #expect(plan.streams[1].isCoverArt && plan.streams[1].expectedDuration == nil && plan.streams[1].expectedFrames == nil)
        #expect(plan.timeline.expectedDuration == 8)
        #expect(plan.streamPlans[1] == StreamPlan(index: 1, type: "video", codec: "mjpeg", action: .copy, outputCodec: "mjpeg",
                                                  width: 500, height: 500, reason: "as cover art: the MP4 covr atom"))
        #expect(try planned(long, Presets.highest, container: .mkv).streamPlans[1].reason == "as cover art: a Matroska attachment")
    }

    @Test func remuxBlockersAreListedAndJoined() throws {
        let source = SourceInfo.make([SourceStream(index: 0, kind: .video, codec: "prores", fitsIn: [.mov, .mkv], width: 1920, height: 1080), .pcm(1)])
        let plan = try planned(source, Presets.highest, route: .remux)
        #expect(plan.blockers.map(\.description) == [".mp4 cannot hold video stream #0 (prores); .mov, .mkv can", ".mp4 cannot hold audio stream #1 (pcm_s16le); .mov, .mkv can"])
        #expect(plan.impossible == "no stream can be exported with preset highest (remux) to .mp4 (#0 video prores: .mp4 cannot hold prores; "
                + "#1 audio pcm_s16le: .mp4 cannot hold pcm_s16le); .mp4 cannot hold video stream #0 (prores); .mov, .mkv can; "
                + ".mp4 cannot hold audio stream #1 (pcm_s16le); .mov, .mkv can")
        let withAAC = SourceInfo.make([SourceStream(index: 0, kind: .video, codec: "prores", fitsIn: [.mov, .mkv], width: 1920, height: 1080), .pcm(1), .aac(2)])
        #expect(try planned(withAAC, Presets.highest, route: .remux).impossible
                == "remux skipped: .mp4 cannot hold video stream #0 (prores); .mov, .mkv can; .mp4 cannot hold audio stream #1 (pcm_s16le); .mov, .mkv can")
        #expect(plan.isPossible == false)
    }

    @Test func passthroughIsTheSameOnBothRoutes() throws {
        for source in [SourceInfo.withExtras, .pcmAudio, .noDecodable] {
            let a = try planned(source, Presets.passthrough, route: .transcode)
            let b = try planned(source, Presets.passthrough, route: .remux)
            #expect(a.streams == b.streams && a.impossible == b.impossible)
        }
        // A main video no container can hold makes passthrough impossible (the chain goes on to the byte copy).
        #expect(try planned(.noDecodable, Presets.passthrough).blockers.map(\.description) == [".mov cannot hold video stream #0 (unknown 'zzv9'); no container mediaexport writes can"])
        #expect(try planned(.noDecodable, Presets.passthrough).isPossible == false)
    }

    @Test func startedEventRecords() throws {
        let plan = try planned(.withExtras, Presets.passthrough, edits: EditSidecar(rotate: 90))
        #expect(plan.streamPlans == [
            StreamPlan(index: 0, type: "video", codec: "h264", action: .copy, outputCodec: "h264", width: 1920, height: 1080,
                       reason: "rotation/flip applied losslessly to the display matrix"),
            StreamPlan(index: 1, type: "audio", codec: "aac", action: .copy, outputCodec: "aac"),
            StreamPlan(index: 2, type: "subtitle", codec: "mov_text", action: .copy, outputCodec: "mov_text"),
            StreamPlan(index: 3, type: "data", codec: "none", action: .drop, reason: "data streams are not copied"),
            StreamPlan(index: 4, type: "video", codec: "mjpeg", action: .drop,
                       reason: "cover art: FFmpeg's MOV muxer does not write it (.mp4, .m4v, .m4a and .mkv keep it)"),
        ])
        let transcode = try planned(.anamorphic, Presets.low, edits: EditSidecar(volume: 2))
        var video = StreamPlan(index: 0, type: "video", codec: "h264", action: .transcode, outputCodec: "h264", width: 640, height: 360)
        video.changes = [StreamChange(kind: .scale, from: "1440x1080", to: "640x360")]
        var audio = StreamPlan(index: 1, type: "audio", codec: "aac", action: .transcode, outputCodec: "aac")
        audio.changes = [StreamChange(kind: .bitRate, from: "128", to: "64")]
        #expect(transcode.streamPlans == [
            video,
            audio,
        ])
    }

    @Test func fullVideoAndAudioPlans() throws {
        let plan = try planned(.portraitRotated, Presets.named("hevc-1920x1080"),
                               edits: EditSidecar(crop: .init(x: 0, y: 0, width: 1080, height: 1080), flip: .horizontal, volume: 0.25))
        let preset = Presets.named("hevc-1920x1080")
        var video = VideoPlan(width: 1080, height: 1080, settings: try #require(preset.video),
                              crop: PixelRect(left: 0, top: 0, width: 1080, height: 1080),
                              displayMatrix: [0, one, 0, one, 0, 0, 0, 0, w30])
        // The hand-built probe says nothing of the scan: the first decoded frame decides.
        video.deinterlace = .flaggedFrames
        #expect(plan.streams[0].action == .transcodeVideo(video))
        #expect(plan.streams[1].action == .transcodeAudio(AudioPlan(channels: 2, settings: try #require(preset.audio), gain: 0.25)))
        #expect(plan.streams[0].width == 1080 && plan.streams[0].note == nil)
    }

    @Test func byteCopy() throws {
        let plan = try planned(.withExtras, Presets.highest, route: .copy, edits: EditSidecar(crop: .init(x: 0, y: 0, width: 2, height: 2)),
                               range: TimeRange(start: -5))
        #expect(plan.container == nil && plan.isPossible && plan.blockers.isEmpty)
        #expect(plan.notes == ["time range not applied by a byte copy"])
        #expect(plan.streamPlans.isEmpty)
        #expect(plan.streams.allSatisfy { $0.action == .copy(displayMatrix: nil) } && plan.streams.count == 5)
        #expect(plan.timeline == PlannedTimeline(origin: 0))
        #expect(try planned(.make([]), Presets.highest, route: .copy).notes.isEmpty)
        #expect(try planned(.make([]), Presets.highest, route: .copy).isPossible)
    }

    @Test func noContainerIsImpossible() throws {
        let plan = try ExportPlanner.plan(source: .landscape1080, preset: Presets.highest, route: .transcode, container: nil, edits: nil, range: nil)
        #expect(plan.impossible == "no container for this extension")
        #expect(plan.streams.isEmpty)
    }

    /// `--require-current`'s question: what would this fallback not apply?
    @Test(arguments: [
        (ExportRoute.transcode, EditSidecar(crop: .init(x: 0, y: 0, width: 2, height: 2)), true, true, String?.none),
        (.remux, EditSidecar(crop: .init(x: 0, y: 0, width: 2, height: 2), volume: 0.5), false, true, "crop, volume"),
        (.remux, EditSidecar(rotate: 90, mute: true), true, true, nil),
        (.copy, EditSidecar(rotate: 90), false, true, "the edits of IMG_1.edit.json"),
        (.copy, EditSidecar(trim: .init(start: 1, end: 2)), true, true, "the edits of IMG_1.edit.json, the time range"),
        (.copy, EditSidecar(), true, true, "the time range"),
        (.copy, EditSidecar(rotate: 90), true, false, nil),
    ])
    func editsLost(_ route: ExportRoute, _ edits: EditSidecar, _ timeRange: Bool, _ current: Bool, _ expected: String?) {
        #expect(ExportPlanner.editsLost(by: route, edits: edits, sidecarName: "IMG_1.edit.json", timeRangeGiven: timeRange,
                                        deliversCurrent: current) == expected)
    }

    @Test func editsLostWithoutASidecarName() {
        #expect(ExportPlanner.editsLost(by: .copy, edits: EditSidecar(mute: true), sidecarName: nil, timeRangeGiven: false,
                                        deliversCurrent: true) == "the edits of the sidecar")
    }
}
