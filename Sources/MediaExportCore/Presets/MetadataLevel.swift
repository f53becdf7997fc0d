import Foundation

/// How much descriptive metadata an output keeps (`--metadata`, a preset's `metadata` key): the one table of what
/// each level drops is `sharingRules` and `noneKeepsStreamKeys` here, per `Channel`, with the streams dropped whole
/// for what they carry (`PrivateStream`) and the neutral values `none` writes (`MetadataPlan`); docs/streams.md lists
/// every channel. Technical properties (codecs, the display matrix, stream disposition, languages, chapter points,
/// the timecode) are never metadata here: every level keeps them.
public enum MetadataLevel: String, Codable, Sendable, CaseIterable {
    /// Every tag the source has (the default: no change for those who do not ask).
    case all
    /// No location in any form, no owner or author names, no serial numbers or unique identifiers of a device or
    /// capture (Apple's `AVMetadataItemFilter.forSharing()`); creation date, make/model/software, title and the
    /// technical tags stay.
    case sharing
    /// No descriptive tags at all, container, stream or chapter, and no subtitle text: only what changes how the file
    /// plays (languages, handler names, the timecode, chapter points, attachment types) stays; chapter titles and
    /// attachment file names are replaced by neutral ones. (Named `bare` in Swift: `.none` would read as an
    /// Optional's nil.)
    case bare = "none"

    /// Where a tag travels: the file's own tags, a stream's (an attachment's `filename` among them), a chapter's.
    package enum Channel: Sendable {
        /// The container's tags (the format's).
        case container
        /// A stream's tags (QuickTime's track user data, Matroska's track tags, an attachment's name and type).
        case stream
        /// A chapter's tags (its `title`; Matroska's chapter tags, any name).
        case chapter
    }

    /// One rule of the table: a key whose lowercased form contains `pattern` is dropped by `sharing`, for `reason`.
    package struct Rule: Sendable {
        package var pattern: String
        package var reason: String
    }

    /// What `sharing` drops: the key, in any case, in the container, every stream and every chapter. `artist` is an
    /// owner name here: FFmpeg reads QuickTime's author atom `©aut` as `artist`, as it reads `©ART` (a key cannot tell
    /// which atom it came from), and a camera's `Artist` is its owner.
    package static let sharingRules: [Rule] = [
        Rule(pattern: "location", reason: "location"),        // location, location-eng, com.apple.quicktime.location.*, Matroska LOCATION
        Rule(pattern: "gps", reason: "location"),             // GPS*, gps_coordinates …
        Rule(pattern: "xyz", reason: "location"),             // ©xyz, xyz (QuickTime user data)
        Rule(pattern: "coordinates", reason: "location"),
        Rule(pattern: "author", reason: "owner name"),        // author, com.apple.quicktime.author, Matroska AUTHOR
        Rule(pattern: "artist", reason: "owner name"),        // artist (QuickTime ©aut and ©ART), album_artist
        Rule(pattern: "owner", reason: "owner name"),
        Rule(pattern: "account", reason: "owner name"),       // iTunes account_id
        Rule(pattern: "serial", reason: "device identifier"),  // camera/body/lens serial numbers
        Rule(pattern: "identifier", reason: "unique identifier"), // com.apple.quicktime.camera.identifier, content.identifier (Live Photo pairing)
        Rule(pattern: "uuid", reason: "unique identifier"),
        Rule(pattern: "unique", reason: "unique identifier"),
    ]

    /// Container keys the muxer writes itself (`OutputTags` leaves them out; every level lets the muxer write them).
    package static let muxerOwned: Set<String> = ["major_brand", "minor_version", "compatible_brands", "encoder"]

    /// What `none` keeps of the stream tags (lowercased): what players and muxers need, not descriptions (the MP4/MOV
    /// muxer writes `handler_name` and `vendor_id` of its own anyway). An attachment's `filename` is not kept: it gets
    /// a neutral one (`MetadataPlan.neutral`), as Matroska needs a name.
    package static let noneKeepsStreamKeys: Set<String> = ["language", "handler_name", "vendor_id", "timecode", "mimetype"]

    /// The reason `key` is dropped at this level in `channel`, nil when it is kept. `none` keeps no chapter tag (a
    /// chapter's title is replaced by its number: `MetadataPlan.outputChapters`).
    package func dropReason(_ key: String, in channel: Channel) -> String? {
        let k = key.lowercased()
        switch (self, channel) {
        case (.all, _): return nil
        case (.sharing, _): return Self.sharingRules.first { k.contains($0.pattern) }?.reason
        case (.bare, .stream): return Self.noneKeepsStreamKeys.contains(k) ? nil : "descriptive"
        case (.bare, .container): return Self.muxerOwned.contains(k) || k == "timecode" ? nil : "descriptive"
        case (.bare, .chapter): return "descriptive"
        }
    }

    /// `tags` without what this level drops in `channel`, and the dropped keys sorted.
    package func filter(_ tags: [String: String], in channel: Channel) -> (kept: [String: String], dropped: [String]) {
        guard self != .all else { return (tags, []) }
        let dropped = tags.keys.filter { dropReason($0, in: channel) != nil }.sorted()
        return (tags.filter { dropReason($0.key, in: channel) == nil }, dropped)
    }
}
