/// A measured picture quality an encode can be held to: FFmpeg's `ssim` (all planes, 0…1) or `psnr` (dB) filters,
/// or VMAF (0…100) where FFmpeg is built with `libvmaf`.
public enum QualityMetric: String, Codable, Sendable, CaseIterable {
    case ssim
    case psnr
    case vmaf

    /// The libavfilter filter that measures it.
    public var filterName: String {
        switch self {
        case .ssim: "ssim"
        case .psnr: "psnr"
        case .vmaf: "libvmaf"
        }
    }

    /// How far below its target a measured score may fall and still meet it: the metric's noise between runs.
    public var tolerance: Double {
        switch self {
        case .ssim: 0.001
        case .psnr: 0.1
        case .vmaf: 0.5
        }
    }

    /// The highest PSNR counted (dB): identical pictures measure infinity, which would swamp a mean.
    public static let psnrCap = 100.0
}
