import Foundation

/// What one look at a finished output says (the FFmpeg layer reads it from the file before it takes its name):
/// the facts the verifier compares with the plan. Tests build it by hand.
public struct OutputFacts: Sendable, Equatable {
    /// libavformat's name for the format read back, e.g. `mov,mp4,m4a,3gp,3g2,mj2`.
    public var formatName: String
    /// The output's streams, in order.
    public var streams: [Stream]
    /// Container tags as read back.
    public var tags: [String: String]
    /// MP4/MOV/M4A: true when the `moov` atom comes before `mdat` (nil for other containers).
    public var faststart: Bool?
    /// The file's size in bytes.
    public var size: Int64

    /// Creates the facts.
    public init(formatName: String, streams: [Stream], tags: [String: String] = [:], faststart: Bool? = nil, size: Int64 = 0) {
        self.formatName = formatName; self.streams = streams; self.tags = tags; self.faststart = faststart; self.size = size
    }

    /// One stream of the output.
    public struct Stream: Sendable, Equatable {
        public var kind: SourceStream.Kind
        public var codec: String
        public var width: Int = 0
        public var height: Int = 0
        public var pixelFormat: String?
        /// Colour tags (primaries, transfer, matrix, range, bit depth), video only.
        public var color: VideoColor?
        public var channels: Int = 0
        public var sampleRate: Int = 0
        public var language: String?
        /// The stream's own duration in seconds (header, or Matroska's `DURATION` tag, or its packets).
        public var duration: Double?
        /// Frames (packets) in the stream, from the container's index or a packet scan.
        public var frameCount: Int?
        /// Decode timestamps strictly increase (nil: not measured).
        public var timestampsIncreasing: Bool?
        /// The display matrix, if the stream has one.
        public var displayMatrix: [Int32]?
        /// Seconds per frame (video) from the stream's frame rate, if known.
        public var frameDuration: Double?
        /// Cover art: a picture with the `attached_pic` disposition (MP4's `covr`, a Matroska picture attachment).
        public var isAttachedPicture = false

        /// Creates a stream's facts.
        public init(kind: SourceStream.Kind, codec: String) { self.kind = kind; self.codec = codec }
    }
}

/// What the executor wrote into one output stream, counted as it went (in output order).
public struct DeliveredStream: Sendable, Equatable {
    /// Packets written.
    public var packets: Int
    /// Seconds from the first packet's start to the furthest packet end written; nil when nothing was written.
    public var duration: Double?
    /// Seconds of frames missing inside that span, where the timestamps jump ahead (`LostFrames`): a container that
    /// states a track's length by decode times (MP4's sample table) leaves out those among the last, reordered frames.
    public var missing: Double = 0

    /// Creates a tally.
    public init(packets: Int, duration: Double?, missing: Double = 0) { self.packets = packets; self.duration = duration; self.missing = missing }
}
