import Foundation
import Testing
@testable import MediaExportCore

/// Batch `--policy needed`: does the file already fit the preset? (source, preset, misfit).
let misfitCases: [(String, SourceInfo, String, String?)] = [
    ("fits", .landscape1080, "1920x1080", nil),
    ("portrait fits the orientation-free box", .portraitRotated, "1920x1080", nil),
    ("audio only fits a video preset", .audioOnly, "highest", nil),
    ("audio only fits m4a", .audioOnly, "m4a", nil),
    ("codec", .make([.h264(0, 1920, 1080, codec: "hevc"), .aac(1)]), "1920x1080", "video codec hevc is not h264"),
    ("pixel format", .make([.h264(0, 1920, 1080, pixelFormat: "yuv420p10le")]), "highest", "pixel format yuv420p10le is not yuv420p"),
    ("pixel format unknown", .make([SourceStream(index: 0, kind: .video, codec: "h264", width: 640, height: 360)]), "highest",
     "pixel format unknown is not yuv420p"),
    ("box", .make([.h264(0, 3840, 2160), .aac(1)]), "1920x1080", "3840x2160 does not fit the 1920x1080 box"),
    ("box, rotated", .portraitRotated, "1280x720", "1080x1920 does not fit the 1280x720 box"),
    ("box, anamorphic at its displayed size", .anamorphic, "1280x720", "1920x1080 does not fit the 1280x720 box"),
    ("odd", .oddSize, "highest", "odd picture size 853x479"),
    ("bit rate", .make([.h264(0, 1920, 1080, bitRate: 30_000_000)]), "1920x1080",
     "video bit rate 30000 kb/s is above what CRF 20 gives (about 12343 kb/s)"),
    ("VFR: no average rate, no bit-rate judgement", .make([.h264(0, 1920, 1080, fps: nil, bitRate: 30_000_000)]), "1920x1080", nil),
    ("no video in the preset", .landscape1080, "m4a", "preset m4a has no video"),
    ("audio codec", .pcmAudio, "1920x1080", "audio codec pcm_s16le is not aac"),
    ("audio channels", .make([.h264(0, 1280, 720), .aac(1, channels: 6)]), "highest", "6 audio channels, preset keeps 2"),
    ("audio sample rate", .make([.aac(0, rate: 96_000)]), "m4a", "audio at 96000 Hz, preset uses 48000"),
    ("audio bit rate", .make([.aac(0, bitRate: 320_000)]), "1920x1080", "audio bit rate 320 kb/s is above the preset's 192"),
    ("audio bit rate within 25 %", .make([.aac(0, bitRate: 240_000)]), "1920x1080", nil),
    ("extra streams: a remux drops the data stream as the transcode does; mov_text and the cover are kept in .mp4 anyway", .withExtras, "1920x1080", nil),
    ("cover art fits an .m4a", .make([.aac(0), SourceStream(index: 1, kind: .video, codec: "mjpeg", isAttachedPicture: true,
                                                           width: 600, height: 600)]), "m4a", nil),
    ("SubRip needs converting for .mp4", .make([.h264(0, 1920, 1080), .aac(1), SourceStream(index: 2, kind: .subtitle, codec: "subrip", fitsIn: [.mkv])]),
     "1920x1080", "has streams only a transcode treats as the preset does: stream #2 subtitle (subrip): a remux drops it (.mp4 cannot hold subrip)"),
    ("nothing to judge", .make([SourceStream(index: 0, kind: .data, codec: "bin_data")]), "highest", "no audio or video stream"),
    ("passthrough has no video settings", .landscape1080, "passthrough", "preset passthrough has no video"),
    ("HLG in 8 bits needs tone mapping for an H.264 preset", .make([hdr(codec: "h264", pixelFormat: "yuv420p")]), "highest",
     "HDR (HLG) needs tone mapping to SDR"),
    ("HDR 10-bit HEVC fits an HEVC preset that keeps HDR", .make([hdr(codec: "hevc", pixelFormat: "yuv420p10le")]), "hevc-highest", nil),
    ("HDR 8-bit HEVC: kept HDR is 10-bit", .make([hdr(codec: "hevc", pixelFormat: "yuv420p")]), "hevc-highest",
     "pixel format yuv420p is not yuv420p10le"),
    ("interlaced needs deinterlacing", .make([interlacedH264()]), "highest", "interlaced (top field first) needs deinterlacing"),
    ("a rotated video that fits a preset writing .mkv: the remux cannot carry the rotation", .portraitRotated,
     "mkv1080", "a remux into .mkv cannot deliver it: remux skipped: .mkv keeps no display matrix: a stream copy of video stream #0 would lose its rotation (90°); .mp4, .mov, .m4v keep it, or a transcode turns the pixels upright"),
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

@Suite struct BatchFitTests {
    @Test(arguments: misfitCases)
    func misfit(_ name: String, _ source: SourceInfo, _ preset: String, _ expected: String?) {
        #expect(ExportPlanner.misfit(source, preset: Presets.named(preset)) == expected, "\(name)")
    }

    /// (source, preset, fits, bytes): the source size for a remux or copy; bits per pixel from the CRF otherwise.
    @Test(arguments: [
        (SourceInfo.landscape1080, "highest", true, Int64?(12_345_678)),
        (.make([.h264(0, 640, 360)], duration: nil), "highest", true, 12_345_678),
        (.make([.h264(0, 640, 360)], duration: nil), "highest", false, nil),
        (.landscape1080, "highest", false, 14_095_256),
        (.landscape1080, "hevc-highest", false, 5_476_958),
        // 30 fps when the rate is unknown (VFR): 640x360 at CRF 28 + 64 kb/s.
        (.vfr, "low", false, 564_903),
        // Fitted at the displayed size (1080x1920 → 360x640): the same pixels as landscape 640x360.
        (.portraitRotated, "low", false, 564_903),
        (.landscape1080, "m4a", false, 240_000),
        (.videoOnly, "m4a", false, 0),
    ])
    func estimate(_ source: SourceInfo, _ preset: String, _ fits: Bool, _ expected: Int64?) {
        #expect(ExportPlanner.estimatedBytes(source, preset: Presets.named(preset), fits: fits) == expected)
    }
}
