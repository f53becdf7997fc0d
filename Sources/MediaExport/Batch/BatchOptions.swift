import Foundation
import MediaExportCore
import MediaExportFFmpeg

/// Everything a batch run needs, as a plain value: the batch's own settings, and `request`, the export every job
/// runs. An export setting reads and writes through to `request` (`options.preset`, `options.tracks`,
/// `options.errors.damaged` …), so every option of `ExportRequest` is a batch option too.
@dynamicMemberLookup
public struct BatchOptions: Codable, Sendable {
    /// Which assets a batch takes, like a library fetch's predicate.
    public enum MediaFilter: String, Codable, Sendable, CaseIterable { case video, audio, all }
    /// Order of the work.
    public enum SortOrder: String, Codable, Sendable, CaseIterable { case name, created }
    /// Whether to transcode assets that already fit the preset (the export request's `policy`).
    public typealias Policy = TranscodePolicy

    /// A deterministic share of the assets: shard `index` of `count` (0-based, as Kubernetes'
    /// `JOB_COMPLETION_INDEX` and Slurm's `SLURM_ARRAY_TASK_ID` count).
    public struct Shard: Codable, Sendable, Equatable, CustomStringConvertible {
        /// This shard's 0-based index, less than `count`.
        public var index: Int
        /// How many shards the assets are split into.
        public var count: Int
        /// Creates shard `index` of `count`.
        public init(index: Int, count: Int) { self.index = index; self.count = count }
        /// The most shards a scan is split into: a count beyond is refused before anything of its size is made.
        public static let maxCount = 1_000_000
        /// Parses `K/N`: two plain decimal integers, 0 ≤ K < N ≤ `maxCount`, nothing else (no sign, space or extra `/`).
        public init?(_ text: String) {
            let parts = text.split(separator: "/", omittingEmptySubsequences: false)
            let plain = { (s: Substring) in !s.isEmpty && s.count <= 7 && s.allSatisfy { $0.isASCII && $0.isNumber } }
            guard parts.count == 2, parts.allSatisfy(plain), let k = Int(parts[0]), let n = Int(parts[1]),
                  Self.isValid(index: k, count: n) else { return nil }
            self.init(index: k, count: n)
        }
        /// True when `count` is 1…`maxCount` and `index` is in `0..<count`.
        public static func isValid(index: Int, count: Int) -> Bool { (1...maxCount).contains(count) && (0..<count).contains(index) }
        /// Throws `ExportError.usage` unless `isValid`: checked before a plan sizes anything by `count`.
        public func check() throws {
            guard Self.isValid(index: index, count: count) else {
                throw ExportError.usage(reason: "shard \(self) is not K/N with 0 ≤ K < N ≤ \(Self.maxCount)")
            }
        }
        /// The shard as `K/N`.
        public var description: String { "\(index)/\(count)" }
        /// True when the asset with this key belongs to the shard (FNV-1a of the key's file-name bytes, stable
        /// across machines).
        public func contains(_ key: String) -> Bool { Self.index(of: key, count: count) == index }
        /// The shard of `count` that the asset with this key belongs to.
        public static func index(of key: String, count: Int) -> Int {
            var hash: UInt64 = 0xcbf29ce484222325
            for byte in FileName.bytes(key) { hash = (hash ^ UInt64(byte)) &* 0x100000001b3 }
            return Int(hash % UInt64(count))
        }
    }

    /// The files and folders to scan for assets.
    public var inputs: [String]
    /// The folder the outputs, the export database and the lock go to (`--out`).
    public var outputDirectory: String
    /// The export every job runs: its preset, version, fallback and error policies, tracks, size limit, estimate,
    /// decode thread, threads (nil: the cores shared out among the jobs, `threadsPerJob`) and determinism. A job's
    /// request is this one with the job's input and output, the output folder as its sandbox, the overwrite the batch
    /// allows (`overwrite`) and its threads (`BatchRunner`); its session decides its first route.
    public var request: ExportRequest
    /// How many exports run at once (`--jobs`).
    public var jobs: Int
    /// Plan and estimate only; export nothing (`--dry-run`).
    public var dryRun: Bool
    /// Which assets to take: video, audio or all (`--media`).
    public var media: MediaFilter = .all
    /// Leave out assets shorter than this many seconds; nil: no minimum.
    public var minDuration: Double?
    /// Leave out assets longer than this many seconds; nil: no maximum.
    public var maxDuration: Double?
    /// Glob patterns on the asset key; when not empty, only assets matching one are taken (`--include`).
    public var include: [String] = []
    /// Glob patterns on the asset key; assets matching any are left out (`--exclude`).
    public var exclude: [String] = []
    /// The order of the work: by name or by creation time (`--sort`).
    public var sort: SortOrder = .name
    /// Export again assets that failed in an earlier run with the same source and preset (otherwise they are skipped).
    public var retryFailed = false
    /// Ignore the export database and redo every asset, even unchanged completed ones (`--force`).
    public var force = false
    /// Take only this shard of the assets (`--shard K/N`); nil: all of them.
    public var shard: Shard?
    /// Write a poster frame (`NAME.jpg`) next to each output.
    public var thumbnails: Bool = false
    /// When another batch holds the output folder's lock: wait for it (true) or stop with `BatchError.locked`.
    public var wait: Bool = false
    /// Replace a file at an output path even when this batch did not write it (`--overwrite`). Without it, `--force`
    /// and a changed asset replace only the outputs the export database records (same path, size and SHA-256).
    public var overwrite = false
    /// Uploads acknowledged as never exportable (`--accept FILE|KEY`, by key or by file): recorded in the database;
    /// a failed or rejected row of such an asset no longer fails the run, in this run and every later one.
    public var accept: [String] = []
    /// What a duplicate upload gets (`--duplicates`): a copy of the original's output (default), a hard link, or nothing.
    public var duplicates = DuplicateOutput.copy
    /// In a dry run, decode a sample of each upload's data (`DataCheck`: the first and last seconds and a few points
    /// between) and plan one whose sample shows damage by the route a damaged input takes (`--check-data`).
    public var checkData = false
    /// The output container of every asset (`--container`); nil: the preset's `defaultExtension`.
    public var container: Container?
    /// The outputs' names (`--name`); nil: each main file's name with the container's extension (`outputNames`).
    public var name: BatchNameTemplate?
    /// Where a byte copy in another container than the outputs' goes (`--fallback-container`).
    public var fallbackContainer = FallbackContainer.folder
    /// Where a dry run keeps its sampled size estimates for the run that follows (a SQLite file; by default in the
    /// user's cache folder, `$XDG_CACHE_HOME/mediaexport/estimates.sqlite`); nil: none kept or read.
    public var estimateStore: String? = EstimateStore.defaultPath

