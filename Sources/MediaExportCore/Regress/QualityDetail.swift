import Foundation

/// The frame-by-frame view of a transcode's quality against its source, for `regress --html`: each paired frame's
/// luma PSNR and SSIM, and the pictures of the worst one (lowest PSNR) as grayscale PNGs of the luma.
public struct QualityDetail: Codable, Sendable, Equatable {
    /// One paired frame: the output's presentation time (seconds from its start) and its scores.
    public struct Frame: Codable, Sendable, Equatable {
        /// Output time in seconds.
        public var time: Double
        /// Luma PSNR in dB (100 for identical pictures).
        public var psnr: Double
        /// Luma SSIM (1 for identical pictures).
        public var ssim: Double

        /// Creates a frame's scores.
        public init(time: Double, psnr: Double, ssim: Double) { self.time = time; self.psnr = psnr; self.ssim = ssim }
    }

    /// Every paired frame in output order.
    public var frames: [Frame]
    /// The index in `frames` of the worst frame (the first with the lowest PSNR).
    public var worstIndex: Int
    /// The time of the source picture the worst frame was paired with, in seconds from the source's start (the
    /// clock a trim counts on): the worst frame's output time mapped through the export's timeline.
    public var worstSourceTime: Double
    /// The worst output frame's luma as PNG bytes (nil when it could not be made). Left out of JSON, so
    /// `regress --json` records stay small.
    public var outputPNG: Data?
    /// The source picture it was compared with (scaled to the output's size, as measured), as PNG bytes; left out
    /// of JSON too.
    public var sourcePNG: Data?

    /// Creates a detail record.
    public init(frames: [Frame], worstIndex: Int, worstSourceTime: Double, outputPNG: Data? = nil, sourcePNG: Data? = nil) {
        self.frames = frames; self.worstIndex = worstIndex; self.worstSourceTime = worstSourceTime
        self.outputPNG = outputPNG; self.sourcePNG = sourcePNG
    }

    /// The worst frame, when there is one.
    public var worst: Frame? { frames.indices.contains(worstIndex) ? frames[worstIndex] : nil }

    private enum CodingKeys: String, CodingKey { case frames, worstIndex, worstSourceTime }
}
