import Foundation

/// How much descriptive metadata an output keeps (`--metadata`, a preset's `metadata` key): the one table of what
/// each level drops is `sharingRules` and `noneKeepsStreamKeys` here (and docs/streams.md). Technical properties (codecs, the display
/// matrix, stream disposition, languages, chapters, the timecode) are never metadata here: every level keeps them.
public enum MetadataLevel: String, Codable, Sendable, CaseIterable {
    /// Every tag the source has (the default: no change for those who do not ask).
    case all
    /// No location in any form, no owner or author names, no serial numbers or unique identifiers of a device or
    /// capture (Apple's `AVMetadataItemFilter.forSharing()`); creation date, make/model/software, title and the
    /// technical tags stay.
    case sharing
    /// No descriptive tags at all, container or stream: only what changes how the file plays (languages, handler
    /// names, the timecode, attachment names and types) stays. (Named `bare` in Swift: `.none` would read as an
    /// Optional's nil.)
    case bare = "none"

    /// One rule of the table: a key whose lowercased form contains `pattern` is dropped by `sharing`, for `reason`.
    package struct Rule: Sendable {
        package var pattern: String
        package var reason: String
    }

    /// What `sharing` drops: the key, in any case, in the container and in every stream. `artist` is kept: on music it
    /// is the performer, a credit meant to be published, not the user (`author` is the person who made the file).
    package static let sharingRules: [Rule] = [
        Rule(pattern: "location", reason: "location"),        // location, location-eng, com.apple.quicktime.location.*, Matroska LOCATION
        Rule(pattern: "gps", reason: "location"),             // GPS*, gps_coordinates …
        Rule(pattern: "xyz", reason: "location"),             // ©xyz, xyz (QuickTime user data)
        Rule(pattern: "coordinates", reason: "location"),
        Rule(pattern: "author", reason: "owner name"),        // author, com.apple.quicktime.author
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
    /// muxer writes `handler_name` and `vendor_id` of its own anyway).
    package static let noneKeepsStreamKeys: Set<String> = ["language", "handler_name", "vendor_id", "timecode", "filename", "mimetype"]

    /// The reason `key` is dropped at this level, nil when it is kept. `stream`: a stream's tag, else the container's.
    package func dropReason(_ key: String, stream: Bool) -> String? {
        let k = key.lowercased()
        switch self {
        case .all: return nil
        case .sharing: return Self.sharingRules.first { k.contains($0.pattern) }?.reason
        case .bare:
            if stream { return Self.noneKeepsStreamKeys.contains(k) ? nil : "descriptive" }
            return Self.muxerOwned.contains(k) || k == "timecode" ? nil : "descriptive"
        }
    }

    /// `tags` without what this level drops, and the dropped keys sorted.
    package func filter(_ tags: [String: String], stream: Bool) -> (kept: [String: String], dropped: [String]) {
        guard self != .all else { return (tags, []) }
        let dropped = tags.keys.filter { dropReason($0, stream: stream) != nil }.sorted()
        return (tags.filter { dropReason($0.key, stream: stream) == nil }, dropped)
    }
}
