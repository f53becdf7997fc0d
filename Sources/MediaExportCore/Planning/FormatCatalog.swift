import Foundation

/// Codec names by media type, each list sorted.
public struct CodecLists: Codable, Sendable, Equatable {
    /// Video codecs (FFmpeg's names: `h264`, `hevc` …).
    public var video: [String]
    /// Audio codecs.
    public var audio: [String]
    /// Subtitle codecs.
    public var subtitle: [String]

    /// Lists, each sorted.
    public init(video: [String] = [], audio: [String] = [], subtitle: [String] = []) {
        self.video = video.sorted(); self.audio = audio.sorted(); self.subtitle = subtitle.sorted()
    }

    /// How many codecs in all.
    public var count: Int { video.count + audio.count + subtitle.count }
}

/// A container mediaexport writes: what our encoders put in it, and what a stream copy may put in it.
public struct WrittenFormat: Codable, Sendable, Equatable {
    /// The container, named by its extension (`mp4`).
    public var container: Container
    /// The libavformat muxer that writes it.
    public var muxer: String
    /// The codecs an encode produces in it (`EncodedCodecs.swift`, the subtitle conversion rule).
    public var encode: CodecLists
    /// The codecs a stream copy keeps in it (FFmpeg's muxer answers, with our stricter rules: `Container.canHold`).
    public var copy: CodecLists
    /// What the container keeps of a stream's rotation, a cut's lead-in, tag names and timecode (`ContainerKeeps`).
    public var keeps: ContainerKeeps
}

/// What mediaexport reads: the demuxers an input may be opened with, and the decoders this FFmpeg has.
public struct ReadFormats: Codable, Sendable, Equatable {
    /// Demuxer names inputs open with (the input whitelist, those present in this FFmpeg), sorted.
    public var demuxers: [String]
    /// The codecs this FFmpeg decodes.
    public var decoders: CodecLists

    /// Demuxer names (sorted here, each once) and decoders.
    public init(demuxers: [String], decoders: CodecLists) {
        self.demuxers = demuxers.reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }.sorted()
        self.decoders = decoders
    }
}

/// The containers and codecs mediaexport writes and reads (`mediaexport formats`).
public struct FormatCatalog: Codable, Sendable, Equatable {
    /// One entry per container, in `Container.allCases` order.
    public var writes: [WrittenFormat]
    /// What inputs may be.
    public var reads: ReadFormats

    /// The catalog from the planner's own tables (the encode side) and FFmpeg's answers (`copy` for each container,
    /// the demuxers and decoders present).
    public init(copy: (Container) -> CodecLists, reads: ReadFormats) {
        writes = Container.allCases.map { c in
            let encode = CodecLists(video: VideoCodec.allCases.filter { c.holds($0) }.map(\.rawValue),
                                    audio: AudioCodec.allCases.filter { c.holds($0) }.map(\.rawValue),
                                    subtitle: c.textSubtitleEncoder.map { [$0] } ?? [])
            return WrittenFormat(container: c, muxer: c.muxerName, encode: encode, copy: copy(c), keeps: c.keeps)
        }
        self.reads = reads
    }
}
