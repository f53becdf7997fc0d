import Foundation

/// What `mediaexport package IN OUTDIR` is asked to make: a folder holding an HLS + DASH ladder of CMAF segments,
/// a poster, scrub previews and `package.json`, from one version of one asset.
public struct PackageRequest: Sendable, Equatable {
    /// The source file.
    public var input: String
    /// The package's folder: it must not exist, or be empty, or (with `overwrite`) hold a package this tool wrote.
    public var output: String
    /// The base preset: its codec (H.264 or HEVC), speed, pixel format, HDR handling and audio settings; the
    /// ladder sets each rung's size, rate, frame rate and keyframes.
    public var preset: Preset
    /// The rungs' rule.
    public var ladder: LadderKind = .perTitle
    /// A measured quality each per-title rung reaches (its CRF searched, as `--quality`); nil: the ladder's CRF.
    public var quality: QualityTarget?
    /// The audio in a rendition of its own (`audio/`: CMAF's one track per segment, which FFmpeg 5.1's DASH demuxer
    /// needs) that every video-only rung is played with; false: each rung's segments carry the audio (muxed).
    public var separateAudio = false
    /// A loudness target the audio is normalised to in every rung (`--loudness -16`); nil or `.measure`: measured
    /// and recorded only (every package records the source's and its audio's EBU R128 loudness).
    public var loudness: LoudnessTarget?
    /// The target segment length in seconds (keyframes every this long in every rung); 2–10.
    public var segmentSeconds: Double = 4
    /// The version of the asset packaged, and the edits applied to the current one (as for an export).
    public var version: AssetVersion = .current
    /// A JSON edit sidecar.
    public var editsPath: String?
    /// Replace a package this tool wrote at `output`.
    public var overwrite = false
    /// Same bytes on any x86-64 CPU and core count (as `export --deterministic`).
    public var deterministic = false
    /// Threads per decoder and encoder (nil: FFmpeg's choice, or the deterministic count).
    public var threads: Int?
    /// Where quality searches are cached (see `ExportRequest.searchCache`).
    public var searchCache: String?

    /// The version of the tool that makes the package, for `package.json`'s `generator`.
    public var toolVersion: String?

    /// Creates a request.
    public init(input: String, output: String, preset: Preset) {
        self.input = input; self.output = output; self.preset = preset
    }

    /// The segment lengths a request may ask for.
    public static let segmentRange = 2.0...10.0
}
