import Foundation

/// Events of an export, in order: `started`, any number of `progress`, then exactly one final event.
public enum ExportEvent: Sendable, Equatable {
    case started(Started)
    case progress(Progress)
    case fallback(Fallback)
    case completed(Completed)
    case failed(Failed)
    case cancelled(Cancelled)

    /// The record's `kind`.
    public var kind: String {
        switch self {
        case .started: return "started"
        case .progress: return "progress"
        case .fallback: return "fallback"
        case .completed: return "completed"
        case .failed: return "failed"
        case .cancelled: return "cancelled"
        }
    }

    /// True for `completed`, `failed` and `cancelled`.
    public var isFinal: Bool {
        switch self { case .started, .progress, .fallback: return false; default: return true }
    }

    /// The export began; says what will happen to each stream.
    public struct Started: Codable, Sendable, Equatable {
        /// The input's path.
        public var input: String
        /// The file the output will take the name of.
        public var output: String
        /// The preset's name.
        public var preset: String
        /// The output's container (its extension, e.g. `mp4`).
        public var container: String
        /// Seconds of media to export (after trimming), if known.
        public var duration: Double?
        /// The part of the version exported, as requested; nil for all of it.
        public var timeRange: TimeRange?
        /// What happens to each input stream, in input order.
        public var streams: [StreamPlan]
        /// Things the user should know (e.g. a passthrough trim starts at an earlier keyframe).
        public var notes: [String]
        /// Version asked for and delivered, and the resource read.
        public var version: VersionReport?
        /// The output's expected size in bytes (see `OutputSize.estimatedBytes`): a CRF encode's video rate measured on
        /// samples of the source, other streams at their bit rates; the source's size for a byte copy. nil: unknown.
        public var estimatedBytes: Int64?
        /// How `estimatedBytes` was made: `samples` (a CRF video measured on sample encodes), `rates` (every stream
        /// at a known rate: capped, average, copied), `guess` (a CRF video at a bits-per-pixel guess: often off by 2×
        /// or more; progress records refine it from the bytes written), `source` (a byte copy). nil: no estimate.
        public var estimateMethod: OutputSize.EstimateMethod?
        /// The size limit the export must meet, if any.
        public var maxFileSize: Int64?
        /// The encoding settings (the preset's, after any command-line overrides); nil for passthrough, remux and copy.
        public var settings: EncodingSettings?

        /// Creates the value from each of its fields.
        public init(input: String, output: String, preset: String, container: String, duration: Double? = nil, timeRange: TimeRange? = nil, streams: [StreamPlan], notes: [String], version: VersionReport? = nil,
                    estimatedBytes: Int64? = nil, estimateMethod: OutputSize.EstimateMethod? = nil, maxFileSize: Int64? = nil) {
            self.input = input; self.output = output; self.preset = preset; self.container = container; self.duration = duration; self.timeRange = timeRange; self.streams = streams; self.notes = notes; self.version = version
            self.estimatedBytes = estimatedBytes; self.estimateMethod = estimateMethod; self.maxFileSize = maxFileSize
        }
    }

    /// Progress, a few times a second.
    public struct Progress: Codable, Sendable, Equatable {
        /// 0…1.
        public var fraction: Double
        /// Seconds of output written.
        public var outputTime: Double
        /// Output seconds per wall-clock second.
        public var speed: Double
        /// Video frames encoded per second of wall time (0 without video transcoding).
        public var fps: Double
        /// Seconds since the export began.
        public var elapsed: Double
        /// Estimated seconds left, when it can be told.
        public var eta: Double?
        /// Bytes of the output written so far (its temporary file), once media follows the container's header (nil
        /// before, and during a first pass, which writes none).
        public var bytesWritten: Int64?
        /// The output's size projected from the bytes written so far (`OutputSize.projectedBytes`), once a tenth of
        /// it is done: what the `started` record's estimate becomes as the export runs.
        public var projectedBytes: Int64?

        /// Creates the value from each of its fields.
        public init(fraction: Double, outputTime: Double, speed: Double, fps: Double, elapsed: Double, eta: Double? = nil, bytesWritten: Int64? = nil,
                    projectedBytes: Int64? = nil) {
            self.fraction = fraction; self.outputTime = outputTime; self.speed = speed; self.fps = fps; self.elapsed = elapsed; self.eta = eta
            self.bytesWritten = bytesWritten; self.projectedBytes = projectedBytes
        }
    }

