import Foundation

// The batch's size estimate before any plan: the source's size for a remux or copy, else bits per pixel from the CRF.

extension ExportPlanner {
    /// A rough output size in bytes. `fits`: the batch remuxes or copies the file (it fits the preset, or the preset
    /// is passthrough) — the source's size. Otherwise a transcode: bits per pixel from the CRF at the fitted
    /// displayed size (30 fps when the rate is unknown), plus the preset's audio bit rate; nil without a duration.
    package static func estimatedBytes(_ source: SourceInfo, preset: Preset, fits: Bool) -> Int64? {
        if fits { return source.size }
        guard let duration = source.duration else { return nil }
        var bits = 0.0
        if let v = source.firstVideo, let settings = preset.video {
            let shown = v.displaySize
            let size = SizeBox.fitting(width: shown.width, height: shown.height, into: settings.maxSize)
            bits += OutputSize.guessedBitsPerPixel(settings) * Double(size.width) * Double(size.height) * min(v.frameRate ?? 30, settings.maxFrameRate ?? .infinity) * duration
        }
        if source.streams.contains(where: { $0.kind == .audio }), let a = preset.audio { bits += Double(a.bitrate) * duration }
        return Int64(saturating: bits / 8)  // a displayed size from a 2³¹:1 sample aspect ratio, a file's duration
    }
}
