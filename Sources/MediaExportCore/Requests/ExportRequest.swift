import Foundation

/// A part of the source's timeline, in seconds from its start (like `AVAssetExportSession.timeRange`).
public struct TimeRange: Codable, Sendable, Equatable {
    /// First second to export; `nil` or 0 is the start.
    public var start: Double?
    /// Second to stop at (exclusive); `nil` is the end.
    public var end: Double?
    /// Creates a range.
    public init(start: Double? = nil, end: Double? = nil) { self.start = start; self.end = end }
}

/// How an export's size is estimated before it starts (the `started` record's `estimatedBytes`).
public enum SizeEstimation: String, Codable, Sendable, CaseIterable {
    /// From the plan alone, with no work the export would not do: bit rates for capped, average-rate and copied
    /// streams, the source's size for a byte copy, a bits-per-pixel guess from the CRF otherwise. The default, so an
    /// export costs no more than the encode (sample encodes cost a third to a whole of a 4-10 s clip's CPU). A size limit
    /// measures anyway: it needs the CRF encode's rate to choose between one pass and two.
    case plain
    /// A CRF video's rate measured by encoding three short samples of the source first (`SampleEncode`), as
    /// `batch --dry-run` and `regress` do: median 4 % off on bench/estimate-accuracy.sh's corpus, for
    /// a third to twice the CPU on a 4-10 s clip, a few percent on clips of minutes.
    case samples
}

/// Whether a transcode decodes its video on a thread of its own, overlapping decoding with scaling and encoding
/// (FFmpeg 7's scheduler does; FFmpeg 5.1's CLI runs them one after the other on one thread). The frames and the
/// output are the same either way; what changes is the wall time and up to two decoded frames of memory.
public enum PipelineMode: String, Codable, Sendable, CaseIterable {
    /// On from `PipelineMode.minimumCores` cores up. Below, the codecs' own threads already keep every core busy,
    /// and the thread only adds its frames to the peak memory.
    case auto
    /// Always.
    case on
    /// Never: everything on the executor's thread, as FFmpeg 5.1's CLI does.
    case off

    /// The cores from which `auto` pipelines.
    package static let minimumCores = 4

    /// Whether to pipeline on a machine with `cores` usable cores.
    package func isOn(cores: Int) -> Bool {
        switch self {
        case .auto: return cores >= Self.minimumCores
        case .on: return true
        case .off: return false
        }
    }
}

/// One export job as a plain value: what to read, what to write, how.
public struct ExportRequest: Codable, Sendable, Equatable {
    /// The input media file.
    public var input: String
    /// The output file; its extension chooses the container (`.mp4`, `.mov`, `.m4v`, `.m4a`, `.mkv`).
    public var output: String
    /// The preset to apply.
    public var preset: Preset
    /// Optional part of the timeline.
    public var timeRange: TimeRange?
    /// Replace an existing output.
    public var overwrite: Bool
    /// Without `overwrite`: the files the export may replace at its output path, proven the very file when
    /// replacing (a batch's own earlier output); any other file there fails it with `ExportError.outputNotOwned`.
    public var replaceable: [OwnedFile] = []
    /// The output must resolve inside this folder; `nil` uses the output's own folder.
    public var sandbox: String?
    /// Which version of the asset to export (default `current`: the user's edits applied).
    public var version: AssetVersion
    /// A JSON edit sidecar to apply, instead of one found beside the input.
    public var editsPath: String?
    /// Fail instead of delivering the original when the current version cannot be rendered (an `.AAE` only),
    /// and refuse fallbacks that would deliver the original instead of the edited version.
    public var requireCurrent: Bool
    /// Fallback steps allowed when the input cannot be transcoded.
    public var fallback: FallbackPolicy
    /// When decoding gives up.
    public var errors: ErrorPolicy
    /// `always` transcodes; `needed` remuxes or copies a source that already fits the preset (the route the chain
    /// starts from: `ExportPlanner.start`); later fallbacks follow `fallback`.
    public var policy: TranscodePolicy = .always
    /// Which audio streams to keep (every decodable one by default).
    public var tracks: TrackSelection = .all
    /// The most bytes the output may have (`--max-size`); replaces the preset's `maxFileSize`. nil: the preset's.
    public var maxFileSize: Int64?
    /// How the `started` record's `estimatedBytes` is made (`--estimate`): by default without extra work; `.samples`
    /// encodes a few samples first, as a size limit does anyway.
    public var estimate: SizeEstimation = .plain
    /// Whether the video is decoded on a thread of its own (`--pipeline`).
    public var pipeline: PipelineMode = .auto
    /// Threads each decoder and encoder of the export may use (`--threads`); nil: FFmpeg's automatic count (about
    /// one a core, x264 1.5 a core). A batch running several exports at once gives each its share of the cores.
    public var threads: Int?
    /// Byte-identical outputs on any x86-64 CPU and core count (`--deterministic`): the libraries' CPU-dependent code
    /// paths are pinned for the rest of the process, and the codecs run on `threads`, else `deterministicThreads`,
    /// whatever the cores (docs/reproducible-outputs.md).
    public var deterministic = false
    /// Where a byte copy goes when the resource's container is not the output's (a batch's `--fallback-container`);
    /// not part of the request's JSON. Default: beside the output, under the requested name.
    public var copyPlacement: CopyPlacement = .beside
    /// A size a dry run's sample encodes already measured for this export (a batch's `EstimateStore`): the `started`
    /// record gives it (`estimateMethod: "samples"`) where it would otherwise guess; not part of the request's JSON.
    public var measuredEstimate: Int64?
    /// Where a quality target's CRF searches are kept (a SQLite file; the CLI's: `$XDG_CACHE_HOME/mediaexport/quality.sqlite`),
    /// so that the same file with the same settings is not searched again; nil: none kept. Not part of the request's JSON.
    public var searchCache: String?
    /// `--loudness measure`: the source's and the output's main audio are measured (EBU R128) and recorded in
    /// `completed.loudness`, nothing changed. A target (the preset's `audio.loudness`) measures as well. Not part of
    /// the request's JSON.
    public var measureLoudness = false
    /// The source's main audio already measured by the caller (`Loudness.measure`): a package of several renditions
    /// measures its source once. It must be of the audio this export reads (the same range, and channels as the
    /// output's); one that is not is measured again. nil: the export measures. Not part of the request's JSON.
    public var loudnessMeasured: LoudnessMeasurement?

