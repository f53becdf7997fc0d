import Foundation

/// Encoding settings given on the command line on top of a preset (`--crf`, `--encoder-preset`, `--video-bitrate`,
/// `--max-bitrate`, `--audio-bitrate`, the size box, `--fps`, `--channels`): `Preset.applying(_:maxFileSize:)` makes
/// the preset they describe.
public struct PresetOverrides: Sendable, Equatable {
    /// `--crf`: constant quality, replacing the preset's CRF or average bit rate.
    public var crf: Int?
    /// `--encoder-preset`: the x264/x265 speed preset.
    public var encoderPreset: String?
    /// `--video-bitrate`: an average video bit rate in bits/s instead of the CRF.
    public var videoBitrate: Int?
    /// `--max-bitrate`: a ceiling on the video bit rate in bits/s.
    public var maxBitrate: Int?
    /// `--audio-bitrate`: the AAC bit rate in bits/s.
    public var audioBitrate: Int?
    /// `--max-dimensions`, `--max-width`, `--max-height`: the box the picture must fit, replacing the preset's.
    public var maxSize: SizeBox?
    /// `--fps`: the most frames per second (the preset's `video.maxFrameRate`).
    public var maxFrameRate: Double?
    /// `--channels` (or `--mixdown`): the most audio channels (the preset's `audio.channels`).
    public var channels: Int?
    /// `--quality`: a measured quality the CRF is chosen for (the preset's `video.quality`).
    public var quality: QualityTarget?
    /// `--loudness LUFS`: the integrated loudness the main audio is normalised to (the preset's `audio.loudness`).
    public var loudness: Double?

    /// Creates overrides; nil leaves the preset's value.
    public init(crf: Int? = nil, encoderPreset: String? = nil, videoBitrate: Int? = nil, maxBitrate: Int? = nil, audioBitrate: Int? = nil,
                maxSize: SizeBox? = nil, maxFrameRate: Double? = nil, channels: Int? = nil, quality: QualityTarget? = nil, loudness: Double? = nil) {
        self.crf = crf; self.encoderPreset = encoderPreset; self.videoBitrate = videoBitrate
        self.maxBitrate = maxBitrate; self.audioBitrate = audioBitrate
        self.maxSize = maxSize; self.maxFrameRate = maxFrameRate; self.channels = channels; self.quality = quality; self.loudness = loudness
    }

    /// True when nothing is overridden.
    public var isEmpty: Bool { self == PresetOverrides() }

    /// The options given for the video, in command-line order of the help.
    var videoOptions: [String] {
        [("--crf", crf != nil), ("--quality", quality != nil), ("--encoder-preset", encoderPreset != nil), ("--video-bitrate", videoBitrate != nil),
         ("--max-bitrate", maxBitrate != nil), ("--max-height/--max-width/--max-dimensions", maxSize != nil), ("--fps", maxFrameRate != nil)].filter(\.1).map(\.0)
    }

    /// The options given for the audio.
    var audioOptions: [String] {
        [("--audio-bitrate", audioBitrate != nil), ("--channels", channels != nil), ("--loudness", loudness != nil)].filter(\.1).map(\.0)
    }

    /// A bit rate as people write it: `160000`, `64k`, `2.5M` (k = 1000, M = 1000000, as ffmpeg's `-b:a`), in
    /// bits/s; nil when `text` is not a positive rate.
    public static func parseRate(_ text: String) -> Int? {
        let t = text.trimmingCharacters(in: .whitespaces)
        let unit = t.last.map { $0.isLetter ? String($0).lowercased() : "" } ?? ""
        let number = unit.isEmpty ? t : String(t.dropLast())
        guard !number.isEmpty, number.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }), let value = Double(number) else { return nil }
        let scale: Double
        switch unit {
        case "": scale = 1
        case "k": scale = 1e3
        case "m": scale = 1e6
        default: return nil
        }
        let bits = (value * scale).rounded()
        guard bits >= 1, bits < 1e12 else { return nil }
        return Int(bits)
    }

    /// The preset field each option sets, for messages.
    static let fields = ["video.crf": "--crf", "video.quality": "--quality", "video.encoderPreset": "--encoder-preset", "video.bitrate": "--video-bitrate",
                         "video.maxBitrate": "--max-bitrate", "audio.bitrate": "--audio-bitrate", "video.maxSize": "--max-height/--max-width/--max-dimensions",
                         "video.maxFrameRate": "--fps", "audio.channels": "--channels", "audio.loudness": "--loudness"]
}

