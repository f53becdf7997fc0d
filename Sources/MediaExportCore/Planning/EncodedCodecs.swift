import Foundation

// What a container can hold of what WE encode. The answers are what FFmpeg 5.1's muxers say
// (`avformat_query_codec` for mp4/mov/matroska; the m4a rule of the old `Container.canHold`, which allows
// only aac and alac), written down as a table: the set of codecs we encode is closed, so there is nothing to ask
// FFmpeg at planning time. A switch rather than a dictionary, so that a new codec cannot compile without an answer.

extension Container {
    /// True when the container can hold a video stream we encode with `codec`.
    /// H.264 and HEVC go in every container but `.m4a` (audio only).
    public func holds(_ codec: VideoCodec) -> Bool {
        switch codec {
        case .h264, .hevc:
            return self != .m4a
        }
    }

    /// True when the container can hold an audio stream we encode with `codec`. AAC goes in all five.
    public func holds(_ codec: AudioCodec) -> Bool {
        switch codec {
        case .aac:
            return true
        }
    }

    /// The subtitle encoder text subtitles are converted with when the container cannot hold them as they are:
    /// `mov_text` (3GPP timed text) for MP4/MOV/M4V; nil for `.m4a` (audio only) and `.mkv` (copies them).
    public var textSubtitleEncoder: String? { isQuickTimeFamily && self != .m4a ? "mov_text" : nil }

    /// The text subtitle codecs a conversion to `textSubtitleEncoder` reads.
    public static let convertibleTextSubtitles: Set<String> = ["subrip", "srt", "ass", "ssa", "webvtt", "mov_text", "text"]
}
