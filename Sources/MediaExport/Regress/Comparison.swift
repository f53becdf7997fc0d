import Foundation
import MediaExportCore

/// One property that differs from the baseline beyond its tolerance: the two values as numbers (or text), their unit
/// and the tolerance apart, so that a program reads them without parsing; `description` is the line people read.
public struct Difference: Codable, Sendable, Equatable, CustomStringConvertible {
    /// The unit of a measured number.
    public enum Unit: String, Codable, Sendable {
        /// A count of bytes.
        case bytes
        /// Seconds.
        case seconds = "s"
        /// Decibels (PSNR).
        case decibels = "dB"
    }
    /// Which way a value may move within its tolerance.
    public enum Side: String, Codable, Sendable {
        /// ± the tolerance.
        case both
        /// Down by at most the tolerance (quality); up freely.
        case below
    }
    /// The property's name (`duration`, `size`, `psnr`, `color.transfer`).
    public var property: String
    /// Its value in the baseline (`null`: none).
    public var expected: JSONValue
    /// Its value measured now (`null`: none).
    public var measured: JSONValue
    /// The unit of both values and of the tolerance; nil for a count, a ratio or text.
    public var unit: Unit?
    /// How far `measured` may lie from `expected`, in `unit`; nil: it must match exactly.
    public var tolerance: Double?
    /// Which way the tolerance goes; nil when there is none.
    public var toleranceSide: Side?

    /// Creates a difference.
    public init(property: String, expected: JSONValue, measured: JSONValue, unit: Unit? = nil, tolerance: Double? = nil,
                toleranceSide: Side? = nil) {
        self.property = property; self.expected = expected; self.measured = measured; self.unit = unit
        self.tolerance = tolerance; self.toleranceSide = tolerance == nil ? nil : toleranceSide ?? .both
    }

    /// One line: `size: baseline 54000 bytes, actual 54218 bytes (tolerance ±0 %)`.
    public var description: String {
        if case .array(let before) = expected, case .array(let after) = measured, property == "packetChecksums" {
            return "\(property): " + PacketStreams.differing(before, after)
        }
        return "\(property): baseline \(show(expected)), actual \(show(measured))" + (allowance.map { " (\($0))" } ?? "")
    }

    /// The tolerance as people read it: `tolerance ±10 %` (size), `tolerance ±0.033 s`, `may drop 0.50 dB`.
    var allowance: String? {
        guard let tolerance else { return nil }
        if unit == .bytes, case .number(let base) = expected, base > 0 { return "tolerance ±\(Int((tolerance / base * 100).rounded())) %" }
        let shown = Self.format(tolerance, unit: unit, property: property)
        return toleranceSide == .below ? "may drop \(shown)" : "tolerance ±\(shown)"
    }

    func show(_ value: JSONValue) -> String {
        switch value {
        case .null: return "none"
        case .number(let n): return Self.format(n, unit: unit, property: property)
        case .array(let a): return a.map(\.shown).joined(separator: ",")
        default: return value.shown
        }
    }

    /// A number rounded to what it means, with its unit: bytes whole, seconds to the millisecond, dB to 0.01, SSIM
    /// to 0.00001, a fraction (`estimateError`) as a percentage.
    public static func format(_ n: Double, unit: Unit?, property: String) -> String {
        switch unit {
        case .bytes: return "\(Int64(n.rounded())) bytes"
        case .seconds: return String(format: "%.3f s", n)
        case .decibels: return String(format: "%.2f dB", n)
        case nil where property == "ssim": return String(format: "%.5f", n)
        case nil where property == "estimateError": return String(format: "%+.1f %%", n * 100)
        case nil: return JSONValue.number(n).shown
        }
    }

    /// The unit of a measured property, by its name.
    public static func unit(of property: String) -> Unit? {
        switch property {
        case "size", "estimatedBytes": return .bytes
        case "duration", "frameDuration", "avStartOffset": return .seconds
        case "psnr": return .decibels
        default: return nil
        }
    }
}

/// Compares a measurement with its baseline.
public enum BaselineComparison {
    /// The measured fields that are reported but never compared with the baseline.
    public static let neverCompared: Set<String> = ["estimatedBytes", "estimateError", "frameDuration"]