    /// The input could not go the way asked; the export goes on by the next route.
    public struct Fallback: Codable, Sendable, Equatable {
        /// The route that could not deliver.
        public var from: ExportRoute
        /// The route tried next.
        public var to: ExportRoute
        /// Why: FFmpeg's error, the count of bad packets, a stall, or why a route was skipped.
        public var reason: String
        /// The stage that failed.
        public var stage: ExportStage?
        /// True when the route failed because its output did not match the plan on input that decoded cleanly
        /// (`ExportError.planMismatch`): a bug of mediaexport's, not the input's; nil otherwise.
        public var planMismatch: Bool?

        /// Creates the value from each of its fields.
        public init(from: ExportRoute, to: ExportRoute, reason: String, stage: ExportStage? = nil, planMismatch: Bool? = nil) {
            self.from = from; self.to = to; self.reason = reason; self.stage = stage; self.planMismatch = planMismatch
        }
    }

    /// The output is complete and in place.
    public struct Completed: Codable, Sendable, Equatable {
        /// The output's path.
        public var output: String
        /// The output's size in bytes.
        public var bytes: Int64
        /// Duration of the output as probed, in seconds.
        public var duration: Double
        /// Codec of each output stream, in order.
        public var codecs: [String]
        /// The video's width in pixels, when there is a video.
        public var width: Int?
        /// The video's height in pixels, when there is a video.
        public var height: Int?
        /// Wall-clock seconds.
        public var wallTime: Double
        /// The video frames of the output (its main video's), when known: the summary's speed in frames per second.
        public var videoFrames: Int?
        /// Corrupt input packets skipped while decoding, and video frames lost from the data: what the error limit
        /// counts (`Damage.counted`; `damage` tells them apart).
        public var skippedPackets: Int
        /// What the plan said worth knowing (a keyframe-aligned trim, a tone mapping, …).
        public var notes: [String]
        /// Version asked for and delivered, and the resource read.
        public var version: VersionReport?
        /// How the output was made.
        public var route: ExportRoute = .transcode
        /// The fallback steps taken, in order (empty for a clean export).
        public var fallbacks: [Fallback] = []
        /// SHA-256 of a byte copy (equal to the source's), for `route: copy`.
        public var sha256: String?
        /// Timestamps repaired on the way (discontinuities offset, repeated or backwards timestamps re-stamped).
        public var timestampRepairs: Int = 0
        /// Frames or packets the plan kept that were left out anyway (each counted, the reason in `warnings`).
        public var droppedFrames: Int = 0
        /// Everything dropped or changed that the user should know, each with its count and reason: dropped
        /// streams, skipped packets, dropped frames, timestamp repairs, edits not rendered. The human summary
        /// prints each as a `WARNING:` line.
        public var warnings: [String] = []
        /// The checks of the output against its plan (all passed: a failed check never completes).
        public var verification: Verification?
        /// Set when the output holds only part of the source (a salvage, or a byte copy of a damaged file): how much,
        /// and why.
        public var partial: Partial?
        /// The encoding settings (the preset's, after any command-line overrides); nil for passthrough, remux and copy.
        public var settings: EncodingSettings?
        /// The metadata level and the keys it dropped (`--metadata sharing|none`); nil at `all`.
        public var metadata: MetadataReport?
        /// The damage met in the input, counted apart (`Damage`); nil when none was.
        public var damage: Damage?
        /// A quality-targeted encode's CRF, search and measure (`QualityReport`); nil without a quality target.
        public var quality: QualityReport?
        /// The main audio's loudness, measured before and after, and how it was normalised (`LoudnessReport`); nil
        /// without `--loudness` or a preset's `audio.loudness`.
        public var loudness: LoudnessReport?

        /// Creates the value from each of its fields.
        public init(output: String, bytes: Int64, duration: Double, codecs: [String], width: Int? = nil, height: Int? = nil, wallTime: Double, videoFrames: Int? = nil, skippedPackets: Int, notes: [String], version: VersionReport? = nil, route: ExportRoute = .transcode, fallbacks: [Fallback] = [], sha256: String? = nil,
                    timestampRepairs: Int = 0, droppedFrames: Int = 0, warnings: [String] = [], verification: Verification? = nil) {
            self.output = output; self.bytes = bytes; self.duration = duration; self.codecs = codecs; self.width = width; self.height = height; self.wallTime = wallTime; self.videoFrames = videoFrames; self.skippedPackets = skippedPackets; self.notes = notes; self.version = version; self.route = route; self.fallbacks = fallbacks; self.sha256 = sha256
            self.timestampRepairs = timestampRepairs; self.droppedFrames = droppedFrames; self.warnings = warnings; self.verification = verification
        }
    }

