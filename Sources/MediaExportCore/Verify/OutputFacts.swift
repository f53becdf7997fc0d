import Foundation

/// What one look at a finished output says (the FFmpeg layer reads it from the file before it takes its name):
/// the facts the verifier compares with the plan. Tests build it by hand.
package struct OutputFacts: Sendable, Equatable {
    /// libavformat's name for the format read back, e.g. `mov,mp4,m4a,3gp,3g2,mj2`.
    package var formatName: String
    /// The output's streams, in order.
    package var streams: [Stream]
    /// Container tags as read back.
    package var tags: [String: String]
    /// MP4/MOV/M4A: true when the `moov` atom comes before `mdat` (nil for other containers).
    package var faststart: Bool?
    /// The file's size in bytes.
    package var size: Int64
    /// The container's duration in seconds, if its header says.
    package var duration: Double?
    /// MP4/MOV timecode tracks (`tmcd`): not in `streams`, each gives the video that refers to it its `timecode`.
    package var timecodeTracks: Int = 0
    /// Each chapter's tags as read back (its `title`; Matroska's chapter tags), in the file's order.
    package var chapters: [[String: String]] = []

    /// Creates the facts.
    package init(formatName: String, streams: [Stream], tags: [String: String] = [:], faststart: Bool? = nil, size: Int64 = 0,
                 duration: Double? = nil) {
        self.formatName = formatName; self.streams = streams; self.tags = tags; self.faststart = faststart; self.size = size
        self.duration = duration
    }

    /// The first video stream that is not cover art.
    package var mainVideo: Stream? { streams.first { $0.kind == .video && !$0.isAttachedPicture } }

    /// One stream of the output.
    package struct Stream: Sendable, Equatable {
        package var kind: SourceStream.Kind
        package var codec: String
        package var width: Int = 0
        package var height: Int = 0
        package var pixelFormat: String?
        /// Colour tags (primaries, transfer, matrix, range, bit depth), video only.
        package var color: VideoColor?
        package var channels: Int = 0
        package var sampleRate: Int = 0
        package var language: String?
        /// The stream's own duration in seconds (header, or Matroska's `DURATION` tag, or its packets).
        package var duration: Double?
        /// Frames (packets) in the stream, from the container's index or a packet scan: every one stored.
        package var frameCount: Int?
        /// Frames a player shows: `frameCount` less those an edit list hides (MP4/MOV samples marked discard, a
        /// stream copy's lead-in). nil: not measured (then `frameCount`).
        package var shownFrames: Int?
        /// Decode timestamps strictly increase (nil: not measured).
        package var timestampsIncreasing: Bool?
        /// The display matrix, if the stream has one.
        package var displayMatrix: [Int32]?
        /// Seconds per frame (video) from the stream's frame rate, if known.
        package var frameDuration: Double?
        /// Cover art: a picture with the `attached_pic` disposition (MP4's `covr`, a Matroska picture attachment).
        package var isAttachedPicture = false
        /// The stream's `timecode` tag (any case): MP4/MOV give a video the one of the timecode track it refers to.
        package var timecode: String?
        /// The stream's tags as read back (the metadata level's check).
        package var tags: [String: String] = [:]
        /// Cover art's picture as read back (`PictureMetadata.scan`, the metadata level's check); nil for other streams.
        package var picture: PictureMetadata.Scan?

        /// Creates a stream's facts.
        package init(kind: SourceStream.Kind, codec: String) { self.kind = kind; self.codec = codec }
    }
}

/// What the executor wrote into one output stream, counted as it went (in output order).
package struct DeliveredStream: Sendable, Equatable {
    /// Packets written.
    package var packets: Int
    /// Packets written that a player shows: those at or after time 0 in a container whose edit list hides what
    /// comes before (a stream copy's lead-in); all of them elsewhere. nil: as `packets`.
    package var shown: Int?
    /// Seconds from the first packet's start to the furthest packet end written; nil when nothing was written.
    package var duration: Double?
    /// Seconds of frames missing inside that span, where the timestamps jump ahead (`LostFrames`): a container that
    /// states a track's length by decode times (MP4's sample table) leaves out those among the last, reordered frames.
    package var missing: Double = 0

    /// Creates a tally.
    package init(packets: Int, duration: Double?, missing: Double = 0, shown: Int? = nil) {
        self.packets = packets; self.duration = duration; self.missing = missing; self.shown = shown
    }
}
