import Foundation

/// Everything one probe of a source tells the planner. The FFmpeg layer builds it (one `avformat_open_input`,
/// plus one keyframe lookup for a stream copy that starts after 0); tests build it by hand.
package struct SourceInfo: Sendable, Equatable, Codable {
    /// The file probed (the resource read), named in `invalidTimeRange` errors.
    package var path: String
    /// libavformat's name for the input format, e.g. `mov,mp4,m4a,3gp,3g2,mj2`.
    package var formatName: String
    /// The container's duration in seconds; nil when unknown (FFmpeg: `duration <= 0` or `AV_NOPTS_VALUE`).
    package var duration: Double?
    /// The container's start time in seconds (0 when unknown): the origin of the source's clock.
    package var startTime: Double
    /// The file's size in bytes when it was probed: the batch estimate of a remux or a byte copy is the source size,
    /// and the planner reads no files.
    package var size: Int64
    /// Every stream, in index order (`streams[i].index == i`).
    package var streams: [SourceStream]
    /// The stream `av_find_best_stream` picks for video, if any.
    package var mainVideo: Int?
    /// The stream `av_find_best_stream` picks for audio, if any.
    package var mainAudio: Int?
    /// The presentation time of the main video's keyframe at or before a requested cut, looked up by the probe
    /// when a stream copy starts after 0 (nil: not looked up / no video). Ask `ExportPlanner.keyframeLookup(…)`
    /// which cut to look up.
    package var cutKeyframe: KeyframeLookup?
    /// The container's creation time (ISO 8601), from `creation_time` or Apple's creation date, if any.
    package var creationTime: String?
    /// Where the data of the streams really ends, seconds from the start, when a packet scan measured it
    /// (`ProbedSource.measureDataEnd()`; nil: not measured). A file cut short ends well before `duration`.
    package var dataEnd: Double?
    /// The largest stretch of the file between packets that no packet came from, found by the same scan (nil: none,
    /// or not measured): data that is there but could not be read, where a file cut short has none.
    package var unreadable: ByteCoverage.Hole?
    /// True when FFmpeg guessed the durations from the bit rate (raw AAC/MP3, some MPEG): they can be seconds off,
    /// so they are used for progress, never to call a file truncated or an output wrong.
    package var durationsEstimated: Bool = false
    /// The container's tags (`creation_time`, `location`, Apple's keys …): what the output carries over.
    package var tags: [String: String] = [:]
    /// The container's chapters, in its order (`Chapters.forOutput` places them on the output's timeline).
    package var chapters: [SourceChapter] = []

    /// Creates a source description.
    package init(path: String, formatName: String = "", duration: Double? = nil, startTime: Double = 0, size: Int64 = 0,
                streams: [SourceStream], mainVideo: Int? = nil, mainAudio: Int? = nil, cutKeyframe: KeyframeLookup? = nil) {
        self.path = path; self.formatName = formatName; self.duration = duration; self.startTime = startTime
        self.size = size; self.streams = streams; self.mainVideo = mainVideo; self.mainAudio = mainAudio
        self.cutKeyframe = cutKeyframe
    }

    /// Why the file holds less than it declares: its data ends well before the container's duration (the same test
    /// the transcode applies to what it wrote), cut short or with a stretch that could not be read. nil when it does
    /// not, or when `dataEnd` was not measured.
    package var truncation: String? {
        guard !durationsEstimated, let end = dataEnd, let expected = duration, Self.isTruncated(end: end, of: expected) else { return nil }
        return DataShortfall(end: end, expected: expected, hole: unreadable).description()
    }

    /// The truncation rule, for the whole file (`truncation`) and for each stream a route reads: data that ends more
    /// than half a second and more than a tenth before the declared length is a file cut short.
    package static func isTruncated(end: Double, of expected: Double) -> Bool { expected - end > max(0.5, expected * 0.1) }

    /// True when the header declares each video stream's frame count apart from its index, so that frames missing
    /// from the data are frames lost: AVI (`dwLength`; the demuxer numbers the frames it finds after damage without
    /// a gap, and a file cut short loses its index, from which FFmpeg would otherwise take the duration).
    package var declaresFrameCounts: Bool { formatName == "avi" }

    /// True when the container's per-stream durations are exact to a frame: MP4/MOV (track headers and edit
    /// lists), Matroska (the per-track `DURATION` tag), Ogg (granule positions), FLAC, WAV, AIFF, CAF. Other
    /// containers' durations can be off by a frame or more (ASF adds its preroll, MPEG-TS/PS estimate them from
    /// timestamps, AVI and FLV from headers), so outputs from them are checked against what was written, and
    /// against the declared duration only loosely (the truncation check).
    package var declaresExactDurations: Bool {
        guard !durationsEstimated else { return false }
        let name = formatName.split(separator: ",").first.map(String.init) ?? formatName
        return ["mov", "matroska", "ogg", "flac", "wav", "aiff", "caf", "w64"].contains(name)
    }

    /// The video a transcode delivers, which the batch estimates (`estimatedBytes`) and a crop is checked
    /// against: the main video (`mainVideo`, the planner's), unless it is cover art; else the first that is not.
    package var firstVideo: SourceStream? {
        if let i = mainVideo, i >= 0, i < streams.count, streams[i].kind == .video, !streams[i].isAttachedPicture { return streams[i] }
        return streams.first { $0.kind == .video && !$0.isAttachedPicture }
    }
}