    /// Every difference beyond tolerance, in a fixed property order (the first is the one to report): the stream
    /// layout, colour, timing, then quality before size (a quality drop is named, not the size change it comes with),
    /// then the checksums.
    public static func differences(_ actual: MediaExportCore.Measurement, _ base: MediaExportCore.Measurement, _ t: Tolerances) -> [Difference] {
        [layout(actual, base), color(actual.color, base.color), timing(actual, base, t), quality(actual, base, t),
         actual.quality == nil ? size(actual, base, t) : target(actual.quality), checksums(actual, base)].flatMap { $0 }
    }

    /// A quality-targeted export's measure against its target (what judges it instead of its size).
    private static func target(_ q: QualityReport?) -> [Difference] {
        guard let q, q.met != true else { return [] }
        return [Difference(property: "quality.achieved", expected: .number(q.target), measured: q.achieved.map(JSONValue.number) ?? .null,
                           tolerance: q.metric.tolerance, toleranceSide: .below)]
    }

    /// `a` as a JSON value (`null` for nil).
    static func value<T: Encodable>(_ a: T) -> JSONValue {
        (try? JSONEncoder().encode(a)).flatMap { try? JSONDecoder().decode(JSONValue.self, from: $0) } ?? .null
    }

    private static func exact<T: Encodable & Equatable>(_ name: String, _ a: T, _ b: T) -> [Difference] {
        a == b ? [] : [Difference(property: name, expected: value(b), measured: value(a), unit: Difference.unit(of: name))]
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
        func recorded<T: Encodable & Equatable>(_ name: String, _ a: T?, _ b: T?) -> [Difference] { b == nil ? [] : exact("color.\(name)", a, b) }
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
            out.append(Difference(property: "duration", expected: .number(base.duration), measured: .number(actual.duration),
                                  unit: .seconds, tolerance: durationTolerance))
        }
        out += exact("audioChannels", actual.audioChannels, base.audioChannels) + exact("sampleRate", actual.sampleRate, base.sampleRate)
        out += exact("creationTimeKept", actual.creationTimeKept, base.creationTimeKept)
        if let a = actual.avStartOffset, let b = base.avStartOffset, abs(a - b) > 0.001 {
            out.append(Difference(property: "avStartOffset", expected: .number(b), measured: .number(a), unit: .seconds, tolerance: 0.001))
        } else if (actual.avStartOffset == nil) != (base.avStartOffset == nil) {
            out += exact("avStartOffset", actual.avStartOffset, base.avStartOffset)
        }
        return out + exact("timestampsIncreasing", actual.timestampsIncreasing, base.timestampsIncreasing)
    }

    /// PSNR and SSIM may drop below the baseline's by their tolerance, no further.
    private static func quality(_ actual: MediaExportCore.Measurement, _ base: MediaExportCore.Measurement, _ t: Tolerances) -> [Difference] {
        func dropped(_ name: String, _ a: Double?, _ b: Double?, by drop: Double) -> [Difference] {
            guard let b, (a ?? -Double.infinity) < b - drop else { return [] }
            return [Difference(property: name, expected: .number(b), measured: a.map(JSONValue.number) ?? .null,
                               unit: Difference.unit(of: name), tolerance: drop, toleranceSide: .below)]
        }
        return dropped("psnr", actual.psnr, base.psnr, by: t.psnrDrop ?? 0.5) + dropped("ssim", actual.ssim, base.ssim, by: t.ssimDrop ?? 0.005)
    }

    private static func size(_ actual: MediaExportCore.Measurement, _ base: MediaExportCore.Measurement, _ t: Tolerances) -> [Difference] {
        let tolerance = (t.sizeRatio ?? 0.10) * Double(base.size)
        guard base.size > 0, abs(Double(actual.size - base.size)) > tolerance else { return [] }
        return [Difference(property: "size", expected: .number(Double(base.size)), measured: .number(Double(actual.size)),
                           unit: .bytes, tolerance: tolerance)]
    }

    /// The whole file's hash only when both were deterministic (only then is it recorded), then the copied packets'.
    private static func checksums(_ actual: MediaExportCore.Measurement, _ base: MediaExportCore.Measurement) -> [Difference] {
        var out: [Difference] = []
        if let a = actual.outputSHA256, let b = base.outputSHA256 { out += exact("outputSHA256", a, b) }
        return out + exact("packetChecksums", actual.packetChecksums, base.packetChecksums)
            + exact("packetsMatchSource", actual.packetsMatchSource, base.packetsMatchSource)
    }
}
