import Foundation


/// What `regress` measures on one exported file.
public struct Measurement: Codable, Sendable, Equatable {
    /// libavformat's container name(s).
    public var container: String
    /// Codec of each stream, in order.
    public var codecs: [String]
    /// The video's codec profile, if any.
    public var videoProfile: String?
    /// Video width in pixels, if there is a video.
    public var width: Int?
    /// Video height in pixels, if there is a video.
    public var height: Int?
    /// The video's pixel format, if any.
    public var pixelFormat: String?
    /// Video frame count, if known.
    public var frameCount: Int?
    /// Seconds.
    public var duration: Double
    /// One frame's duration (from the frame rate), the unit of the duration tolerance.
    public var frameDuration: Double?
    /// Audio channel count, if there is audio.
    public var audioChannels: Int?
    /// Audio samples per second, if there is audio.
    public var sampleRate: Int?
    /// The video's rotation in degrees (0 without one).
    public var rotation: Int
    /// The source's creation time is in the output (nil when the source has none).
    public var creationTimeKept: Bool?
    /// Audio start minus video start, in seconds (nil without both).
    public var avStartOffset: Double?
    /// Decode timestamps strictly increase in every stream.
    public var timestampsIncreasing: Bool
    /// File size in bytes.
    public var size: Int64
    /// `transcode`, `remux`, `copy` or `salvage`: the route that delivered the file.
    public var route: String
    /// True when `route` was a fallback (another route failed first); nil when it was the export's own.
    public var fallback: Bool?
    /// Luma PSNR (dB) and SSIM against the source, for a transcoded video.
    public var psnr: Double?
    /// See `psnr`.
    public var ssim: Double?
    /// For stream-copied streams: SHA-256 over every packet's bytes, per stream, and whether each equals the source's.
    public var packetChecksums: [String]?
    /// True when every `packetChecksums` entry equals the source's.
    public var packetsMatchSource: Bool?
    /// SHA-256 of the whole output file, recorded by a `--deterministic` run only, and compared exactly only when the
    /// baseline and the run both have it.
    public var outputSHA256: String?
    /// The video's colour (nil without a video, and in a baseline made before colour was measured, where it is
    /// not compared).
    public var color: Color?
    /// The `started` record's `estimatedBytes` for this export, and its error: estimate / real size − 1 (+0.10: the
    /// estimate was 10 % high). Reported, never compared with the baseline.
    public var estimatedBytes: Int64?
    /// See `estimatedBytes`.
    public var estimateError: Double?
    /// A quality-targeted export's measure (`completed.quality`): such a case is judged by `achieved` against its
    /// target, not by its size (the CRF is chosen per file, so the size may move).
    public var quality: QualityReport?

    /// Creates the value from each of its fields.
    public init(container: String, codecs: [String], videoProfile: String? = nil, width: Int? = nil, height: Int? = nil, pixelFormat: String? = nil, frameCount: Int? = nil, duration: Double, frameDuration: Double? = nil, audioChannels: Int? = nil, sampleRate: Int? = nil, rotation: Int, creationTimeKept: Bool? = nil, avStartOffset: Double? = nil, timestampsIncreasing: Bool, size: Int64, route: String, psnr: Double? = nil, ssim: Double? = nil, packetChecksums: [String]? = nil, packetsMatchSource: Bool? = nil, color: Color? = nil) {
        self.container = container; self.codecs = codecs; self.videoProfile = videoProfile; self.width = width; self.height = height; self.pixelFormat = pixelFormat; self.frameCount = frameCount; self.duration = duration; self.frameDuration = frameDuration; self.audioChannels = audioChannels; self.sampleRate = sampleRate; self.rotation = rotation; self.creationTimeKept = creationTimeKept; self.avStartOffset = avStartOffset; self.timestampsIncreasing = timestampsIncreasing; self.size = size; self.route = route; self.psnr = psnr; self.ssim = ssim; self.packetChecksums = packetChecksums; self.packetsMatchSource = packetsMatchSource; self.color = color
    }
}