/// A chapter as the source's container lists it.
package struct SourceChapter: Sendable, Equatable, Codable {
    /// Where the chapter starts, in seconds on the source's clock counted from its start (`SourceInfo.startTime` is 0
    /// here, as for a time range).
    package var start: Double
    /// Where it ends, on the same clock.
    package var end: Double
    /// The chapter's tags as the container gives them (`title`, sometimes a language): copied as they are.
    package var tags: [String: String]

    /// The chapter's name, if it has one.
    package var title: String? { tags["title"] }

    /// Creates a chapter; `title` joins `tags`.
    package init(start: Double, end: Double, title: String? = nil, tags: [String: String] = [:]) {
        self.start = start; self.end = end; self.tags = tags
        if let title { self.tags["title"] = title }
    }
}

/// The answer to one keyframe lookup: the main video's keyframe at or before `requested`, in seconds from the
/// source's start (the first video packet after seeking there, by presentation time: B-frames shift decode times).
package struct KeyframeLookup: Sendable, Equatable, Codable {
    /// The cut asked for, seconds from the source's start.
    package var requested: Double
    /// The keyframe's presentation time, seconds from the source's start.
    package var keyframe: Double

    /// Creates a lookup result.
    package init(requested: Double, keyframe: Double) { self.requested = requested; self.keyframe = keyframe }
}

/// A fraction, for a sample aspect ratio.
package struct Rational: Sendable, Equatable, Codable {
    /// Numerator.
    package var num: Int
    /// Denominator.
    package var den: Int

    /// Creates a fraction.
    package init(_ num: Int, _ den: Int) { self.num = num; self.den = den }

    /// True when both terms are positive (FFmpeg's 0/1 or 0/0 mean "unknown").
    package var isValid: Bool { num > 0 && den > 0 }
}

