/// One rung of a streaming package as measured from its files: an init segment and its media segments, in a folder
/// of its own. Everything a manifest declares of the rung (size, frame rate, codecs, bit rates, durations) comes from
/// here, so that the manifests say what the segments hold.
public struct Rendition: Equatable, Sendable {
    /// The rung's name in manifests (`Representation@id`), usually its folder's.
    public var id: String
    /// The folder, relative to the package's root, that holds the init and media segments (`720p`).
    public var folder: String
    /// The init segment's file name in the folder (`init.mp4`).
    public var initName: String
    /// The init segment's facts (tracks, codecs, timescales).
    public var initSegment: InitSegment
    /// The media segments in playback order.
    public var segments: [SegmentFacts]

    /// Facts read elsewhere (`RenditionReader` reads a folder).
    public init(id: String, folder: String, initName: String, initSegment: InitSegment, segments: [SegmentFacts]) {
        self.id = id
        self.folder = folder
        self.initName = initName
        self.initSegment = initSegment
        self.segments = segments
    }

    /// The first video track's picture size, nil for an audio-only rung.
    public var width: Int? { video?.width }
    /// The first video track's picture height, nil for an audio-only rung.
    public var height: Int? { video?.height }
    /// True when the rung has a video track.
    public var hasVideo: Bool { video != nil }

    private var video: InitSegment.Track? { initSegment.tracks.first { $0.kind == .video } }

    /// The codec strings of the video and audio tracks, video first (`avc1.64001F,mp4a.40.2`); unknown ones left out.
    public var codecs: [String] {
        let kinds: [InitSegment.Kind] = [.video, .audio]
        return kinds.flatMap { kind in initSegment.tracks.filter { $0.kind == kind }.compactMap(\.codec) }
    }

    /// The video track's sample entries whose codec string is unknown (an HLS variant needs every `CODECS` entry).
    public var unknownCodecs: [String] {
        initSegment.tracks.filter { $0.kind != .other && $0.codec == nil }.map(\.sampleEntry)
    }

    /// Each segment's duration in seconds: the timing track's (video, else audio) summed sample durations.
    public var durations: [Double] { segments.map { $0.timing?.duration ?? 0 } }

    /// Each segment's start in seconds (its timing track's `tfdt`).
    public var starts: [Double] { segments.map { $0.timing?.start ?? 0 } }

    /// The whole duration: the sum of the segments'.
    public var duration: Double { durations.reduce(0, +) }

    /// Frames per second: video samples over the video duration; nil without video.
    public var frameRate: Double? {
        guard hasVideo else { return nil }
        let video = segments.compactMap { $0.tracks.first { $0.kind == .video } }
        let seconds = video.reduce(0) { $0 + $1.duration }
        guard seconds > 0 else { return nil }
        return Double(video.reduce(0) { $0 + $1.sampleCount }) / seconds
    }

    /// The frame rate as a reduced fraction (`30000/1001`), from the video samples and their durations in the
    /// track's timescale; nil without video or when the numbers overflow.
    public var frameRateFraction: (numerator: UInt64, denominator: UInt64)? {
        let video = segments.compactMap { $0.tracks.first { $0.kind == .video } }
        guard let timescale = video.first?.timescale else { return nil }
        let units = video.reduce(UInt64(0)) { $0 &+ $1.durationUnits }
        let (numerator, overflow) = UInt64(video.reduce(0) { $0 + $1.sampleCount }).multipliedReportingOverflow(by: UInt64(timescale))
        guard units > 0, !overflow else { return nil }
        let common = ManifestText.gcd(numerator, units)
        return (numerator / common, units / common)
    }

    /// The peak segment bit rate in bit/s (Apple's HLS authoring rule): the largest of each media segment's bytes × 8
    /// over its duration; the init segment is not counted. Segments of no duration are left out.
    public var peakBitRate: Double {
        zip(segments, durations).filter { $0.1 > 0 }.map { Double($0.0.bytes) * 8 / $0.1 }.max() ?? 0
    }

    /// The average bit rate in bit/s: all media segments' bytes × 8 over the whole duration.
    public var averageBitRate: Double {
        let seconds = duration
        return seconds > 0 ? Double(segments.reduce(0) { $0 + $1.bytes }) * 8 / seconds : 0
    }

    /// The peak bit rate of the I-frame playlist: each entry's byte range × 8 over its duration.
    public var iFramePeakBitRate: Double {
        zip(segments, durations).compactMap { segment, seconds in
            guard let range = segment.firstVideoSample, seconds > 0 else { return nil }
            return Double(range.length) * 8 / seconds
        }.max() ?? 0
    }

    /// The longest segment, in seconds.
    public var longestSegment: Double { durations.max() ?? 0 }
}