    /// Where a batch puts a byte copy whose container is not the outputs' (a `.ts` that only a copy delivers).
    public enum FallbackContainer: String, Codable, Sendable, CaseIterable {
        /// In `fallback/` beside the asset's output (`ready/trip/fallback/clip.ts`): an uploader taking
        /// `ready/*.mp4` gets no other container. The default.
        case folder
        /// Beside the other outputs (`ready/trip/clip.ts`).
        case keep
        /// Nowhere: the asset fails before anything is written.
        case fail

        /// The export request's placement of such a copy.
        var placement: CopyPlacement {
            switch self {
            case .folder: return .subfolder("fallback")
            case .keep: return .beside
            case .fail: return .refuse
            }
        }
    }

    /// The outputs' extension: `container`'s, else the preset's `defaultExtension`.
    public var outputExtension: String { container?.rawValue ?? request.preset.defaultExtension }

    /// Creates options with the defaults of the `batch` command: every job exports with `preset` under `policy` (by
    /// default `needed`: assets that already fit are remuxed or copied), the other settings of `request` at their defaults.
    public init(inputs: [String], outputDirectory: String, preset: Preset, jobs: Int = BatchOptions.defaultJobs, policy: Policy = .needed,
                dryRun: Bool = false) {
        (self.inputs, self.outputDirectory, self.jobs, self.dryRun) = (inputs, outputDirectory, max(1, jobs), dryRun)
        request = ExportRequest(input: "", output: "", preset: preset)
        request.policy = policy
    }

    /// The export request of one asset: the template's, with the asset's input and output.
    func request(input: String, output: String) -> ExportRequest {
        var request = self.request
        (request.input, request.output) = (input, output)
        return request
    }

    /// An export setting of `request`, read and written through: `options.preset`, `options.threads` …
    public subscript<Value>(dynamicMember keyPath: WritableKeyPath<ExportRequest, Value>) -> Value {
        get { request[keyPath: keyPath] }
        set { request[keyPath: keyPath] = newValue }
    }

    /// The hash of the settings that shape every output (`BatchPlanner.presetHash`): assets exported with another
    /// are exported again.
    var settingsHash: String {
        BatchPlanner.presetHash(request.preset, tracks: request.tracks, maxFileSize: request.maxFileSize, deterministic: request.deterministic,
                                container: outputExtension)
    }

    /// Two jobs on 2 to 4 cores, then half the cores, one on a single core: encoders are multi-threaded already, so
    /// more jobs mostly add memory. The cores are counted as the thread budget counts them (`availableCores`: a
    /// `taskset` or a container's cpuset, not every online core).
    public static var defaultJobs: Int { defaultJobs(cores: availableCores) }

    static func defaultJobs(cores: Int) -> Int { max(1, min(cores, max(2, cores / 2))) }

    /// The cores this process may run on: `sched_getaffinity`'s set (a `taskset` or a container's cpuset), else
    /// `activeProcessorCount`.
    public static var availableCores: Int { Cores.available }

    /// Threads for each export when `jobs` run at once on `cores`: an equal share, at least one. Each FFmpeg encoder
    /// left to itself takes every core (x264: 1.5 threads a core), so jobs × encoders would oversubscribe the cores:
    /// more threads than cores only add context switches, frame-thread delay buffers (memory) and x264's loss of
    /// efficiency per extra frame thread, never throughput.
    public static func threadsPerJob(cores: Int, jobs: Int) -> Int {
        max(1, max(1, cores) / max(1, jobs))
    }
}
