import Foundation

/// Containers mediaexport writes, chosen from the output's extension.
///
/// The pure half of the FFmpeg layer's `Container`: which codec a muxer accepts for a stream copy is FFmpeg's to say
/// (`avformat_query_codec`), so it reaches the planner as data (`SourceStream.fitsIn`); what our own encoders
/// produce is a fixed table (`holds(_:)`: each encoder's `EncoderProfile.containers`).
public enum Container: String, Codable, Sendable, CaseIterable {
    /// MPEG-4 (`.mp4`).
    case mp4
    /// QuickTime (`.mov`).
    case mov
    /// Apple's MPEG-4 video (`.m4v`).
    case m4v
    /// MPEG-4 audio (`.m4a`): AAC or ALAC only.
    case m4a
    /// Matroska (`.mkv`).
    case mkv
    /// WebM (`.webm`): Matroska restricted to AV1/VP9/VP8 video, Opus/Vorbis audio and WebVTT subtitles.
    case webm

    /// The container for a file name's extension, case-insensitively.
    public init?(extension ext: String) { self.init(rawValue: ext.lowercased()) }

    /// The libavformat muxer name. `.m4v` uses the MP4 muxer (so HEVC fits), `.m4a` the iPod one (M4A brand).
    public var muxerName: String {
        switch self {
        case .mp4, .m4v: return "mp4"
        case .mov: return "mov"
        case .m4a: return "ipod"
        case .mkv: return "matroska"
        case .webm: return "webm"
        }
    }

    /// ISO-BMFF/QuickTime containers get faststart (the moov atom first, like `shouldOptimizeForNetworkUse`).
    public var isQuickTimeFamily: Bool { !isMatroskaFamily }

    /// Matroska and its WebM subset (one muxer family: EBML, bit-exact UIDs, no `tmcd` track).
    public var isMatroskaFamily: Bool { self == .mkv || self == .webm }
}
