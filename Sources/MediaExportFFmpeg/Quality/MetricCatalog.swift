internal import CFFmpeg
import MediaExportCore

/// Which quality metrics this FFmpeg build can measure: a metric's filter must be compiled in (`libvmaf` often is not).
package enum MetricCatalog {
    /// The metric's filter (`QualityMetric.filterName`) is in this libavfilter.
    package static func available(_ metric: QualityMetric) -> Bool {
        avfilter_get_by_name(metric.filterName) != nil
    }
}

extension MetricCatalog {
    /// Why `metric` cannot be measured here, as a usage error (exit 64); nil when it can. VMAF is refused in any
    /// case: FFmpeg 5.1's `libvmaf` filter writes a log at the end, no per-frame score to judge an encode by.
    package static func refusal(_ metric: QualityMetric) -> ExportError? {
        let library = "libavfilter " + FFmpegVersions.format(cff_avfilter_version())
        if !available(metric) {
            return .usage(reason: "\(metric.rawValue) needs FFmpeg's \(metric.filterName) filter; this FFmpeg (\(library)) is built "
                              + "without \(metric.filterName): use ssim:… or psnr:…")
        }
        if metric == .vmaf {
            return .usage(reason: "vmaf: this FFmpeg's libvmaf filter (\(library)) gives no per-frame score to measure an encode with: "
                              + "use ssim:… or psnr:…")
        }
        return nil
    }
}
