import Foundation

// What a container can hold of what WE encode. The answers are what FFmpeg 5.1's muxers say
// (`avformat_query_codec` for mp4/mov/matroska; the m4a rule of the old `Container.canHold`, which allows
// only aac and alac), written down as a table: the set of codecs we encode is closed, so there is nothing to ask
// FFmpeg at planning time. A switch rather than a dictionary, so that a new codec cannot compile without an answer.

extension Container {
    /// True when the container can hold a video stream we encode with `codec`.
    /// H.264 and HEVC go in every container but `.m4a` (audio only) and `.webm`; AV1 in MP4/M4V (`av01`), MKV and
    /// WebM (FFmpeg 5.1's MOV mode writes no `av1C`).
    public func holds(_ codec: VideoCodec) -> Bool {
        switch codec {
        case .h264, .hevc:
            return self != .m4a && self != .webm
        case .av1:
            return self != .m4a && self != .mov
        }
    }

    /// True when the container can hold an audio stream we encode with `codec`. AAC goes in all but WebM; Opus in
    /// MP4/M4V, MKV and WebM (FFmpeg's MOV mode and the M4A brand refuse it).
    public func holds(_ codec: AudioCodec) -> Bool {
        switch codec {
        case .aac:
            return self != .webm
        case .opus:
            return self != .m4a && self != .mov
        }
    }

    /// The audio codec an encode for this container uses when the preset asks for `codec`: the preset's where the
    /// container holds it, else Opus where it holds that (WebM: AAC is not allowed there). `.mp4`/`.mkv` keep AAC.
    public func encodedAudio(_ codec: AudioCodec) -> AudioCodec {
        holds(codec) || !holds(AudioCodec.opus) ? codec : .opus
    }

    /// The subtitle encoder text subtitles are converted with when the container cannot hold them as they are:
    /// `mov_text` (3GPP timed text) for MP4/MOV/M4V, `webvtt` for WebM (the only subtitles it holds); nil for
    /// `.m4a` (audio only) and `.mkv` (copies them).
    public var textSubtitleEncoder: String? {
        if self == .webm { return "webvtt" }
        return isQuickTimeFamily && self != .m4a ? "mov_text" : nil
    }

    /// The text subtitle codecs a conversion to `textSubtitleEncoder` reads.
    public static let convertibleTextSubtitles: Set<String> = ["subrip", "srt", "ass", "ssa", "webvtt", "mov_text", "text"]
}
