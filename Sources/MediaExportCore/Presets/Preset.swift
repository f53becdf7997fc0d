import Foundation

/// A named export recipe, loaded from a JSON file in `Presets/` (or a user's own file).
///
/// A preset says what happens to each kind of stream: `video`/`audio` settings transcode it, a missing
/// section drops that kind of stream, and `passthrough: true` copies every stream the container can hold.
public struct Preset: Codable, Sendable, Equatable {
    /// Short name used on the command line (`highest`, `1280x720`, …).
    public var name: String
    /// Other accepted names, matched case-insensitively (Apple's `AVAssetExportPreset…` names).
    public var aliases: [String]
    /// One line for the `presets` table.
    public var summary: String
    /// The container used when the output has no extension of its own, e.g. `mp4` or `m4a`.
    public var defaultExtension: String
    /// Stream copy of every stream the output container can hold; no decoding.
    public var passthrough: Bool
    /// How to encode video; `nil` drops video (audio-only presets) unless `passthrough`.
    public var video: VideoSettings?
    /// How to encode audio; `nil` drops audio unless `passthrough`.
    public var audio: AudioSettings?
    /// The most bytes the output may have (AVAssetExportSession's `fileLengthLimit`): the video's average bit rate
    /// is chosen from the duration and the audio, encoded in two passes, and the result checked; nil: no limit.
    /// In JSON a number of bytes or a size such as `"16MB"` (see `ByteSize`).
    public var maxFileSize: Int64?
    /// How much descriptive metadata the output keeps (`MetadataLevel`); nil: `all` (and left out of the
    /// preset's JSON, so that a batch's settings hash stays what it was).
    public var metadata: MetadataLevel?
    /// The metadata level in effect.
    public var metadataLevel: MetadataLevel { metadata ?? .all }

    /// Creates a preset value (used by tests and by code that builds presets on the fly).
    public init(name: String, aliases: [String] = [], summary: String = "", defaultExtension: String = "mp4",
                passthrough: Bool = false, video: VideoSettings? = nil, audio: AudioSettings? = nil) {
        self.name = name; self.aliases = aliases; self.summary = summary; self.defaultExtension = defaultExtension
        self.passthrough = passthrough; self.video = video; self.audio = audio
    }

    package enum CodingKeys: String, CodingKey, CaseIterable {
        case name, aliases, summary, defaultExtension, passthrough, video, audio, maxFileSize
        case metadata
    }

    /// Reads a preset file: only `name` is required; the other fields take their defaults (`.mp4`, no size limit).
    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.decode(String.self, forKey: .name)
        aliases = try c.decodeIfPresent([String].self, forKey: .aliases) ?? []
        summary = try c.decodeIfPresent(String.self, forKey: .summary) ?? ""
        defaultExtension = try c.decodeIfPresent(String.self, forKey: .defaultExtension) ?? "mp4"
        passthrough = try c.decodeIfPresent(Bool.self, forKey: .passthrough) ?? false
        video = try c.decodeIfPresent(VideoSettings.self, forKey: .video)
        audio = try c.decodeIfPresent(AudioSettings.self, forKey: .audio)
        maxFileSize = try c.decodeIfPresent(ByteSize.self, forKey: .maxFileSize)?.bytes
        metadata = try c.decodeIfPresent(MetadataLevel.self, forKey: .metadata).flatMap { $0 == .all ? nil : $0 }
    }
}

/// Video codecs a preset can ask for; what their encoders take is in their `profile` (`EncoderProfile`).
public enum VideoCodec: String, Codable, Sendable, CaseIterable {
    /// H.264 through libx264.
    case h264
    /// HEVC through libx265, tagged `hvc1` in MP4/MOV as Apple players expect.
    case hevc
    /// AV1 through SVT-AV1 (`libsvtav1`): `encoderPreset` is its speed (`0`–`13`), `crf` 0–63.
    case av1
}

/// Audio codecs a preset can ask for (their encoders' `profile`: `EncoderProfile`).
public enum AudioCodec: String, Codable, Sendable, CaseIterable {
    /// AAC-LC through FFmpeg's native encoder.
    case aac
    /// Opus through libopus (48 kHz): what WebM holds; the planner picks it for `.webm` when the preset says AAC.
    case opus
}

