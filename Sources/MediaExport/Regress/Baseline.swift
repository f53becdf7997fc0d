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

/// One property that differs from the baseline beyond its tolerance.
public struct Difference: Codable, Sendable, Equatable, CustomStringConvertible {
    /// The property's name (e.g. duration, size, PSNR).
    public var property: String
    /// Its value in the baseline.
    public var baseline: String
    /// Its value measured now.
    public var actual: String
    /// One line: the property, its baseline and its actual value.
    public var description: String { "\(property): baseline \(baseline), actual \(actual)" }
}

/// Compares a measurement with its baseline.
public enum BaselineComparison {
    /// Every difference beyond tolerance, in a fixed property order (the first is the one to report): the stream
    /// layout, colour, timing, then quality before size (a quality drop is named, not the size change it comes with),
    /// then the checksums.
    public static func differences(_ actual: MediaExportCore.Measurement, _ base: MediaExportCore.Measurement, _ t: Tolerances) -> [Difference] {
        [layout(actual, base), color(actual.color, base.color), timing(actual, base, t), quality(actual, base, t),
         size(actual, base, t), checksums(actual, base)].flatMap { $0 }
    }

    private static func exact<T: Equatable>(_ name: String, _ a: T, _ b: T) -> [Difference] {
        a == b ? [] : [Difference(property: name, baseline: show(b), actual: show(a))]
    }

    private static func layout(_ a: MediaExportCore.Measurement, _ b: MediaExportCore.Measurement) -> [Difference] {
        [exact("route", a.route, b.route), exact("fallback", a.fallback ?? false, b.fallback ?? false), exact("container", a.container, b.container), exact("codecs", a.codecs, b.codecs),
         exact("videoProfile", a.videoProfile, b.videoProfile), exact("width", a.width, b.width),
         exact("height", a.height, b.height), exact("pixelFormat", a.pixelFormat, b.pixelFormat)].flatMap { $0 }
    }

    /// Colour, exact; a value the baseline lacks (made before it was measured) is not recorded, so not compared.
    private static func color(_ actual: MediaExportCore.Measurement.Color?, _ base: MediaExportCore.Measurement.Color?) -> [Difference] {
        guard let b = base else { return [] }
        let a = actual ?? MediaExportCore.Measurement.Color()
        func recorded<T: Equatable>(_ name: String, _ a: T?, _ b: T?) -> [Difference] { b == nil ? [] : exact("color.\(name)", a, b) }
        return [recorded("hdr", a.hdr?.rawValue, b.hdr?.rawValue), recorded("transfer", a.transfer, b.transfer),
                recorded("primaries", a.primaries, b.primaries), recorded("matrix", a.matrix, b.matrix),
                recorded("range", a.range, b.range), recorded("bitDepth", a.bitDepth, b.bitDepth),
                recorded("fieldOrder", a.fieldOrder, b.fieldOrder), recorded("mastering", a.mastering, b.mastering),
                recorded("contentLight", a.contentLight, b.contentLight), recorded("dolbyVision", a.dolbyVision, b.dolbyVision)].flatMap { $0 }
    }

    private static func timing(_ actual: MediaExportCore.Measurement, _ base: MediaExportCore.Measurement, _ t: Tolerances) -> [Difference] {
        var out = exact("rotation", actual.rotation, base.rotation) + exact("frameCount", actual.frameCount, base.frameCount)
        let frame = base.frameDuration ?? actual.frameDuration ?? (1.0 / 30)
        let durationTolerance = (t.durationFrames ?? 1) * frame + 1e-6
        if abs(actual.duration - base.duration) > durationTolerance {
            out.append(Difference(property: "duration", baseline: String(format: "%.4f s", base.duration),
                                  actual: String(format: "%.4f s (tolerance ±%.4f s)", actual.duration, durationTolerance)))
        }
        out += exact("audioChannels", actual.audioChannels, base.audioChannels) + exact("sampleRate", actual.sampleRate, base.sampleRate)
        out += exact("creationTimeKept", actual.creationTimeKept, base.creationTimeKept)
        if let a = actual.avStartOffset, let b = base.avStartOffset, abs(a - b) > 0.001 {
            out.append(Difference(property: "avStartOffset", baseline: String(format: "%.4f s", b), actual: String(format: "%.4f s", a)))
        } else if (actual.avStartOffset == nil) != (base.avStartOffset == nil) {
            out += exact("avStartOffset", actual.avStartOffset, base.avStartOffset)
        }
        return out + exact("timestampsIncreasing", actual.timestampsIncreasing, base.timestampsIncreasing)
    }

    /// PSNR (`12.345 dB`) and SSIM (`0.98765`) may drop below the baseline's by their tolerance, no further.
    private static func quality(_ actual: MediaExportCore.Measurement, _ base: MediaExportCore.Measurement, _ t: Tolerances) -> [Difference] {
        func dropped(_ name: String, _ a: Double?, _ b: Double?, by drop: Double, digits: Int, unit: String) -> [Difference] {
            guard let b, (a ?? -Double.infinity) < b - drop else { return [] }
            let shown = { (x: Double, digits: Int) in String(format: "%.\(digits)f", x) + unit }
            return [Difference(property: name, baseline: shown(b, digits),
                               actual: a.map { shown($0, digits) + " (may drop \(shown(drop, digits - 1)))" } ?? "not measured")]
        }
        return dropped("psnr", actual.psnr, base.psnr, by: t.psnrDrop ?? 0.5, digits: 3, unit: " dB")
            + dropped("ssim", actual.ssim, base.ssim, by: t.ssimDrop ?? 0.005, digits: 5, unit: "")
    }

    private static func size(_ actual: MediaExportCore.Measurement, _ base: MediaExportCore.Measurement, _ t: Tolerances) -> [Difference] {
        let tolerance = t.sizeRatio ?? 0.10
        guard base.size > 0, abs(Double(actual.size - base.size)) / Double(base.size) > tolerance else { return [] }
        return [Difference(property: "size", baseline: "\(base.size) bytes", actual: "\(actual.size) bytes (tolerance ±\(Int(saturating: tolerance * 100)) %)")]
    }

    /// The whole file's hash only when both were deterministic (only then is it recorded), then the copied packets'.
    private static func checksums(_ actual: MediaExportCore.Measurement, _ base: MediaExportCore.Measurement) -> [Difference] {
        var out: [Difference] = []
        if let a = actual.outputSHA256, let b = base.outputSHA256 { out += exact("outputSHA256", a, b) }
        return out + exact("packetChecksums", actual.packetChecksums, base.packetChecksums)
            + exact("packetsMatchSource", actual.packetsMatchSource, base.packetsMatchSource)
    }

    private static func show<T>(_ v: T) -> String {
        if let o = v as? OptionalProtocol { return o.isNone ? "none" : o.unwrappedDescription }
        if let a = v as? [String] { return a.joined(separator: ",") }
        return "\(v)"
    }
}

private protocol OptionalProtocol {
    var isNone: Bool { get }
    var unwrappedDescription: String { get }
}

extension Optional: OptionalProtocol {
    var isNone: Bool { self == nil }
    var unwrappedDescription: String {
        switch self {
        case .some(let v): return (v as? [String])?.joined(separator: ",") ?? "\(v)"
        case .none: return "none"
        }
    }
}
