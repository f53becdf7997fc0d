internal import CFFmpeg
import MediaExportCore

/// Which quality metrics this FFmpeg build can measure: a metric's filter must be compiled in (`libvmaf` often is not).
package enum MetricCatalog {
    /// The metric's filter (`QualityMetric.filterName`) is in this libavfilter.
    package static func available(_ metric: QualityMetric) -> Bool {
        avfilter_get_by_name(metric.filterName) != nil
    }
}
