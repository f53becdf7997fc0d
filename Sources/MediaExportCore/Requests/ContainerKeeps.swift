import Foundation

/// What a container keeps of what the planner gives its muxer, as FFmpeg 5.1's muxers write it and its demuxers read
/// it back: the one description the planner (what to promise), the verifier (what to expect), the batch and
/// `formats` (what to show) use. `ContainerKeepsTests` writes a real file per container and checks every row here
/// against what comes back, so the table cannot drift from the muxer.
public struct ContainerKeeps: Codable, Sendable, Equatable {
    /// A video stream's display matrix (rotation, mirroring) is stored: MP4/MOV's `tkhd` matrix. FFmpeg 5.1's
    /// Matroska muxer writes none, so a rotation must go into the pixels there.
    public var displayMatrix: Bool
    /// An edit list can hide a stream copy's lead-in (the frames from the keyframe before a cut to the cut), so players
    /// start at the time asked: MP4/MOV's `elst`. Matroska has none in FFmpeg 5.1: a copy starts at the keyframe.
    public var editList: Bool
    /// Tag names read back as written (`location`); false where the muxer writes them upper-cased (Matroska's
    /// `LOCATION`, all but `title` and `creation_time`): compare names without case.
    public var tagCaseKept: Bool
    /// Tags the muxer writes of its own on every stream (Matroska's `DURATION`, MP4's `handler_name`, `vendor_id`),
    /// lowercased and sorted: never the source's metadata, so no metadata level drops or looks for them.
    public var muxerStreamTags: [String]
    /// How a timecode is carried: a `tmcd` track (MP4/MOV) or a `TIMECODE` tag (Matroska).
    public var timecode: TimecodeCarrier
    /// How a stream's language is stored: which codes survive, under which spelling (`Container.language(_:)`).
    public var languages: LanguageStore

    /// How a container carries a timecode.
    public enum TimecodeCarrier: String, Codable, Sendable {
        /// A QuickTime timecode track (`tmcd`) that the video refers to.
        case track
        /// A tag on the video stream.
        case tag
        /// Not at all (`.m4a`: no video).
        case none
    }

    /// How a container stores a stream's language, as FFmpeg 5.1's muxer writes it and its demuxer reads it back.
    public enum LanguageStore: String, Codable, Sendable {
        /// Any code, as written (Matroska's `Language` element); `und` is not written.
        case asWritten
        /// Three lower-case letters packed into the `mdhd` box (MP4): any ISO 639-2 code, bibliographic or
        /// terminologic; anything else (`fr`, `FRE`) becomes `und`.
        case iso639
        /// A Macintosh language code in the `mdhd` box (MOV): only the languages of QuickTime's list, each under the
        /// one ISO 639-2 spelling of FFmpeg's table (`fra` but `ger`, `chi`, `dut`); any other code is lost.
        case macintosh
    }
}

extension Container {
    /// What this container keeps (see `ContainerKeeps`).
    public var keeps: ContainerKeeps {
        if isMatroskaFamily {
            return ContainerKeeps(displayMatrix: false, editList: false, tagCaseKept: false,
                                  muxerStreamTags: ["duration", "encoder"], timecode: .tag, languages: .asWritten)
        }
        return ContainerKeeps(displayMatrix: true, editList: true, tagCaseKept: true,
                              muxerStreamTags: ["encoder", "handler_name", "vendor_id"], timecode: self == .m4a ? .none : .track,
                              languages: self == .mov ? .macintosh : .iso639)
    }

    /// The language tag a stream whose source says `language` (nil: none or `und`) is given in this container, which
    /// is also what it reads back: nil when the container cannot store that language (it reads back as none). The
    /// executor writes this, not the source's spelling, so that MOV keeps French (`fre` is not in its list, `fra`
    /// is), and the verifier expects it.
    public func language(_ language: String?) -> String? {
        guard let language, language != "und", !language.isEmpty else { return nil }
        switch keeps.languages {
        case .asWritten:
            return language
        case .iso639:
            let isCode = language.utf8.count == 3 && language.utf8.allSatisfy { $0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z") }
            return isCode ? language : nil
        case .macintosh:
            return ContainerKeeps.macintoshSpelling[TrackSelection.canonical(language)]
        }
    }

    /// The value of `key` among `tags` as this container reads it back: by name, without case where the muxer changes
    /// it (`location` is Matroska's `LOCATION`).
    public func readBack(_ key: String, in tags: [String: String]) -> String? {
        if let value = tags[key] { return value }
        guard !keeps.tagCaseKept else { return nil }
        let k = key.lowercased()
        return tags.filter { $0.key.lowercased() == k }.min { $0.key < $1.key }?.value
    }
}


extension ContainerKeeps {
    /// The languages of QuickTime's Macintosh list among `TrackSelection.aliases`' (by their ISO 639-2/T code), each
    /// under the spelling FFmpeg 5.1's MOV muxer accepts for it (its table mixes B and T forms). Languages not here
    /// (Swedish, Croatian, Serbian and any code not listed here) are not written into a MOV: `ContainerKeepsTests` checks
    /// every entry, and that the other spelling and the missing ones are lost, against the muxer.
    package static let macintoshSpelling: [String: String] = [
        "eng": "eng", "deu": "ger", "fra": "fra", "spa": "spa", "ita": "ita", "por": "por", "nld": "dut", "rus": "rus",
        "jpn": "jpn", "zho": "chi", "kor": "kor", "ara": "ara", "nor": "nor", "dan": "dan", "fin": "fin", "pol": "pol",
        "ces": "ces", "ell": "gre", "tur": "tur", "hun": "hun", "heb": "heb", "hin": "hin", "tha": "tha", "ukr": "ukr",
        "ron": "ron", "fas": "per", "ind": "ind", "vie": "vie", "cat": "cat", "slk": "slk", "bul": "bul", "msa": "may",
        "isl": "ice", "lat": "lat",
    ]
}
