import Foundation

/// The container tags an output gets: the resource's own (creation time, location, title …) minus the ones the
/// muxer writes itself, Apple's location also as the standard `location` (MP4 keeps only that), and — when the
/// resource is a rendered edit that lost them — the capture metadata of the asset's original, as Photos does.
package enum OutputTags {
    /// Keys the muxer writes itself.
    static let muxerOwned = MetadataLevel.muxerOwned
    /// What identifies a capture: when, where, with what, and the Live Photo pairing.
    package static let captureKeys = ["creation_time", "com.apple.quicktime.creationdate", "location", "com.apple.quicktime.location.ISO6709",
                                     "com.apple.quicktime.make", "com.apple.quicktime.model", "com.apple.quicktime.software",
                                     "com.apple.quicktime.content.identifier", "make", "model"]

    /// The tags for an output of a resource with `tags`; `original`: the original's tags when the resource is its
    /// rendered edit; `level`: what `MetadataLevel` drops (before Apple's location is copied to `location`). Returns
    /// the tags, which were taken from the original (and kept), and the keys the level dropped, sorted.
    package static func forOutput(resource tags: [String: String], original: [String: String]?,
                                  level: MetadataLevel = .all) -> (tags: [String: String], fromOriginal: [String], dropped: [String]) {
        // The timecode is the main video's, planned apart (`TimecodePlan`): a container's would give every video a track.
        // Keys in any case: Matroska's tags read back in capitals (`MAJOR_BRAND`, `ENCODER`).
        var out = tags.filter { !muxerOwned.contains($0.key.lowercased()) && $0.key.lowercased() != "timecode" }
        var taken: [String] = []
        if let original {
            for key in captureKeys where out[key] == nil {
                if let value = original[key] { out[key] = value; taken.append(key) }
            }
        }
        let filtered = level.filter(out, in: .container)
        out = filtered.kept
        if out["location"] == nil, let iso = out["com.apple.quicktime.location.ISO6709"] { out["location"] = iso }
        return (out, taken.filter { out[$0] != nil }, filtered.dropped)
    }

    /// True when an output with these tags is written with QuickTime metadata keys (`mdta`, the MP4 muxer's
    /// `use_metadata_tags`): Apple's keys are only written so, as iPhones write them.
    package static func needsQuickTimeKeys(_ tags: [String: String]) -> Bool {
        tags.keys.contains { $0.hasPrefix("com.apple.quicktime.") }
    }
}
