internal import CFFmpeg
import MediaExportCore

/// One stream of an open file, read once from its `AVStream` and codec parameters (no decoding): what the source
/// probe (`SourceStream`), `probe` (`StreamInfo`) and the verifier (`OutputFacts.Stream`) build their values from.
struct StreamFacts {
    let index: Int, kind: SourceStream.Kind, codecID: AVCodecID
    /// FFmpeg's codec name, or `unknown 'fourcc'` (`codecName`).
    let codec: String
    let isAttachedPicture: Bool, tags: [String: String]
    /// Discarded by the demuxer before anyone asked (the MOV demuxer's chapter track).
    let discarded: Bool
    /// A QuickTime chapter track: a discarded data or subtitle stream.
    var isChapterTrack: Bool { discarded && (kind == .data || kind == .subtitle) }
    /// A QuickTime timecode track: a data stream of sample entry `tmcd`.
    let isTimecodeTrack: Bool
    /// The container's four-character code for the stream (`codec_tag`), nil when it has none.
    let codecTag: String?
    /// The `language` tag, nil for none or `und`.
    var language: String? { tags["language"].flatMap { $0 == "und" ? nil : $0 } }
    /// The `timecode` tag, in any case.
    var timecode: String? { tags.first { $0.key.lowercased() == "timecode" }?.value }
    /// Seconds from the header's duration; nil when it has none.
    let headerDuration: Double?
    /// The stream's own duration: its header's, else Matroska's `DURATION` tag (`HH:MM:SS.fraction`, written per
    /// track by FFmpeg and mkvmerge).
    var duration: Double? { headerDuration ?? tags.first { $0.key.uppercased() == "DURATION" }.flatMap { Self.parseClock($0.value) } }
    /// Frames (packets) the container declares (`nb_frames`), if it does.
    let frameCount: Int?, bitRate: Int64?
    /// Average frames per second (`avg_frame_rate`) and the rate every timestamp is on (`r_frame_rate`), when valid.
    let frameRate: Double?, baseFrameRate: Double?
    let width: Int, height: Int, pixelFormat: String?
    /// The codec parameters' sample aspect ratio (the decoder's, or the H.264 header read's), else the stream's (the
    /// container's: Matroska's display size, MP4's `pasp`); nil when neither is valid.
    let sampleAspect: Rational?
    /// The display matrix's rotation, counter-clockwise degrees rounded (0 without a matrix), and the matrix.
    let rotation: Int, displayMatrix: [Int32]?
    /// Frames a decoder holds back to reorder B-frames (`video_delay`).
    let reorderDepth: Int
    /// Colour, bit depth, field order and HDR side data (video only).
    let color: VideoColor?
    let channels: Int, sampleRate: Int
    /// Seconds of audio a decoder drops from the first it decodes (`initial_padding`: Opus counts it at 48 kHz).
    let preSkip: Double
    /// Cover art's picture read for its metadata (`PictureMetadata.scan`); nil for other streams and an empty picture.
    let picture: PictureMetadata.Scan?

    /// Reads `stream`.
    init(_ stream: UnsafeMutablePointer<AVStream>) {
        let st = stream.pointee, par = st.codecpar.pointee
        let video = par.codec_type == AVMEDIA_TYPE_VIDEO, audio = par.codec_type == AVMEDIA_TYPE_AUDIO
        index = Int(st.index); kind = Self.kind(par.codec_type); codecID = par.codec_id; codec = codecName(par)
        isAttachedPicture = (st.disposition & cff_disposition_attached_pic()) != 0
        discarded = st.discard == AVDISCARD_ALL
        isTimecodeTrack = par.codec_type == AVMEDIA_TYPE_DATA && par.codec_tag == cff_mktag(0x74, 0x6D, 0x63, 0x64)  // 'tmcd'
        codecTag = par.codec_tag == 0 ? nil : fourCC(par.codec_tag)
        tags = Demuxer.dictionary(st.metadata)
        headerDuration = st.duration > 0 && st.duration != AVCode.noPTS ? Double(st.duration) * av_q2d(st.time_base) : nil
        frameCount = st.nb_frames > 0 ? Int(st.nb_frames) : nil
        bitRate = par.bit_rate > 0 ? par.bit_rate : nil
        frameRate = Self.positive(st.avg_frame_rate); baseFrameRate = Self.positive(st.r_frame_rate)
        width = video ? Int(par.width) : 0; height = video ? Int(par.height) : 0
        pixelFormat = video && par.format >= 0 ? pixelFormatName(AVPixelFormat(rawValue: par.format)) : nil
        let sar = [par.sample_aspect_ratio, st.sample_aspect_ratio].first { $0.num > 0 && $0.den > 0 }
        sampleAspect = video ? sar.map { Rational(Int($0.num), Int($0.den)) } : nil
        displayMatrix = video ? sourceMatrix(stream) : nil
        rotation = displayMatrix.map(Self.degrees) ?? 0
        reorderDepth = video ? Int(max(0, par.video_delay)) : 0
        color = ColorProbe.color(stream)
        channels = audio ? Int(max(0, par.ch_layout.nb_channels)) : 0
        sampleRate = audio ? Int(par.sample_rate) : 0
        let rate = par.codec_id == AV_CODEC_ID_OPUS ? 48_000 : Int(par.sample_rate)
        preSkip = audio && par.initial_padding > 0 && rate > 0 ? Double(par.initial_padding) / Double(rate) : 0
        picture = isAttachedPicture ? Self.attachedPicture(stream).map(PictureMetadata.scan) : nil
    }

    /// The bytes of cover art's picture (`AVStream.attached_pic`), nil when it holds none.
    static func attachedPicture(_ stream: UnsafeMutablePointer<AVStream>) -> [UInt8]? {
        let picture = stream.pointee.attached_pic
        guard picture.size > 0, let data = picture.data else { return nil }
        return Array(UnsafeBufferPointer(start: data, count: Int(picture.size)))
    }

    /// The media type as a kind (`data` for anything FFmpeg cannot classify).
    static func kind(_ type: AVMediaType) -> SourceStream.Kind {
        switch type {
        case AVMEDIA_TYPE_VIDEO: return .video
        case AVMEDIA_TYPE_AUDIO: return .audio
        case AVMEDIA_TYPE_SUBTITLE: return .subtitle
        case AVMEDIA_TYPE_ATTACHMENT: return .attachment
        default: return .data
        }
    }

    /// A display matrix's rotation, counter-clockwise degrees rounded (0 for a degenerate matrix).
    static func degrees(_ matrix: [Int32]) -> Int {
        let degrees = matrix.withUnsafeBufferPointer { av_display_rotation_get($0.baseAddress) }
        return degrees.isFinite ? Int(degrees.rounded()) : 0
    }

    /// A rate's value when both its terms are positive.
    static func positive(_ r: AVRational) -> Double? { r.num > 0 && r.den > 0 ? av_q2d(r) : nil }

    /// The source's rotation for display, clockwise degrees snapped to a quarter turn (0, 90, 180, 270).
    var clockwise: Int { Rotation.quarterTurns(-rotation) }

    /// `01:02:03.5` → 3723.5 seconds; nil for anything else.
    static func parseClock(_ text: String) -> Double? {
        let parts = text.split(separator: ":")
        guard parts.count == 3, let h = Double(parts[0]), let m = Double(parts[1]), let sec = Double(parts[2]),
              h >= 0, m >= 0, sec >= 0, (h * 3600 + m * 60 + sec).isFinite else { return nil }
        let total = h * 3600 + m * 60 + sec
        return total > 0 ? total : nil
    }
}
