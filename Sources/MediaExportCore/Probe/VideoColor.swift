import Foundation

/// How a video stream's pictures are to be read: colour primaries, transfer, matrix and range (FFmpeg's names, as
/// `ffprobe` prints them), bit depth, field order, and the HDR metadata that travels with it. The FFmpeg layer
/// fills it from the codec parameters and stream side data (and, for an HDR stream, from its first frame's side
/// data: HEVC carries mastering metadata in SEI messages, not in the container).
public struct VideoColor: Sendable, Equatable, Codable {
    /// `bt709`, `bt2020`, `smpte170m` …; nil when unspecified.
    public var primaries: String?
    /// `bt709`, `smpte2084` (PQ), `arib-std-b67` (HLG) …; nil when unspecified.
    public var transfer: String?
    /// `bt709`, `bt2020nc`, `smpte170m` …; nil when unspecified.
    public var matrix: String?
    /// `tv` (limited) or `pc` (full); nil when unspecified.
    public var range: String?
    /// Bits per component of the pixel format (8, 10, 12); nil when unknown.
    public var bitDepth: Int?
    /// How the pictures are scanned; nil when the stream does not say.
    public var fieldOrder: FieldOrder?
    /// HDR10 mastering display colour volume, if known.
    public var mastering: MasteringDisplay?
    /// HDR10 content light level, if known.
    public var contentLight: ContentLightLevel?
    /// The Dolby Vision configuration record, if the stream has one.
    public var dolbyVision: DolbyVision?

    /// Creates a description; everything unspecified by default.
    public init(primaries: String? = nil, transfer: String? = nil, matrix: String? = nil, range: String? = nil,
                bitDepth: Int? = nil, fieldOrder: FieldOrder? = nil, mastering: MasteringDisplay? = nil,
                contentLight: ContentLightLevel? = nil, dolbyVision: DolbyVision? = nil) {
        self.primaries = primaries; self.transfer = transfer; self.matrix = matrix; self.range = range
        self.bitDepth = bitDepth; self.fieldOrder = fieldOrder; self.mastering = mastering
        self.contentLight = contentLight; self.dolbyVision = dolbyVision
    }

    /// The dynamic range the transfer function says: PQ (`smpte2084`), HLG (`arib-std-b67`), else SDR.
    /// Dolby Vision is reported apart (`dolbyVision`): what a decoder without it shows is this, its base layer.
    public var transferKind: HDRKind {
        switch transfer {
        case "smpte2084": return .pq
        case "arib-std-b67": return .hlg
        default: return .sdr
        }
    }

    /// The kind `probe` reports: Dolby Vision when the stream has a configuration record, else `transferKind`.
    public var hdrKind: HDRKind { dolbyVision != nil ? .dolbyVision : transferKind }

    /// True for a PQ or HLG transfer.
    public var isHDR: Bool { transferKind != .sdr }
}

/// The dynamic range of a stream.
public enum HDRKind: String, Sendable, Codable, CaseIterable {
    /// Standard dynamic range.
    case sdr
    /// Hybrid log-gamma (`arib-std-b67`), as iPhones, Pixels and broadcasters record.
    case hlg
    /// Perceptual quantizer (`smpte2084`): HDR10 and HDR10+.
    case pq
    /// Dolby Vision (with a base layer of one of the others, or none: profile 5).
    case dolbyVision = "dolby-vision"
}

/// How a video's pictures are scanned (FFmpeg's `field_order`).
public enum FieldOrder: String, Sendable, Codable, CaseIterable, CustomStringConvertible {
    /// Whole frames.
    case progressive
    /// Interlaced, top field coded and displayed first.
    case tt
    /// Interlaced, bottom field coded and displayed first.
    case bb
    /// Interlaced, top field coded first, bottom displayed first.
    case tb
    /// Interlaced, bottom field coded first, top displayed first.
    case bt

    /// True for the four interlaced orders.
    public var isInterlaced: Bool { self != .progressive }

    /// True when the top field is displayed first.
    public var topFieldFirst: Bool { self == .tt || self == .bt }

    /// `progressive`, `interlaced (top field first)` …
    public var description: String {
        switch self {
        case .progressive: return "progressive"
        default: return "interlaced (\(topFieldFirst ? "top" : "bottom") field first)"
        }
    }
}

/// HDR10 mastering display colour volume (SMPTE ST 2086): chromaticities as CIE 1931 xy, luminance in nits.
public struct MasteringDisplay: Sendable, Equatable, Codable {
    /// Red, green, blue primaries, each `[x, y]`; empty when the record has none.
    public var red: [Double], green: [Double], blue: [Double]
    /// White point `[x, y]`; empty when the record has none.
    public var whitePoint: [Double]
    /// Minimum luminance in nits, if given.
    public var minLuminance: Double?
    /// Maximum luminance in nits, if given.
    public var maxLuminance: Double?

