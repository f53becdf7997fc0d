import Foundation


/// What `regress` measures on one exported file.
public struct Measurement: Codable, Sendable, Equatable {
    public var container: String
    public var codecs: [String]
    public var videoProfile: String?
    public var width: Int?
    public var height: Int?
    public var pixelFormat: String?
    public var frameCount: Int?
    public var duration: Double
    /// One frame's duration (from the frame rate), the unit of the duration tolerance.
    public var frameDuration: Double?
    public var audioChannels: Int?
    public var sampleRate: Int?
    public var rotation: Int
    /// The source's creation time is in the output (nil when the source has none).
    public var creationTimeKept: Bool?
    /// Audio start minus video start, in seconds (nil without both).
    public var avStartOffset: Double?
    /// Decode timestamps strictly increase in every stream.
    public var timestampsIncreasing: Bool
    public var size: Int64
    /// `transcode`, `remux`, `copy`, or `fallback:ROUTE`.
    public var route: String
    /// Luma PSNR (dB) and SSIM against the source, for a transcoded video.
    public var psnr: Double?
    public var ssim: Double?
    /// For stream-copied streams: SHA-256 over every packet's bytes, per stream, and whether each equals the source's.
    public var packetChecksums: [String]?
    public var packetsMatchSource: Bool?

    /// Creates the value from each of its fields.
    public init(container: String, codecs: [String], videoProfile: String? = nil, width: Int? = nil, height: Int? = nil, pixelFormat: String? = nil, frameCount: Int? = nil, duration: Double, frameDuration: Double? = nil, audioChannels: Int? = nil, sampleRate: Int? = nil, rotation: Int, creationTimeKept: Bool? = nil, avStartOffset: Double? = nil, timestampsIncreasing: Bool, size: Int64, route: String, psnr: Double? = nil, ssim: Double? = nil, packetChecksums: [String]? = nil, packetsMatchSource: Bool? = nil) {
        self.container = container; self.codecs = codecs; self.videoProfile = videoProfile; self.width = width; self.height = height; self.pixelFormat = pixelFormat; self.frameCount = frameCount; self.duration = duration; self.frameDuration = frameDuration; self.audioChannels = audioChannels; self.sampleRate = sampleRate; self.rotation = rotation; self.creationTimeKept = creationTimeKept; self.avStartOffset = avStartOffset; self.timestampsIncreasing = timestampsIncreasing; self.size = size; self.route = route; self.psnr = psnr; self.ssim = ssim; self.packetChecksums = packetChecksums; self.packetsMatchSource = packetsMatchSource
    }
}
