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
    /// The container as ffprobe's `-show_format` names it (`format_name`, `duration`, ...).
    public var format: FormatInfo?
    /// The chapters as ffprobe's `-show_chapters` names them; empty when the file has none.
    public var chapters: [ChapterInfo]?

    enum CodingKeys: String, CodingKey {
        case path, container, duration, size, bitRate, creationTime, location, streams, tags, format, chapters
    }

    /// Creates the value from each of its fields.
    public init(path: String, container: String, duration: Double? = nil, size: Int64, bitRate: Int64? = nil, creationTime: String? = nil, location: String? = nil, streams: [StreamInfo], tags: [String: String], format: FormatInfo? = nil, chapters: [ChapterInfo]? = nil) {
        self.path = path; self.container = container; self.duration = duration; self.size = size; self.bitRate = bitRate; self.creationTime = creationTime; self.location = location; self.streams = streams; self.tags = tags; self.format = format; self.chapters = chapters
    }
}

/// One stream of a probed file.
public struct StreamInfo: Codable, Sendable, Equatable {
    /// The stream's index in the file.
    public var index: Int
    /// `video`, `audio`, `subtitle`, `data` or `attachment`.
    public var type: String
    /// FFmpeg's codec name (`h264`, `aac`, …).
    public var codec: String
    /// The codec profile (`High`, `Main 10`, `LC`), if known.
    public var profile: String?
    /// Width in pixels as coded (video).
    public var width: Int?
    /// Height in pixels as coded (video).
    public var height: Int?
    /// Width and height as displayed (rotation and sample aspect ratio applied).
    public var displayWidth: Int?
    /// See `displayWidth`.
    public var displayHeight: Int?
    /// FFmpeg's pixel format name (`yuv420p`, `yuv420p10le`, …).
    public var pixelFormat: String?
    /// Average frames per second.
    public var frameRate: Double?
    /// Display-matrix rotation in degrees, as FFmpeg reports it (counter-clockwise positive), 0 when none.
    public var rotation: Int?
    /// Audio channel count.
    public var channels: Int?
    /// Audio channel layout (`stereo`, `5.1`, …).
    public var channelLayout: String?
    /// Audio samples per second.
    public var sampleRate: Int?
    /// ISO 639 language tag, if any.
    public var language: String?
    /// Bits per second, if known.
    public var bitRate: Int64?
    /// Seconds, if known.
    public var duration: Double?
    /// Cover art rather than a video.
    public var isAttachedPicture: Bool
    /// Colour: primaries, transfer, matrix, range, bit depth, field order, HDR metadata (video only).
    public var color: VideoColor?
    /// `sdr`, `hlg`, `pq` or `dolby-vision` (video only).
    public var hdr: HDRKind?
    /// A QuickTime chapter track (the file's chapters as text; FFmpeg reads it into the chapters).
    public var isChapterTrack: Bool?
    /// A QuickTime timecode track (`tmcd`: a camera's or editor's start timecode; its value is the `timecode` tag).
    public var isTimecodeTrack: Bool?
    /// An attachment's file name (its `filename` tag: a font, a cover, a text file in a Matroska file).
    public var fileName: String?
    /// An attachment's MIME type (its `mimetype` tag).
    public var mimeType: String?

    // ffprobe's names (`-show_streams`), computed as fftools/ffprobe.c does. ffprobe prints rationals as strings
    // ("30000/1001", "16:9") and times, sizes, rates and frame counts as decimal strings ("10.010000", "48000");
    // so do these. `duration` stays the number of seconds it always was (ffprobe's is the same value as a string).
    // A value ffprobe leaves out of its JSON (unknown, N/A) is left out here too.
    /// ffprobe's `codec_name`.
    public var codecName: String?
    /// ffprobe's `codec_long_name`.
    public var codecLongName: String?
    /// ffprobe's `codec_type`.
    public var codecType: String?
    /// ffprobe's `codec_tag_string`.
    public var codecTagString: String?
    /// ffprobe's `level`.
    public var level: Int?
    /// ffprobe's `sample_aspect_ratio` (`1:1`).
    public var sampleAspectRatio: String?
    /// ffprobe's `display_aspect_ratio` (`16:9`).
    public var displayAspectRatio: String?
    /// ffprobe's `pix_fmt`.
    public var pixFmt: String?
    /// ffprobe's `color_range`.
    public var colorRange: String?
    /// ffprobe's `color_space`.
    public var colorSpace: String?
    /// ffprobe's `color_transfer`.
    public var colorTransfer: String?
    /// ffprobe's `color_primaries`.
    public var colorPrimaries: String?
    /// ffprobe's `field_order`.
    public var fieldOrder: String?
    /// ffprobe's `r_frame_rate` (`30000/1001`).
    public var rFrameRate: String?
    /// ffprobe's `avg_frame_rate`.
    public var avgFrameRate: String?
    /// ffprobe's `time_base` (`1/600`).
    public var timeBase: String?
    /// ffprobe's `start_time`, in seconds.
    public var startTime: String?
    /// ffprobe's `duration_ts`, in `time_base` units.
    public var durationTS: Int64?
    /// ffprobe's `nb_frames`.
    public var nbFrames: String?
    /// ffprobe's `bit_rate`.
    public var bitRateText: String?
    /// ffprobe's `sample_fmt`.
    public var sampleFmt: String?
    /// ffprobe's `sample_rate`.
    public var sampleRateText: String?
    /// ffprobe's `channel_layout`.
    public var channelLayoutName: String?
    /// ffprobe's dispositions: each name (`default`, `forced`, `attached_pic`, ...) with 0 or 1.
    public var disposition: [String: Int]?
    /// The stream's tags (`language`, `handler_name`, ...).
    public var streamTags: [String: String]?
    /// `displayWidth` × `displayHeight` as one value.
    public var displaySize: DisplaySize?