    /// Creates a record.
    public init(red: [Double] = [], green: [Double] = [], blue: [Double] = [], whitePoint: [Double] = [],
                minLuminance: Double? = nil, maxLuminance: Double? = nil) {
        self.red = red; self.green = green; self.blue = blue; self.whitePoint = whitePoint
        self.minLuminance = minLuminance; self.maxLuminance = maxLuminance
    }

    /// True when the primaries and white point are all there (x265 needs all of them and the luminance).
    public var isComplete: Bool {
        [red, green, blue, whitePoint].allSatisfy { $0.count == 2 } && minLuminance != nil && maxLuminance != nil
    }

    /// x265's `master-display` value: `G(x,y)B(x,y)R(x,y)WP(x,y)L(max,min)`, chromaticities in 0.00002 units and
    /// luminance in 0.0001 nits, as HEVC's SEI codes them. nil when incomplete.
    public var x265Value: String? {
        guard isComplete, let minL = minLuminance, let maxL = maxLuminance else { return nil }
        // The values are the file's (a rational with a zero denominator is infinite): saturated, never a trap.
        func n(_ x: Double, _ scale: Double) -> Int { Int(saturating: (x * scale).rounded()) }
        func xy(_ p: [Double]) -> String { "(\(n(p[0], 50_000)),\(n(p[1], 50_000)))" }
        return "G\(xy(green))B\(xy(blue))R\(xy(red))WP\(xy(whitePoint))L(\(n(maxL, 10_000)),\(n(minL, 10_000)))"
    }

    /// SVT-AV1's `mastering-display` value: the same layout as x265's, in CIE xy and nits as decimals (it codes them
    /// into AV1's metadata OBU itself). nil when incomplete or not finite.
    public var svtAV1Value: String? {
        guard isComplete, let minL = minLuminance, let maxL = maxLuminance,
              ([minL, maxL] + red + green + blue + whitePoint).allSatisfy(\.isFinite) else { return nil }
        func xy(_ p: [Double]) -> String { String(format: "(%.5f,%.5f)", p[0], p[1]) }
        return "G\(xy(green))B\(xy(blue))R\(xy(red))WP\(xy(whitePoint))" + String(format: "L(%.4f,%.4f)", maxL, minL)
    }
}

/// HDR10 content light level (CTA-861.3), in nits.
public struct ContentLightLevel: Sendable, Equatable, Codable {
    /// Maximum content light level.
    public var maxCLL: Int
    /// Maximum frame-average light level.
    public var maxFALL: Int

    /// Creates a record.
    public init(maxCLL: Int, maxFALL: Int) { self.maxCLL = maxCLL; self.maxFALL = maxFALL }
}

/// A Dolby Vision configuration record (`dvcC`/`dvvC`, or Matroska's block addition mapping).
public struct DolbyVision: Sendable, Equatable, Codable {
    /// Profile (5, 7, 8, 9 …).
    public var profile: Int
    /// Level.
    public var level: Int
    /// The base layer's compatibility: 0 none, 1 HDR10, 2 SDR, 4 HLG, 6 BT.2100 PQ.
    public var compatibility: Int
    /// The stream carries RPUs (the dynamic metadata).
    public var rpu: Bool

    /// Creates a record.
    public init(profile: Int, level: Int = 0, compatibility: Int = 0, rpu: Bool = true) {
        self.profile = profile; self.level = level; self.compatibility = compatibility; self.rpu = rpu
    }

    /// `8.4`, `5` …: the profile and, when the base layer is compatible with something, its compatibility id.
    public var profileName: String { compatibility > 0 ? "\(profile).\(compatibility)" : "\(profile)" }

    /// True when a decoder without Dolby Vision shows the right picture (HDR10, SDR or HLG base layer).
    public var hasCompatibleBaseLayer: Bool { [1, 2, 4, 6].contains(compatibility) }
}

/// The signal peak a tone mapper should assume, relative to 100 nits (FFmpeg's `tonemap` `peak`): the content
/// light level's MaxCLL, else the mastering display's maximum luminance, else 10 (1000 nits) — what FFmpeg's
/// `tonemap` filter finds itself after `zscale=t=linear` — with absurd metadata left out: a value below 100 nits
/// is not HDR metadata (ignored), one above 10 000 nits (PQ's ceiling) is clamped to it.
package enum SignalPeak {
    /// The default when the metadata says nothing usable (1000 nits).
    package static let fallback = 10.0

    /// The peak for the given metadata (nits).
    package static func relative(maxCLL: Int?, masteringMaxLuminance: Double?) -> Double {
        for nits in [maxCLL.map(Double.init), masteringMaxLuminance] {
            guard let nits, nits.isFinite, nits >= 100 else { continue }
            return min(nits, 10_000) / 100
        }
        return fallback
    }
}