    /// What a partial output holds of its source: `duration` seconds of the `declaredDuration` the source's header
    /// claims, and the damage that ended it.
    public struct Partial: Codable, Sendable, Equatable {
        /// Seconds the output holds (where its data ends).
        public var duration: Double
        /// Seconds the source's header declares (for the part asked for), when it declares any.
        public var declaredDuration: Double?
        /// The damage, one line: "video stream #0: the data ends at 3.17 s of 6.01 s: the file is truncated",
        /// "37 corrupt packets skipped from 2.40 s".
        public var cause: String

        /// Creates the value from each of its fields.
        public init(duration: Double, declaredDuration: Double?, cause: String) {
            self.duration = duration; self.declaredDuration = declaredDuration; self.cause = cause
        }

        /// The `WARNING:` line: "partial output: 3.17 s of 6.01 s delivered: …cause".
        public var warning: String { "partial output: " + summary }

        /// What is partial, in words: "3.17 s of 6.01 s delivered: …cause" (the batch report's `partial` column).
        public var summary: String {
            let of = declaredDuration.map { String(format: " of %.2f s", $0) } ?? ""
            return String(format: "%.2f s%@ delivered: %@", duration, of, cause)
        }
    }

    /// The export failed; nothing was written.
    public struct Failed: Codable, Sendable, Equatable {
        /// Where it failed.
        public var stage: ExportStage
        /// The one-line message (`ExportError.description`).
        public var message: String
        /// The file the failure is about.
        public var path: String?
        /// Which error it was (`ExportError.Kind`); the CLI adds its exit code to the record.
        public var error: ExportError.Kind

        /// Creates the value from each of its fields.
        public init(stage: ExportStage, message: String, path: String? = nil, error: ExportError.Kind) {
            self.stage = stage; self.message = message; self.path = path; self.error = error
        }
    }

    /// The export was cancelled; nothing was written.
    public struct Cancelled: Codable, Sendable, Equatable {
        /// The output that was not written.
        public var output: String
        /// Seconds from the start to the cancellation.
        public var elapsed: Double

        /// Creates the value from each of its fields.
        public init(output: String, elapsed: Double) {
            self.output = output; self.elapsed = elapsed
        }
    }
}

extension ExportEvent: Codable {
    /// The kinds an export event has, in the order they come.
    public static let kinds = ["started", "progress", "fallback", "completed", "failed", "cancelled"]

    /// The event as its JSON Lines record (`JSONLine`, the one envelope).
    public var line: JSONLine {
        let record: JSONLine?
        switch self {
        case .started(let p): record = try? JSONLine(kind: kind, payload: p)
        case .progress(let p): record = try? JSONLine(kind: kind, payload: p)
        case .fallback(let p): record = try? JSONLine(kind: kind, payload: p)
        case .completed(let p): record = try? JSONLine(kind: kind, payload: p)
        case .failed(let p): record = try? JSONLine(kind: kind, payload: p)
        case .cancelled(let p): record = try? JSONLine(kind: kind, payload: p)
        }
        return record ?? (try! JSONLine(kind: kind, payload: JSONValue.object([:])))  // a value of plain fields always encodes
    }

    /// `{"version":1,"kind":"…","payload":{…}}`: `line`.
    public func encode(to encoder: Encoder) throws {
        try line.encode(to: encoder)
    }

    /// Reads a record `encode(to:)` wrote; an unknown `kind` is a decoding error (`JSONLine` keeps any kind).
    public init(from decoder: Decoder) throws {
        let record = try JSONLine(from: decoder)
        switch record.kind {
        case "started": self = .started(try record.payload(as: Started.self))
        case "progress": self = .progress(try record.payload(as: Progress.self))
        case "fallback": self = .fallback(try record.payload(as: Fallback.self))
        case "completed": self = .completed(try record.payload(as: Completed.self))
        case "failed": self = .failed(try record.payload(as: Failed.self))
        case "cancelled": self = .cancelled(try record.payload(as: Cancelled.self))
        default:
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "unknown event kind \(record.kind)"))
        }
    }
}

extension ExportEvent.Failed {
    /// The failure record for an error.
    public init(_ error: ExportError) {
        self.init(stage: error.stage, message: error.description, path: error.path, error: error.kind)
    }
}