extension Measurement {
    /// A video's colour as `regress` records it. Every value is written (FFmpeg's `unknown` for one the stream
    /// leaves unspecified, `none` for absent HDR metadata), so a nil value only ever means "not recorded": a baseline
    /// written before a field existed has nil there, and the comparison skips it.
    public struct Color: Codable, Sendable, Equatable {
        /// `sdr`, `hlg`, `pq` or `dolby-vision`.
        public var hdr: HDRKind?
        /// Transfer characteristic (`bt709`, `smpte2084`, `arib-std-b67` …, `unknown`).
        public var transfer: String?
        /// Colour primaries (`bt709`, `bt2020` …, `unknown`).
        public var primaries: String?
        /// Matrix coefficients (`bt709`, `bt2020nc` …, `unknown`).
        public var matrix: String?
        /// `tv`, `pc` or `unknown`.
        public var range: String?
        /// Bits per component of the pixel format.
        public var bitDepth: Int?
        /// `progressive`, `tt`, `bb`, `tb`, `bt` or `unknown`.
        public var fieldOrder: String?
        /// The mastering display (`R(x,y) G(x,y) B(x,y) WP(x,y) L(min,max)`, nits) or `none`.
        public var mastering: String?
        /// `MaxCLL n, MaxFALL n` or `none`.
        public var contentLight: String?
        /// The Dolby Vision profile and level (`8.1, level 6`) or `none`.
        public var dolbyVision: String?

        /// Creates a record; nil fields are "not recorded".
        public init(hdr: HDRKind? = nil, transfer: String? = nil, primaries: String? = nil, matrix: String? = nil,
                    range: String? = nil, bitDepth: Int? = nil, fieldOrder: String? = nil, mastering: String? = nil,
                    contentLight: String? = nil, dolbyVision: String? = nil) {
            self.hdr = hdr; self.transfer = transfer; self.primaries = primaries; self.matrix = matrix; self.range = range
            self.bitDepth = bitDepth; self.fieldOrder = fieldOrder; self.mastering = mastering
            self.contentLight = contentLight; self.dolbyVision = dolbyVision
        }

        /// Records everything `color` says, spelling out what it leaves unspecified.
        public init(_ color: VideoColor) {
            let unknown = "unknown", none = "none"
            self.init(hdr: color.hdrKind, transfer: color.transfer ?? unknown, primaries: color.primaries ?? unknown,
                      matrix: color.matrix ?? unknown, range: color.range ?? unknown, bitDepth: color.bitDepth,
                      fieldOrder: color.fieldOrder?.rawValue ?? unknown,
                      mastering: color.mastering.map(Self.describe) ?? none,
                      contentLight: color.contentLight.map { "MaxCLL \($0.maxCLL), MaxFALL \($0.maxFALL)" } ?? none,
                      dolbyVision: color.dolbyVision.map { "\($0.profileName), level \($0.level)" } ?? none)
        }

        /// `R(0.708,0.292) G(0.17,0.797) B(0.131,0.046) WP(0.3127,0.329) L(0.0001,1000)`: chromaticities to 5
        /// places (HEVC codes them in 0.00002 steps), luminance to 4 (0.0001 nit steps).
        static func describe(_ m: MasteringDisplay) -> String {
            func xy(_ label: String, _ p: [Double]) -> String? {
                p.count == 2 ? "\(label)(\(Self.number(p[0], places: 5)),\(Self.number(p[1], places: 5)))" : nil
            }
            var parts = [xy("R", m.red), xy("G", m.green), xy("B", m.blue), xy("WP", m.whitePoint)].compactMap { $0 }
            if m.minLuminance != nil || m.maxLuminance != nil {
                let minL = m.minLuminance.map { Self.number($0, places: 4) } ?? "?"
                let maxL = m.maxLuminance.map { Self.number($0, places: 4) } ?? "?"
                parts.append("L(\(minL),\(maxL))")
            }
            return parts.isEmpty ? "none" : parts.joined(separator: " ")
        }

        /// A number with at most `places` decimals and no trailing zeros (`1000`, `0.005`).
        static func number(_ x: Double, places: Int) -> String {
            var s = String(format: "%.\(places)f", x)
            if s.contains(".") {
                while s.hasSuffix("0") { s.removeLast() }
                if s.hasSuffix(".") { s.removeLast() }
            }
            return s == "-0" ? "0" : s
        }
    }
}
