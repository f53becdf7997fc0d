import ArgumentParser
import MediaExport

/// `--crf`, `--encoder-preset`, `--video-bitrate`, `--max-bitrate` and `--audio-bitrate`, shared by `export` and
/// `batch`: applied on top of the preset by the library (`Preset.applying`), which checks them as preset file keys.
struct EncodingOverrideOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Constant rate factor, 0-51 (lower is better): replaces the preset's (or its average bit rate).", valueName: "N"))
    var crf: Int?

    @Option(name: .customLong("encoder-preset"), help: ArgumentHelp("x264/x265 speed: ultrafast, superfast, veryfast, faster, fast, medium, slow, slower, veryslow, placebo.", valueName: "NAME"),
            completion: .list(VideoCodec.h264.profile.speeds))
    var encoderPreset: String?

    @Option(name: .customLong("video-bitrate"), help: ArgumentHelp("Average video bit rate instead of the CRF (64k, 2.5M, 160000 bits/s); not with --crf.", valueName: "RATE"))
    var videoBitrate: String?

    @Option(name: .customLong("max-bitrate"), help: ArgumentHelp("Ceiling on the video bit rate (x264/x265 VBV, ffmpeg's -maxrate), e.g. 4M.", valueName: "RATE"))
    var maxBitrate: String?

    @Option(name: .customLong("audio-bitrate"), help: ArgumentHelp("AAC bit rate, e.g. 64k or 160000.", valueName: "RATE"))
    var audioBitrate: String?

    func validate() throws {
        for (option, text) in [("--video-bitrate", videoBitrate), ("--max-bitrate", maxBitrate), ("--audio-bitrate", audioBitrate)] {
            if let text, PresetOverrides.parseRate(text) == nil {
                throw ValidationError("\(option) takes bits/s as a number or with k or M (160000, 64k, 2.5M), got '\(text)'")
            }
        }
    }

    /// The overrides asked for.
    var overrides: PresetOverrides {
        PresetOverrides(crf: crf, encoderPreset: encoderPreset, videoBitrate: videoBitrate.flatMap(PresetOverrides.parseRate),
                        maxBitrate: maxBitrate.flatMap(PresetOverrides.parseRate), audioBitrate: audioBitrate.flatMap(PresetOverrides.parseRate))
    }
}