/// Video encoding settings of a preset.
public struct VideoSettings: Codable, Sendable, Equatable {
    /// Output codec.
    public var codec: VideoCodec
    /// The encoder's speed preset (`ultrafast` … `veryslow` for x264/x265; default: the profile's `defaultSpeed`).
    public var encoderPreset: String
    /// Constant rate factor (0–51; lower is better quality).
    public var crf: Int
    /// The box the displayed picture must fit (`[long, short]` in any order); `nil` keeps the source size.
    public var maxSize: SizeBox?
    /// Output pixel format (`yuv420p` plays everywhere). With `hdr: keep`, an HDR or 10-bit source raises an
    /// 8-bit format to its 10-bit counterpart (`yuv420p` → `yuv420p10le`).
    public var pixelFormat: String
    /// What happens to an HDR (PQ or HLG) source. Default: `keep` for HEVC, `tonemap` for H.264.
    public var hdr: HDRHandling
    /// The tone-mapping curve when `hdr` is `tonemap` (default `hable`, as Immich).
    public var toneMap: ToneMapCurve
    /// Deinterlace interlaced sources (`bwdif`, one frame per frame); default true, as HandBrake's decomb.
    public var deinterlace: Bool
    /// A ceiling on the video bit rate in bits/s (the CRF stays the target; x264/x265's VBV caps it: ffmpeg's
    /// `-maxrate`, Immich's `maxBitrate`); nil: none.
    public var maxBitrate: Int?
    /// The VBV buffer in bits for `maxBitrate`; nil: twice `maxBitrate` (ffmpeg's `-bufsize`).
    public var bufferSize: Int?
    /// An average bit rate in bits/s instead of the CRF (ffmpeg's `-b:v`); nil: `crf` rules.
    public var bitrate: Int?
    /// Encode `bitrate` in two passes (a first pass writes the encoder's statistics, the second spends the bits
    /// where they matter and lands on the average: ffmpeg's `-pass 1`/`-pass 2`). Needs `bitrate`.
    public var twoPass: Bool
    /// The most frames per second of the output (1–240); a source faster on the output's timeline has frames left
    /// out evenly, its variable timing kept (`FrameRateCap`). nil: the source's rate.
    public var maxFrameRate: Double?
    /// A measured quality to reach instead of a fixed CRF (`--quality`): the CRF is searched for on short windows
    /// of the source, starting from `crf`, and the output measured against it (`QualityReport`). nil: `crf` rules.
    public var quality: QualityTarget?
    /// A keyframe every this many seconds of the output (0.5–20): frames at or just after each multiple are
    /// encoded as keyframes (IDR), whatever the encoder's own choices in between — where a streaming package cuts
    /// its segments, at the same times in every rendition. nil: the encoder places keyframes.
    public var keyframeInterval: Double?

    /// Creates video settings.
    public init(codec: VideoCodec, encoderPreset: String? = nil, crf: Int = 23, maxSize: SizeBox? = nil,
                pixelFormat: String = "yuv420p", hdr: HDRHandling? = nil, toneMap: ToneMapCurve = .hable, deinterlace: Bool = true) {
        self.codec = codec; self.encoderPreset = encoderPreset ?? codec.profile.defaultSpeed; self.crf = crf; self.maxSize = maxSize
        self.pixelFormat = pixelFormat; self.hdr = hdr ?? HDRHandling.defaultFor(codec); self.toneMap = toneMap
        self.deinterlace = deinterlace
        self.maxBitrate = nil; self.bufferSize = nil; self.bitrate = nil; self.twoPass = false
        self.maxFrameRate = nil
        self.quality = nil
        self.keyframeInterval = nil
    }

    package enum CodingKeys: String, CodingKey, CaseIterable {
        case codec, encoderPreset, crf, maxSize, pixelFormat, hdr, toneMap, deinterlace, maxBitrate, bufferSize, bitrate, twoPass
        case maxFrameRate, quality, keyframeInterval
    }

    /// Reads a preset's `video` section: only `codec` is required; the other fields take their defaults.
    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        codec = try c.decode(VideoCodec.self, forKey: .codec)
        encoderPreset = try c.decodeIfPresent(String.self, forKey: .encoderPreset) ?? codec.profile.defaultSpeed
        crf = try c.decodeIfPresent(Int.self, forKey: .crf) ?? 23
        maxSize = try c.decodeIfPresent(SizeBox.self, forKey: .maxSize)
        pixelFormat = try c.decodeIfPresent(String.self, forKey: .pixelFormat) ?? "yuv420p"
        hdr = try c.decodeIfPresent(HDRHandling.self, forKey: .hdr) ?? HDRHandling.defaultFor(codec)
        toneMap = try c.decodeIfPresent(ToneMapCurve.self, forKey: .toneMap) ?? .hable
        deinterlace = try c.decodeIfPresent(Bool.self, forKey: .deinterlace) ?? true
        maxBitrate = try c.decodeIfPresent(Int.self, forKey: .maxBitrate)
        bufferSize = try c.decodeIfPresent(Int.self, forKey: .bufferSize)
        bitrate = try c.decodeIfPresent(Int.self, forKey: .bitrate)
        twoPass = try c.decodeIfPresent(Bool.self, forKey: .twoPass) ?? false
        maxFrameRate = try c.decodeIfPresent(Double.self, forKey: .maxFrameRate)
        quality = try c.decodeIfPresent(QualityTarget.self, forKey: .quality)
        keyframeInterval = try c.decodeIfPresent(Double.self, forKey: .keyframeInterval)
    }
}

/// What a preset does with an HDR (PQ or HLG) source.
public enum HDRHandling: String, Codable, Sendable, CaseIterable {
    /// Keep it HDR: 10-bit output, transfer, primaries, matrix and HDR10 metadata carried (HEVC and AV1 only).
    case keep
    /// Convert to SDR BT.709: linearise, BT.2020 → BT.709, tone-map (`toneMap`), 8-bit limited range.
    case tonemap