    /// What the export does about loudness: normalise to the preset's `audio.loudness`, else measure when
    /// `measureLoudness`, else nothing (nil).
    public var loudnessTarget: LoudnessTarget? {
        if let lufs = preset.audio?.loudness, !preset.passthrough { return LoudnessTarget(integrated: lufs) }
        return measureLoudness ? .measure : nil
    }
    /// The encoders' thread count under `deterministic` when `threads` is not given: a fixed number, since x264's and
    /// x265's bitstreams depend on it.
    public static let deterministicThreads = 4

    /// The threads each decoder and encoder runs on: `threads`, else a fixed count when `deterministic`, else nil
    /// (FFmpeg's automatic count).
    public var codecThreads: Int? { threads ?? (deterministic ? Self.deterministicThreads : nil) }

    /// The size limit that applies: the request's, else the preset's.
    public var sizeLimit: Int64? { maxFileSize ?? preset.maxFileSize }

    /// Creates a request. `timeRange` is on the timeline of the version delivered (after a sidecar's trim).
    public init(input: String, output: String, preset: Preset, timeRange: TimeRange? = nil, overwrite: Bool = false, sandbox: String? = nil,
                version: AssetVersion = .current, editsPath: String? = nil, requireCurrent: Bool = false,
                fallback: FallbackPolicy = .auto, errors: ErrorPolicy = ErrorPolicy()) {
        self.input = input; self.output = output; self.preset = preset; self.timeRange = timeRange
        self.overwrite = overwrite; self.sandbox = sandbox
        self.version = version; self.editsPath = editsPath; self.requireCurrent = requireCurrent
        self.fallback = fallback; self.errors = errors
    }

    enum CodingKeys: String, CodingKey {
        case input, output, preset, timeRange, overwrite, replaceable, sandbox, version, editsPath, requireCurrent, fallback, errors, policy, tracks
        case maxFileSize, estimate, pipeline, threads, deterministic
    }

    /// Reads a request from JSON: only `input`, `output` and `preset` are required.
    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        input = try c.decode(String.self, forKey: .input)
        output = try c.decode(String.self, forKey: .output)
        preset = try c.decode(Preset.self, forKey: .preset)
        timeRange = try c.decodeIfPresent(TimeRange.self, forKey: .timeRange)
        overwrite = try c.decodeIfPresent(Bool.self, forKey: .overwrite) ?? false
        replaceable = try c.decodeIfPresent([OwnedFile].self, forKey: .replaceable) ?? []
        sandbox = try c.decodeIfPresent(String.self, forKey: .sandbox)
        version = try c.decodeIfPresent(AssetVersion.self, forKey: .version) ?? .current
        editsPath = try c.decodeIfPresent(String.self, forKey: .editsPath)
        requireCurrent = try c.decodeIfPresent(Bool.self, forKey: .requireCurrent) ?? false
        policy = try c.decodeIfPresent(TranscodePolicy.self, forKey: .policy) ?? .always
        fallback = try c.decodeIfPresent(FallbackPolicy.self, forKey: .fallback) ?? .auto
        errors = try c.decodeIfPresent(ErrorPolicy.self, forKey: .errors) ?? ErrorPolicy()
        tracks = try c.decodeIfPresent(TrackSelection.self, forKey: .tracks) ?? .all
        maxFileSize = try c.decodeIfPresent(ByteSize.self, forKey: .maxFileSize)?.bytes
        estimate = try c.decodeIfPresent(SizeEstimation.self, forKey: .estimate) ?? .plain
        pipeline = try c.decodeIfPresent(PipelineMode.self, forKey: .pipeline) ?? .auto
        threads = try c.decodeIfPresent(Int.self, forKey: .threads)
        deterministic = try c.decodeIfPresent(Bool.self, forKey: .deterministic) ?? false
    }
}

/// Whether an export transcodes every source, or only one that does not already fit its preset.
public enum TranscodePolicy: String, Codable, Sendable, CaseIterable {
    /// Transcode everything (a passthrough preset copies its streams).
    case always
    /// Remux or copy a source that already fits the preset (`ExportPlanner.start`).
    case needed
}