/// One stream of a probed source.
package struct SourceStream: Sendable, Equatable, Codable {
    /// The stream's media type, named as in the `started` event's `type`.
    package enum Kind: String, Sendable, Codable, CaseIterable {
        /// Pictures (cover art too: see `isAttachedPicture`).
        case video
        /// Sound.
        case audio
        /// Subtitles.
        case subtitle
        /// Timed metadata and anything FFmpeg cannot classify.
        case data
        /// Files carried by the container (Matroska fonts).
        case attachment
    }

    /// Index of the stream in the input.
    package var index: Int
    /// The media type.
    package var kind: Kind
    /// FFmpeg's codec name, or `unknown 'fourcc'` for a codec FFmpeg does not know.
    package var codec: String
    /// False when FFmpeg does not know the codec (`codec_id == AV_CODEC_ID_NONE`).
    package var codecKnown: Bool
    /// True when a decoder exists for the codec.
    package var decodable: Bool
    /// Cover art (`AV_DISPOSITION_ATTACHED_PIC`) rather than a video.
    package var isAttachedPicture: Bool
    /// Output containers whose muxer accepts a stream copy of this codec (the FFmpeg layer asks
    /// `avformat_query_codec`; `.m4a`: aac and alac only). Empty for an unknown codec.
    package var fitsIn: Set<Container>
    /// The stream's own duration in seconds, if known.
    package var duration: Double?
    /// Bit rate in bits per second; nil when unknown.
    package var bitRate: Int64?
    /// Language tag, nil for none or `und`.
    package var language: String?
    /// Coded picture width (video); 0 or less when unknown.
    package var width: Int
    /// Coded picture height (video); 0 or less when unknown.
    package var height: Int
    /// Sample aspect ratio: the codec parameters', else the stream's (what the transcode uses); nil or invalid is square.
    package var sampleAspect: Rational?
    /// The source's display rotation, CLOCKWISE degrees, snapped to 0, 90, 180 or 270 (FFmpeg reports the
    /// display matrix counter-clockwise: the FFmpeg layer passes `Rotation.quarterTurns(-round(av_display_rotation_get))`).
    package var rotation: Int
    /// Average frames per second; nil when unknown (often so for variable frame rate).
    package var frameRate: Double?
    /// The rate every timestamp is on (FFmpeg's `r_frame_rate`); equal to `frameRate` for a constant frame rate.
    package var baseFrameRate: Double?
    /// True when the whole stream's frame times, read from its index (MP4/MOV; AVI, whose index leaves its empty chunks out), do not keep a constant rate by
    /// `FrameHoles`' rule (a phone's variable rate): a range of it may look constant but for a step where the rate
    /// changes, which is no frame lost, and its frames cannot be predicted from its count. false: constant or unknown.
    package var variableRate = false
    /// Samples an MP4/MOV's edit list hides before the stream's first shown one (a stream-copy cut's lead-in from its
    /// keyframe), stored in the file: players skip them, but a copy into a container without edit lists shows them.
    package var hiddenLeadIn: LeadIn?
    /// Seconds of audio a decoder drops from the first it decodes (Opus's pre-skip, the codec's `initial_padding`):
    /// a stream copy that starts after the stream's start makes players drop them again, from the cut's own audio,
    /// unless an edit list gives them back (MP4/MOV).
    package var preSkip: Double = 0

    /// Hidden samples at a stream's start: how many, and the seconds they span.
    package struct LeadIn: Codable, Sendable, Equatable {
        package var samples: Int
        package var seconds: Double
        /// `samples` samples spanning `seconds`.
        package init(samples: Int, seconds: Double) { self.samples = samples; self.seconds = seconds }
    }
    /// Frames a decoder holds back to reorder B-frames (FFmpeg's `video_delay`, `has_b_frames`); 0 without B-frames.
    package var reorderDepth = 0
    /// Pixel format name, e.g. `yuv420p`.
    package var pixelFormat: String?
    /// Audio channel count; 0 when unknown.
    package var channels: Int
    /// Audio sample rate in Hz; 0 or less when unknown.
    package var sampleRate: Int
    /// Frames (video) or packets the container declares, if it does (MP4/MOV: the samples a player shows, those an
    /// edit list hides left out).
    package var frameCount: Int?
    /// True when `duration` is the stream's own (its header, or Matroska's `DURATION` tag), not the container's.
    package var durationIsOwn: Bool = true
    /// The display matrix (3×3, 16.16 / 2.30 fixed point, FFmpeg's order), if the stream has one.
    package var displayMatrix: [Int32]?
    /// Colour, bit depth, field order and HDR metadata (video only).
    package var color: VideoColor?
    /// A QuickTime chapter track (text the demuxer reads into the file's chapters and discards as a stream).
    package var isChapterTrack: Bool = false
    /// The stream's `timecode` tag (any case), if any: a QuickTime video's (from its timecode track), the timecode
    /// track's own, or a Matroska track's `TIMECODE`.
    package var timecode: String?
    /// A QuickTime timecode track (`tmcd`): a data stream holding the start timecode, planned apart (`TimecodePlan`).
    package var isTimecodeTrack: Bool = false
    /// The container's four-character code for the stream (`gpmd`, `camm`, `tx3g` …), nil when it has none.
    package var codecTag: String?
    /// The text of a subtitle stream's first cues, as the probe read their packets (`PrivateStream`); nil: not read
    /// (not a subtitle, or pictures), empty: no cue within the packets the probe reads.
    package var textSample: String?
    /// The stream's tags as read (`language`, `handler_name`, a per-stream `location` …): what `MetadataLevel` filters.
    package var tags: [String: String] = [:]
    /// Cover art's picture read (`PictureMetadata.scan`): its format and the metadata a strip removes, or why it cannot
    /// be read; nil for other streams, and for cover art that holds no picture.
    package var picture: PictureMetadata.Scan?

    /// Creates a stream description; everything but the identity has a neutral default.
    package init(index: Int, kind: Kind, codec: String, codecKnown: Bool = true, decodable: Bool = true,
                isAttachedPicture: Bool = false, fitsIn: Set<Container> = [], duration: Double? = nil, bitRate: Int64? = nil,
                language: String? = nil, width: Int = 0, height: Int = 0, sampleAspect: Rational? = nil, rotation: Int = 0,
                frameRate: Double? = nil, pixelFormat: String? = nil, channels: Int = 0, sampleRate: Int = 0) {
        self.index = index; self.kind = kind; self.codec = codec; self.codecKnown = codecKnown; self.decodable = decodable
        self.isAttachedPicture = isAttachedPicture; self.fitsIn = fitsIn; self.duration = duration; self.bitRate = bitRate
        self.language = language; self.width = width; self.height = height; self.sampleAspect = sampleAspect
        self.rotation = rotation; self.frameRate = frameRate; self.pixelFormat = pixelFormat
        self.channels = channels; self.sampleRate = sampleRate
    }

    /// The picture as displayed: sample aspect ratio applied to the width, then the sides swapped for a quarter
    /// turn — what `mediaexport probe` reports as `displayWidth`/`displayHeight` (and what the batch judges).
    package var displaySize: PixelSize {
        PixelSize.displayed(width: width, height: height, sampleAspect: sampleAspect, rotation: rotation)
    }
}

/// A picture size in pixels.
public struct PixelSize: Sendable, Equatable, Codable, CustomStringConvertible {
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int

    /// Creates a size.
    public init(width: Int, height: Int) { self.width = width; self.height = height }

    /// `"1920x1080"`.
    public var description: String { "\(width)x\(height)" }
}