    /// `keep` for HEVC (as AVAssetExportSession's HEVC presets) and AV1, `tonemap` for H.264 (as its H.264 presets).
    public static func defaultFor(_ codec: VideoCodec) -> HDRHandling { codec.profile.hdr != nil ? .keep : .tonemap }
}

/// Tone-mapping curves (FFmpeg's `tonemap` filter).
public enum ToneMapCurve: String, Codable, Sendable, CaseIterable {
    /// Filmic, keeps highlight detail (Immich's default).
    case hable
    /// Keeps in-range colours exact, rolls off above.
    case mobius
    /// Simple, preserves overall brightness.
    case reinhard
    /// Hard clip: exact in range, loses highlights.
    case clip
}

/// Audio encoding settings of a preset.
public struct AudioSettings: Codable, Sendable, Equatable {
    /// Output codec.
    public var codec: AudioCodec
    /// Bit rate in bits per second.
    public var bitrate: Int
    /// Output sample rate in Hz; the source is resampled to it.
    public var sampleRate: Int
    /// Most channels to keep: more are downmixed, fewer are kept as they are (mono stays mono).
    public var channels: Int
    /// An integrated loudness (LUFS, −70…−5) the main audio is normalised to, its true peak at most −1 dBTP
    /// (`--loudness`; docs/loudness.md). nil: the level is left as it is.
    public var loudness: Double?

    /// Creates audio settings.
    public init(codec: AudioCodec = .aac, bitrate: Int = 128_000, sampleRate: Int = 48_000, channels: Int = 2, loudness: Double? = nil) {
        self.codec = codec; self.bitrate = bitrate; self.sampleRate = sampleRate; self.channels = channels; self.loudness = loudness
    }

    package enum CodingKeys: String, CodingKey, CaseIterable { case codec, bitrate, sampleRate, channels, loudness }

    /// Reads a preset's `audio` section: AAC, 128 kb/s, 48 kHz, stereo unless it says otherwise.
    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        codec = try c.decodeIfPresent(AudioCodec.self, forKey: .codec) ?? .aac
        bitrate = try c.decodeIfPresent(Int.self, forKey: .bitrate) ?? 128_000
        sampleRate = try c.decodeIfPresent(Int.self, forKey: .sampleRate) ?? 48_000
        channels = try c.decodeIfPresent(Int.self, forKey: .channels) ?? 2
        loudness = try c.decodeIfPresent(Double.self, forKey: .loudness)
    }
}

/// A bounding box for the displayed picture, independent of orientation: the long side of the picture must
/// fit the larger number and the short side the smaller one, so `1280x720` holds a portrait 720x1280 clip.
public struct SizeBox: Codable, Sendable, Equatable, CustomStringConvertible {
    /// The larger side of the box.
    public var long: Int
    /// The smaller side of the box.
    public var short: Int

    /// Creates a box from two sides in any order.
    public init(_ a: Int, _ b: Int) { long = max(a, b); short = min(a, b) }

    /// `"1280x720"`.
    public var description: String { "\(long)x\(short)" }

    /// Reads `[width, height]`, each side 2 to 16384.
    public init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        let sides = try c.decode([Int].self)
        guard sides.count == 2 else {
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "expected [width, height], got \(sides.count) numbers")
        }
        guard sides.allSatisfy({ $0 >= 2 && $0 <= 16384 }) else {
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "sides must be between 2 and 16384")
        }
        self.init(sides[0], sides[1])
    }

    /// Writes `[long, short]`.
    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode([long, short])
    }

    /// The output size for a picture shown at `width`x`height`: scaled down (never up) to fit the box,
    /// aspect ratio kept, both sides even (4:2:0 encoders need it).
    public func fit(width: Int, height: Int) -> (width: Int, height: Int) {
        SizeBox.fitting(width: width, height: height, into: self)
    }

    /// Like `fit`, with an optional box: without one only the even-size rule applies.
    package static func fitting(width: Int, height: Int, into box: SizeBox?) -> (width: Int, height: Int) {
        let w = Double(max(width, 1)), h = Double(max(height, 1))
        var scale = 1.0
        if let box {
            let long = max(w, h), short = min(w, h)
            scale = min(1.0, Double(box.long) / long, Double(box.short) / short)
        }
        func even(_ x: Double, limit: Int) -> Int {
            var v = Int((x / 2).rounded()) * 2
            let evenLimit = limit & ~1
            if v > evenLimit { v = evenLimit }
            return max(2, v)
        }
        let limitW = box.map { Int(w) <= Int(h) ? min(Int(w), $0.short) : min(Int(w), $0.long) } ?? Int(w)
        let limitH = box.map { Int(h) < Int(w) ? min(Int(h), $0.short) : min(Int(h), $0.long) } ?? Int(h)
        return (even(w * scale, limit: limitW), even(h * scale, limit: limitH))
    }
}
