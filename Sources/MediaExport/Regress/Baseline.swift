import Foundation
import MediaExportCore
import MediaExportFFmpeg

/// How far a measurement may drift from the baseline. Everything not listed here must match exactly.
public struct Tolerances: Codable, Sendable, Equatable {
    /// Duration: ± this many frames (default 1).
    public var durationFrames: Double?
    /// Size: ± this fraction (default 0.10).
    public var sizeRatio: Double?
    /// PSNR may drop this many dB below the baseline (default 0.5).
    public var psnrDrop: Double?
    /// SSIM may drop this much below the baseline (default 0.005).
    public var ssimDrop: Double?

    /// Creates tolerances; a nil value falls back to the baseline's or the default.
    public init(durationFrames: Double? = nil, sizeRatio: Double? = nil, psnrDrop: Double? = nil, ssimDrop: Double? = nil) {
        self.durationFrames = durationFrames; self.sizeRatio = sizeRatio; self.psnrDrop = psnrDrop; self.ssimDrop = ssimDrop
    }

    /// The documented defaults.
    public static let defaults = Tolerances(durationFrames: 1, sizeRatio: 0.10, psnrDrop: 0.5, ssimDrop: 0.005)

    /// `self`'s values where set, else `other`'s.
    public func over(_ other: Tolerances) -> Tolerances {
        Tolerances(durationFrames: durationFrames ?? other.durationFrames, sizeRatio: sizeRatio ?? other.sizeRatio,
                   psnrDrop: psnrDrop ?? other.psnrDrop, ssimDrop: ssimDrop ?? other.ssimDrop)
    }
}

/// The committed reference: one measurement per sample × preset, with optional tolerances, and what each was made
/// from (the sample's and the preset's hashes, the environment), so that a failure names its cause first.
public struct Baseline: Codable, Sendable, Equatable {
    /// One sample × preset. The provenance fields are nil in a baseline made before they were recorded.
    public struct Entry: Codable, Sendable, Equatable {
        /// What the export measured; nil when the export is expected to fail.
        public var measurement: MediaExportCore.Measurement?
        /// Per-sample overrides.
        public var tolerances: Tolerances?
        /// The expected failure (`STAGE/EXIT`, e.g. `edit/80`), for a sample the preset must refuse.
        public var failure: String?
        /// SHA-256 of the sample's main resource file.
        public var sampleSHA256: String?
        /// SHA-256 of the preset as JSON with sorted keys (`PresetRecord`).
        public var presetSHA256: String?
        /// The preset's settings, as that JSON.
        public var presetSettings: JSONValue?
        /// True when the entry follows its sample: a sample whose SHA-256 differs is then judged by its measurement
        /// alone. Without it, a sample that is not the file the entry was made from fails the case (`sample changed`).
        public var followsSample: Bool?

        /// Creates an entry.
        public init(measurement: MediaExportCore.Measurement? = nil, tolerances: Tolerances? = nil, failure: String? = nil,
                    sampleSHA256: String? = nil, preset: PresetRecord? = nil) {
            self.measurement = measurement; self.tolerances = tolerances; self.failure = failure
            self.sampleSHA256 = sampleSHA256; self.presetSHA256 = preset?.sha256; self.presetSettings = preset?.settings
        }
    }

    /// The baseline file's format version.
    public var version: Int = 1
    /// The FFmpeg libraries (libav*) the baseline was made with.
    public var ffmpeg: [String]
    /// The rest of what the outputs depend on: FFmpeg's release, x264/x265/zimg, the CPU, deterministic or not.
    public var environment: RegressEnvironment?
    /// File-wide overrides of the defaults.
    public var tolerances: Tolerances?
    /// Keyed `SAMPLE|PRESET`, the sample's path relative to the baseline file's folder.
    public var entries: [String: Entry]

    /// Creates a baseline made with the FFmpeg libraries `ffmpeg`.
    public init(ffmpeg: [String], tolerances: Tolerances? = nil, entries: [String: Entry] = [:]) {
        self.ffmpeg = ffmpeg; self.tolerances = tolerances; self.entries = entries
    }

    /// Reads a baseline; a missing file is an empty baseline.
    public static func load(_ path: String) throws -> Baseline {
        guard FileManager.default.fileExists(atPath: path) else { return Baseline(ffmpeg: FFmpegVersions.lines) }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ExportError.inputUnreadable(path: path, reason: "cannot read the baseline")
        }
        do { return try JSONDecoder().decode(Baseline.self, from: data) } catch let error as DecodingError {
            throw ExportError.describe(error, file: path, sidecar: true)
        }
    }

    /// Writes the baseline as stable, diff-friendly JSON.
    public func save(_ path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        do { try encoder.encode(self).write(to: URL(fileURLWithPath: path), options: .atomic) } catch {
            throw ExportError.outputUnwritable(path: path, reason: error.localizedDescription)
        }
    }
}
