import Foundation


/// What `mediaexport probe` reports about a file.
public struct MediaInfo: Codable, Sendable, Equatable {
    /// The path probed.
    public var path: String
    /// libavformat's container name(s), e.g. `mov,mp4,m4a,3gp,3g2,mj2`.
    public var container: String
    /// Seconds, if known.
    public var duration: Double?
    /// File size in bytes.
    public var size: Int64
    /// Overall bit rate in bits per second, if known.
    public var bitRate: Int64?
    /// `creation_time` (ISO 8601), from the container or Apple's creation date.
    public var creationTime: String?
    /// ISO 6709 location string (e.g. `+48.8584+002.2945/`), if any.
    public var location: String?
    /// Per-stream details.
    public var streams: [StreamInfo]
    /// All container tags.
    public var tags: [String: String]

    /// Creates the value from each of its fields.
    public init(path: String, container: String, duration: Double? = nil, size: Int64, bitRate: Int64? = nil, creationTime: String? = nil, location: String? = nil, streams: [StreamInfo], tags: [String: String]) {
        self.path = path; self.container = container; self.duration = duration; self.size = size; self.bitRate = bitRate; self.creationTime = creationTime; self.location = location; self.streams = streams; self.tags = tags
    }
}

/// One stream of a probed file.
public struct StreamInfo: Codable, Sendable, Equatable {
    public var index: Int
    /// `video`, `audio`, `subtitle`, `data` or `attachment`.
    public var type: String
    public var codec: String
    public var profile: String?
    public var width: Int?
    public var height: Int?
    /// Width and height as displayed (rotation and sample aspect ratio applied).
    public var displayWidth: Int?
    public var displayHeight: Int?
    public var pixelFormat: String?
    /// Average frames per second.
    public var frameRate: Double?
    /// Display-matrix rotation in degrees, as FFmpeg reports it (counter-clockwise positive), 0 when none.
    public var rotation: Int?
    public var channels: Int?
    public var channelLayout: String?
    public var sampleRate: Int?
    public var language: String?
    public var bitRate: Int64?
    public var duration: Double?
    /// Cover art rather than a video.
    public var isAttachedPicture: Bool
    /// Colour: primaries, transfer, matrix, range, bit depth, field order, HDR metadata (video only).
    public var color: VideoColor?
    /// `sdr`, `hlg`, `pq` or `dolby-vision` (video only).
    public var hdr: HDRKind?
    /// A QuickTime chapter track (the file's chapters as text; FFmpeg reads it into the chapters).
    public var isChapterTrack: Bool?

    /// Creates the value from each of its fields.
    public init(index: Int, type: String, codec: String, profile: String? = nil, width: Int? = nil, height: Int? = nil, displayWidth: Int? = nil, displayHeight: Int? = nil, pixelFormat: String? = nil, frameRate: Double? = nil, rotation: Int? = nil, channels: Int? = nil, channelLayout: String? = nil, sampleRate: Int? = nil, language: String? = nil, bitRate: Int64? = nil, duration: Double? = nil, isAttachedPicture: Bool) {
        self.index = index; self.type = type; self.codec = codec; self.profile = profile; self.width = width; self.height = height; self.displayWidth = displayWidth; self.displayHeight = displayHeight; self.pixelFormat = pixelFormat; self.frameRate = frameRate; self.rotation = rotation; self.channels = channels; self.channelLayout = channelLayout; self.sampleRate = sampleRate; self.language = language; self.bitRate = bitRate; self.duration = duration; self.isAttachedPicture = isAttachedPicture
    }
}
