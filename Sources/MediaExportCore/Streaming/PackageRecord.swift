import Foundation

/// `package.json`: what a streaming package holds — the record a service stores. The same source and settings
/// give the same bytes (no clock, no path of the machine: the source by its name, size and SHA-256).
public struct PackageRecord: Codable, Sendable, Equatable {
    /// The record's format version.
    public var format = 1
    /// The source.
    public var source: PackageSource
    /// The asset version packaged and the edits applied.
    public var version: VersionReport?
    /// The ladder as planned: its rule, segment length, frame-rate ceiling and the rungs left out.
    public var ladder: LadderPlan
    /// The renditions, largest first, as measured from their segments.
    public var rungs: [PackagedRung]
    /// The poster picture.
    public var poster: PackagePoster?
    /// The scrub previews: sprite sheets, `thumbnails.vtt`, `thumbnails.json`.
    public var sprites: TrickplayResult?
    /// The EBU R128 loudness of the source's audio and of the package's (normalised when asked); nil without audio.
    public var loudness: LoudnessReport?
    /// The manifests: `hls` (the master playlist) and `dash` (the MPD).
    public var manifests: [String: String]
    /// What the package's own validator checked, and found (nothing, or the package is not written).
    public var validation: PackageValidation
    /// Every other file of the package with its size and SHA-256, sorted by name.
    public var files: [PackagedFile]
    /// What the reader should know (a rung's audio left out, a version's edits, …).
    public var notes: [String]
    /// The software that made it: mediaexport's version and the FFmpeg libraries'.
    public var generator: [String: String]

    /// Creates a record.
    public init(source: PackageSource, version: VersionReport?, ladder: LadderPlan, rungs: [PackagedRung], poster: PackagePoster?,
                sprites: TrickplayResult?, loudness: LoudnessReport?, manifests: [String: String], validation: PackageValidation, files: [PackagedFile], notes: [String], generator: [String: String]) {
        self.source = source; self.version = version; self.ladder = ladder; self.rungs = rungs; self.poster = poster; self.sprites = sprites
        self.loudness = loudness
        self.manifests = manifests; self.validation = validation; self.files = files; self.notes = notes; self.generator = generator
    }
}

/// The packaged source.
public struct PackageSource: Codable, Sendable, Equatable {
    /// Its file name (without the folder: the record is the same wherever the source was).
    public var name: String
    /// Its size in bytes.
    public var bytes: Int64
    /// Its SHA-256.
    public var sha256: String
    /// Seconds.
    public var duration: Double?
    /// The displayed picture (rotation applied).
    public var width: Int?
    /// See `width`.
    public var height: Int?
    /// Frames per second.
    public var frameRate: Double?
    /// Whether it has audio.
    public var audio: Bool

    /// Creates a source description.
    public init(name: String, bytes: Int64, sha256: String, duration: Double?, width: Int?, height: Int?, frameRate: Double?, audio: Bool) {
        self.name = name; self.bytes = bytes; self.sha256 = sha256; self.duration = duration
        self.width = width; self.height = height; self.frameRate = frameRate; self.audio = audio
    }
}

/// One rendition as written and measured.
public struct PackagedRung: Codable, Sendable, Equatable {
    /// Its name and folder (`720p`).
    public var name: String
    /// Coded width and height of its pictures.
    public var width: Int
    /// See `width`.
    public var height: Int
    /// Frames per second.
    public var frameRate: Double?
    /// The RFC 6381 codecs string (`avc1.64001F,mp4a.40.2`).
    public var codecs: String
    /// The declared peak bit rate (HLS `BANDWIDTH`, DASH `bandwidth`): the measured peak segment bit rate, rounded up.
    public var bandwidth: Int
    /// The measured peak segment bit rate.
    public var peakBitRate: Int
    /// The average bit rate over all segments (HLS `AVERAGE-BANDWIDTH`).
    public var averageBandwidth: Int
    /// Its media segments.
    public var segments: Int
    /// Bytes of its init and media segments.
    public var bytes: Int64
    /// How its bits were chosen.
    public var rate: RungRate
    /// The CRF its video was encoded with (searched for a quality target; nil for an average bit rate).
    public var crf: Int?
    /// The measured quality, when a target was asked for.
    public var quality: QualityReport?

    /// Creates a rung record.
    public init(name: String, width: Int, height: Int, frameRate: Double?, codecs: String, bandwidth: Int, peakBitRate: Int,
                averageBandwidth: Int, segments: Int, bytes: Int64, rate: RungRate, crf: Int?, quality: QualityReport?) {
        self.name = name; self.width = width; self.height = height; self.frameRate = frameRate; self.codecs = codecs
        self.bandwidth = bandwidth; self.peakBitRate = peakBitRate; self.averageBandwidth = averageBandwidth
        self.segments = segments; self.bytes = bytes; self.rate = rate; self.crf = crf; self.quality = quality
    }
}

/// The poster picture of a package.
public struct PackagePoster: Codable, Sendable, Equatable {
    /// Its file name (`poster.jpg`).
    public var file: String
    /// Its size in pixels.
    public var width: Int
    /// See `width`.
    public var height: Int
    /// Seconds into the version where it was taken.
    public var time: Double
    /// Why that frame (the thumbnail rules: not black, not a fade).
    public var reason: String

    /// Creates a poster description.
    public init(file: String, width: Int, height: Int, time: Double, reason: String) {
        self.file = file; self.width = width; self.height = height; self.time = time; self.reason = reason
    }
}

/// A file of a package.
public struct PackagedFile: Codable, Sendable, Equatable {
    /// Its path in the package (`720p/seg_00000.m4s`).
    public var name: String
    /// Its size.
    public var bytes: Int64
    /// Its SHA-256.
    public var sha256: String

    /// Creates a file entry.
    public init(name: String, bytes: Int64, sha256: String) { self.name = name; self.bytes = bytes; self.sha256 = sha256 }
}

/// What the package's validator checked.
public struct PackageValidation: Codable, Sendable, Equatable {
    /// How many checks ran.
    public var checks: Int
    /// What they found, in words (empty for a package that was written).
    public var findings: [String]

    /// Creates a validation summary.
    public init(checks: Int, findings: [String]) { self.checks = checks; self.findings = findings }
}
