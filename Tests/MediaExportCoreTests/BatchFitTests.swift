import Foundation
import Testing
@testable import MediaExportCore

/// `--policy needed`: does the file already fit the preset? (source, preset, why not): the plans' answer (`ExportPlanner.start`).
let fitCases: [(String, SourceInfo, String, String?)] = [
    ("fits", .landscape1080, "1920x1080", nil),
    ("portrait fits the orientation-free box", .portraitRotated, "1920x1080", nil),
    ("audio only fits a video preset", .audioOnly, "highest", nil),
    ("audio only fits m4a", .audioOnly, "m4a", nil),
    ("codec", .make([.h264(0, 1920, 1080, codec: "hevc"), .aac(1)]), "1920x1080", "video codec hevc is not h264"),
    ("pixel format", .make([.h264(0, 1920, 1080, pixelFormat: "yuv420p10le")]), "highest", "stream #0 video: pixel format yuv420p10le → yuv420p"),
    ("pixel format unknown", .make([SourceStream(index: 0, kind: .video, codec: "h264", width: 640, height: 360)]), "highest",
     "stream #0 video: pixel format unknown → yuv420p"),
    ("box", .make([.h264(0, 3840, 2160), .aac(1)]), "1920x1080", "stream #0 video: scaled 3840x2160 → 1920x1080"),
    ("box, rotated", .portraitRotated, "1280x720", "stream #0 video: scaled 1920x1080 → 1280x720"),
    ("box, anamorphic at its displayed size", .anamorphic, "1280x720", "stream #0 video: scaled 1440x1080 → 1280x720"),
    ("odd", .oddSize, "highest", "stream #0 video: scaled 853x479 → 852x478"),
    ("bit rate", .make([.h264(0, 1920, 1080, bitRate: 30_000_000)]), "1920x1080",
     "stream #0 video: bit rate 30000 → at most 18515 kb/s"),
    ("VFR: no average rate, no bit-rate judgement", .make([.h264(0, 1920, 1080, fps: nil, bitRate: 30_000_000)]), "1920x1080", nil),
    ("an audio preset: the remux keeps the audio as the transcode does, and drops the video as it does", .landscape1080, "m4a", nil),
    ("audio codec", .pcmAudio, "1920x1080", "audio codec pcm_s16le is not aac"),
    ("audio channels", .make([.h264(0, 1280, 720), .aac(1, channels: 6)]), "highest", "stream #1 audio: downmix 6 → 2 channels"),
    ("audio sample rate", .make([.aac(0, rate: 96_000)]), "m4a", "stream #0 audio: 96000 → 48000 Hz"),
    ("audio bit rate", .make([.aac(0, bitRate: 320_000)]), "1920x1080", "stream #0 audio: bit rate 320 → at most 192 kb/s"),
    ("audio bit rate within 25 %", .make([.aac(0, bitRate: 240_000)]), "1920x1080", nil),
    ("extra streams: a remux drops the data stream as the transcode does; mov_text and the cover are kept in .mp4 anyway", .withExtras, "1920x1080", nil),
    ("cover art fits an .m4a", .make([.aac(0), SourceStream(index: 1, kind: .video, codec: "mjpeg", isAttachedPicture: true,
                                                           width: 600, height: 600)]), "m4a", nil),
    ("SubRip needs converting for .mp4", .make([.h264(0, 1920, 1080), .aac(1), SourceStream(index: 2, kind: .subtitle, codec: "subrip", fitsIn: [.mkv])]),
     "1920x1080", "subtitle codec subrip is not mov_text"),
    ("nothing to judge", .make([SourceStream(index: 0, kind: .data, codec: "bin_data")]), "highest",
     "no stream can be exported with preset highest to .mp4 (#0 data bin_data: data streams are not exported)"),
    ("a passthrough preset copies its streams", .landscape1080, "passthrough", nil),
    ("HLG in 8 bits needs tone mapping for an H.264 preset", .make([hdr(codec: "h264", pixelFormat: "yuv420p")]), "highest",
     "stream #0 video: tone-mapped HLG → SDR"),
    ("HDR 10-bit HEVC fits an HEVC preset that keeps HDR", .make([hdr(codec: "hevc", pixelFormat: "yuv420p10le")]), "hevc-highest", nil),
    ("HDR 8-bit HEVC: kept HDR is 10-bit", .make([hdr(codec: "hevc", pixelFormat: "yuv420p")]), "hevc-highest",
     "stream #0 video: pixel format yuv420p → yuv420p10le"),
    ("interlaced needs deinterlacing", .make([interlacedH264()]), "highest", "stream #0 video: deinterlaced top field first → progressive"),
    ("a rotated video that fits a preset writing .mkv: the remux cannot carry the rotation", .portraitRotated,
     "mkv1080", "stream #0 video: rotate 90° into the pixels: .mkv has no display matrix"),
    ("a bitmap subtitle and a data stream: the remux drops them as the transcode does", .make([.h264(0, 1920, 1080), .aac(1),
     SourceStream(index: 2, kind: .subtitle, codec: "hdmv_pgs_subtitle", fitsIn: [.mkv]), SourceStream(index: 3, kind: .data, codec: "bin_data")]),
     "1920x1080", nil),
    ("a 44.1 kHz audio stream: the transcode's resampling up gives nothing a copy lacks", .make([.h264(0, 1920, 1080), .aac(1, rate: 44_100)]),
     "1920x1080", nil),
]

/// A 1920x1080 HLG video stream.
func hdr(codec: String, pixelFormat: String) -> SourceStream {
    var s = SourceStream.h264(0, 1920, 1080, codec: codec, pixelFormat: pixelFormat)
    s.color = VideoColor(primaries: "bt2020", transfer: "arib-std-b67", matrix: "bt2020nc", bitDepth: pixelFormat == "yuv420p" ? 8 : 10,
                         fieldOrder: .progressive)
    return s
}

/// A 1920x1080 H.264 stream coded interlaced, top field first.
func interlacedH264() -> SourceStream {
    var s = SourceStream.h264(0, 1920, 1080)
    s.color = VideoColor(bitDepth: 8, fieldOrder: .tt)
    return s
}

/// Why `source` does not already fit `preset` under `--policy needed` (nil: it fits, and the export remuxes or copies
/// it), as the one judge a batch and a single export share says.
func unfit(_ source: SourceInfo, preset: Preset) -> String? {
    var request = ExportRequest(input: "/in/clip.mov", output: "/out/clip", preset: preset)
    request.policy = .needed
    let question = StartQuestion(request: request, source: source, resourceExtension: "mov")
    let decision = ExportPlanner.start(question, truncation: { nil })
    return decision.route == .transcode ? decision.reason.description : nil
}

@Suite struct BatchFitTests {
    @Test(arguments: fitCases)
    func whyNotFitting(_ name: String, _ source: SourceInfo, _ preset: String, _ expected: String?) {
        #expect(unfit(source, preset: Presets.named(preset)) == expected, "\(name)")
    }
}