extension Preset {
    /// This preset with `overrides` on top, checked as a preset file is (`validate(path:)`: the same ranges and
    /// messages, named by option: `--crf must be between 0 and 51, got 60`). `--crf` replaces an average bit rate
    /// (and its two passes), `--video-bitrate` replaces the CRF; both at once, a video option on a preset that
    /// copies or drops video, `--audio-bitrate` on one without audio encoding, and `--crf`/`--video-bitrate` with a
    /// size limit (`maxFileSize`: `--max-size` or the preset's, which chooses the video bit rate) throw
    /// `ExportError.usage`. The name stays: the records carry the settings (`EncodingSettings`).
    public func applying(_ overrides: PresetOverrides, maxFileSize: Int64? = nil) throws -> Preset {
        if overrides.isEmpty { return self }
        func usage(_ reason: String) -> ExportError { .usage(reason: reason) }
        if overrides.crf != nil && overrides.videoBitrate != nil {
            throw usage("give either --crf or --video-bitrate, not both (constant quality or an average bit rate)")
        }
        if let option = [("--crf", overrides.crf), ("--video-bitrate", overrides.videoBitrate)].first(where: { $0.1 != nil })?.0,
           overrides.quality != nil {
            throw usage("give either --quality or \(option), not both (a quality target chooses the CRF)")
        }
        if let option = overrides.videoOptions.first, passthrough || video == nil {
            throw usage("\(option) needs a preset that encodes video; '\(name)' \(passthrough ? "copies every stream (passthrough)" : "has no video")")
        }
        if let option = overrides.audioOptions.first, passthrough || audio == nil {
            throw usage("\(option) needs a preset that encodes audio; '\(name)' \(passthrough ? "copies every stream (passthrough)" : "has no audio")")
        }
        if let option = [("--crf", overrides.crf), ("--video-bitrate", overrides.videoBitrate)].first(where: { $0.1 != nil })?.0,
           let limit = maxFileSize ?? self.maxFileSize {
            throw usage("\(option) cannot go with a size limit (\(limit) bytes): the limit chooses the video bit rate")
        }
        var p = self
        if let crf = overrides.crf { p.video?.crf = crf; p.video?.bitrate = nil; p.video?.twoPass = false; p.video?.quality = nil }
        if let rate = overrides.videoBitrate { p.video?.bitrate = rate; p.video?.quality = nil }
        if let target = overrides.quality { p.video?.quality = target; p.video?.bitrate = nil; p.video?.twoPass = false }
        if let speed = overrides.encoderPreset { p.video?.encoderPreset = speed }
        if let rate = overrides.maxBitrate { p.video?.maxBitrate = rate }
        if let rate = overrides.audioBitrate { p.audio?.bitrate = rate }
        if let box = overrides.maxSize { p.video?.maxSize = box }
        if let fps = overrides.maxFrameRate { p.video?.maxFrameRate = fps }
        if let channels = overrides.channels { p.audio?.channels = channels }
        if let lufs = overrides.loudness { p.audio?.loudness = lufs }
        do { try p.validate(path: name) } catch ExportError.invalidPreset(_, let field, let reason) {
            if let option = PresetOverrides.fields[field], given(option, overrides) { throw usage("\(option) \(reason)") }
            throw usage("the overrides conflict with preset '\(name)': \(field) \(reason)")
        }
        return p
    }

    private func given(_ option: String, _ o: PresetOverrides) -> Bool {
        (o.videoOptions + o.audioOptions).contains(option)
    }
}

/// The encoding settings an export ran with, in its `started` and `completed` records: the preset's values after
/// any command-line overrides (`Preset.applying(_:maxFileSize:)`). A field is nil when it does not apply (no video
/// encode, a CRF encode's bit rate, a bit-rate encode's CRF).
public struct EncodingSettings: Codable, Sendable, Equatable {
    /// The video codec (`h264`, `hevc`); nil when video is not encoded.
    public var videoCodec: String?
    /// The constant rate factor, for a CRF encode.
    public var crf: Int?
    /// The x264/x265 speed preset.
    public var encoderPreset: String?
    /// The average video bit rate in bits/s, for a bit-rate encode.
    public var videoBitrate: Int?
    /// The ceiling on the video bit rate in bits/s.
    public var maxBitrate: Int?
    /// The audio bit rate in bits/s; nil when audio is not encoded.
    public var audioBitrate: Int?

    /// The settings of `preset`; nil for a passthrough preset (nothing is encoded).
    public init?(_ preset: Preset) {
        if preset.passthrough { return nil }
        let v = preset.video
        videoCodec = v?.codec.rawValue
        crf = v?.bitrate == nil ? v?.crf : nil
        encoderPreset = v?.encoderPreset
        videoBitrate = v?.bitrate
        maxBitrate = v?.maxBitrate
        audioBitrate = preset.audio?.bitrate
    }
}
