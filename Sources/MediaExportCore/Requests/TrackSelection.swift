import Foundation

/// Which audio streams an export keeps (ffmpeg's `-map 0:a:m:language:…`, HandBrake's `--audio-lang-list`).
/// The default keeps every decodable audio stream; an undecodable one is always dropped with its reason.
public struct TrackSelection: Codable, Sendable, Equatable {
    /// Keep only audio streams whose language is one of these (ISO 639-1 or 639-2, either form matches:
    /// `de`, `deu` and `ger` are the same). nil or empty: every language.
    public var audioLanguages: [String]?
    /// Keep only the first audio stream kept by the rest of the selection (`--audio first`).
    public var firstAudioOnly: Bool

    /// Keep subtitle streams (converted to `mov_text` for MP4/MOV/M4V, copied for MKV); false drops them all, each
    /// named with the reason (`--subtitles drop`).
    public var keepSubtitles: Bool = true

    /// Creates a selection; the default keeps every audio and subtitle stream.
    public init(audioLanguages: [String]? = nil, firstAudioOnly: Bool = false, keepSubtitles: Bool = true) {
        self.audioLanguages = audioLanguages; self.firstAudioOnly = firstAudioOnly; self.keepSubtitles = keepSubtitles
    }

    enum CodingKeys: String, CodingKey { case audioLanguages, firstAudioOnly, keepSubtitles }

    /// Reads a selection; a missing field takes its default.
    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        audioLanguages = try c.decodeIfPresent([String].self, forKey: .audioLanguages)
        firstAudioOnly = try c.decodeIfPresent(Bool.self, forKey: .firstAudioOnly) ?? false
        keepSubtitles = try c.decodeIfPresent(Bool.self, forKey: .keepSubtitles) ?? true
    }

    /// Every audio stream.
    public static let all = TrackSelection()

    /// True when the selection keeps every audio stream.
    public var keepsAll: Bool { (audioLanguages ?? []).isEmpty && !firstAudioOnly }

    /// True when `language` (a stream's tag; nil or `und` for none) is one of `audioLanguages`.
    package func wants(language: String?) -> Bool {
        guard let wanted = audioLanguages, !wanted.isEmpty else { return true }
        // A stream without a language is `und`, as the messages name it.
        let code = TrackSelection.canonical(language ?? "und")
        return wanted.contains { TrackSelection.canonical($0) == code }
    }

    /// One code per language: ISO 639-1 two-letter codes and the bibliographic 639-2/B codes map to 639-2/T.
    package static func canonical(_ code: String) -> String {
        let c = code.lowercased().trimmingCharacters(in: .whitespaces)
        return aliases[c] ?? c
    }

    /// The common languages' 639-1 and 639-2/B codes → 639-2/T (what MP4 and Matroska mostly carry).
    static let aliases: [String: String] = [
        "en": "eng", "de": "deu", "ger": "deu", "fr": "fra", "fre": "fra", "es": "spa", "it": "ita", "pt": "por",
        "nl": "nld", "dut": "nld", "ru": "rus", "ja": "jpn", "zh": "zho", "chi": "zho", "ko": "kor", "ar": "ara",
        "sv": "swe", "no": "nor", "da": "dan", "fi": "fin", "pl": "pol", "cs": "ces", "cze": "ces", "el": "ell",
        "gre": "ell", "tr": "tur", "hu": "hun", "he": "heb", "hi": "hin", "th": "tha", "uk": "ukr", "ro": "ron",
        "rum": "ron", "fa": "fas", "per": "fas", "id": "ind", "vi": "vie", "ca": "cat", "hr": "hrv", "sk": "slk",
        "slo": "slk", "bg": "bul", "sr": "srp", "ms": "msa", "may": "msa", "is": "isl", "ice": "isl",
    ]
}
