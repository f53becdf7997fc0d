import Foundation

extension Container {
    /// True when the container can hold a video stream we encode with `codec` (its profile's `containers`).
    public func holds(_ codec: VideoCodec) -> Bool { codec.profile.containers.contains(rawValue) }

    /// True when the container can hold an audio stream we encode with `codec` (its profile's `containers`).
    public func holds(_ codec: AudioCodec) -> Bool { codec.profile.containers.contains(rawValue) }

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