    enum CodingKeys: String, CodingKey {
        case index, type, codec, profile, width, height, displayWidth, displayHeight, pixelFormat, frameRate, rotation
        case channels, channelLayout, sampleRate, language, bitRate, duration, isAttachedPicture, color, hdr, isChapterTrack, isTimecodeTrack, fileName, mimeType
        case codecName = "codec_name", codecLongName = "codec_long_name", codecType = "codec_type"
        case codecTagString = "codec_tag_string", level
        case sampleAspectRatio = "sample_aspect_ratio", displayAspectRatio = "display_aspect_ratio", pixFmt = "pix_fmt"
        case colorRange = "color_range", colorSpace = "color_space", colorTransfer = "color_transfer"
        case colorPrimaries = "color_primaries", fieldOrder = "field_order"
        case rFrameRate = "r_frame_rate", avgFrameRate = "avg_frame_rate", timeBase = "time_base"
        case startTime = "start_time", durationTS = "duration_ts", nbFrames = "nb_frames", bitRateText = "bit_rate"
        case sampleFmt = "sample_fmt", sampleRateText = "sample_rate", channelLayoutName = "channel_layout"
        case disposition, streamTags = "tags", displaySize
    }

    /// Creates the value from each of its fields.
    public init(index: Int, type: String, codec: String, profile: String? = nil, width: Int? = nil, height: Int? = nil, displayWidth: Int? = nil, displayHeight: Int? = nil, pixelFormat: String? = nil, frameRate: Double? = nil, rotation: Int? = nil, channels: Int? = nil, channelLayout: String? = nil, sampleRate: Int? = nil, language: String? = nil, bitRate: Int64? = nil, duration: Double? = nil, isAttachedPicture: Bool) {
        self.index = index; self.type = type; self.codec = codec; self.profile = profile; self.width = width; self.height = height; self.displayWidth = displayWidth; self.displayHeight = displayHeight; self.pixelFormat = pixelFormat; self.frameRate = frameRate; self.rotation = rotation; self.channels = channels; self.channelLayout = channelLayout; self.sampleRate = sampleRate; self.language = language; self.bitRate = bitRate; self.duration = duration; self.isAttachedPicture = isAttachedPicture
    }
}


/// A width and a height as displayed (`PixelSize.displayed`).
public typealias DisplaySize = PixelSize

/// The container, in ffprobe's `-show_format` names and types (times, sizes and rates as decimal strings).
public struct FormatInfo: Codable, Sendable, Equatable {
    /// ffprobe's `filename`: the path probed.
    public var filename: String
    /// ffprobe's `nb_streams`.
    public var nbStreams: Int
    /// ffprobe's `nb_programs`.
    public var nbPrograms: Int
    /// ffprobe's `format_name` (`mov,mp4,m4a,3gp,3g2,mj2`).
    public var formatName: String
    /// ffprobe's `format_long_name`.
    public var formatLongName: String?
    /// Seconds, `%f` ("1.429978"), when known.
    public var startTime: String?
    /// Seconds, `%f`, when known.
    public var duration: String?
    /// Bytes.
    public var size: String?
    /// Bits per second, when known.
    public var bitRate: String?
    /// ffprobe's `probe_score` (100: certain of the format).
    public var probeScore: Int?
    /// The container's tags.
    public var tags: [String: String]?

    enum CodingKeys: String, CodingKey {
        case filename, nbStreams = "nb_streams", nbPrograms = "nb_programs", formatName = "format_name"
        case formatLongName = "format_long_name", startTime = "start_time", duration, size, bitRate = "bit_rate"
        case probeScore = "probe_score", tags
    }

    /// Creates the value from each of its fields.
    public init(filename: String, nbStreams: Int, nbPrograms: Int, formatName: String, formatLongName: String? = nil,
                startTime: String? = nil, duration: String? = nil, size: String? = nil, bitRate: String? = nil,
                probeScore: Int? = nil, tags: [String: String]? = nil) {
        self.filename = filename; self.nbStreams = nbStreams; self.nbPrograms = nbPrograms; self.formatName = formatName
        self.formatLongName = formatLongName; self.startTime = startTime; self.duration = duration; self.size = size
        self.bitRate = bitRate; self.probeScore = probeScore; self.tags = tags
    }
}

/// One chapter, in ffprobe's `-show_chapters` names: `start`/`end` in `time_base` units, `start_time`/`end_time`
/// in seconds (`%f` strings).
public struct ChapterInfo: Codable, Sendable, Equatable {
    /// ffprobe's `id`.
    public var id: Int64
    /// ffprobe's `time_base`.
    public var timeBase: String
    /// Start, in `time_base` units.
    public var start: Int64
    /// Start in seconds.
    public var startTime: String
    /// End, in `time_base` units.
    public var end: Int64
    /// End in seconds.
    public var endTime: String
    /// `title`, when the chapter has one, and any other chapter tags.
    public var tags: [String: String]?

    enum CodingKeys: String, CodingKey {
        case id, timeBase = "time_base", start, startTime = "start_time", end, endTime = "end_time", tags
    }

    /// Creates the value from each of its fields.
    public init(id: Int64, timeBase: String, start: Int64, startTime: String, end: Int64, endTime: String, tags: [String: String]? = nil) {
        self.id = id; self.timeBase = timeBase; self.start = start; self.startTime = startTime; self.end = end
        self.endTime = endTime; self.tags = tags
    }
}
