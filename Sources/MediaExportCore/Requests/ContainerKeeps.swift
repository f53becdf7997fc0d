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

    /// How a container carries a timecode.
    public enum TimecodeCarrier: String, Codable, Sendable {
        /// A QuickTime timecode track (`tmcd`) that the video refers to.
        case track
        /// A tag on the video stream.
        case tag
        /// Not at all (`.m4a`: no video).
        case none
    }
}

extension Container {
    /// What this container keeps (see `ContainerKeeps`).
    public var keeps: ContainerKeeps {
        if isMatroskaFamily {
            return ContainerKeeps(displayMatrix: false, editList: false, tagCaseKept: false,
                                  muxerStreamTags: ["duration", "encoder"], timecode: .tag)
        }
        return ContainerKeeps(displayMatrix: true, editList: true, tagCaseKept: true,
                              muxerStreamTags: ["encoder", "handler_name", "vendor_id"], timecode: self == .m4a ? .none : .track)
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
