import Foundation
import MediaExportCore
import MediaExportFFmpeg
#if canImport(Glibc)
import Glibc
#endif

/// The CRF a quality target needs for one export's plan (`CRFSearch`'s steps, run): short windows of the main video
/// encoded exactly as the plan says at two or three CRFs, each measured against the frames given to the encoder,
/// the CRF interpolated for the target. A clip under `WindowPlacement.wholeBelowFrames` is probed whole. The result is
/// kept in the search cache under the file's identity and every setting that shapes the encode, so a rerun reads it.
///
/// Deterministic: the steps depend on the scores alone (no time budget), and the scores on the plan and the codecs'
/// threads, as the output does.
struct QualitySearch {
    let target: QualityTarget
    let source: ProbedSource
    /// The plan at the preset's CRF.
    let plan: ExportPlan
    let cancel: CancelToken
    let codecs: CodecRun

    /// What the search chose: the CRF, and how (`QualityReport.Search`).
    struct Chosen: Codable {
        var crf: Int
        var search: QualityReport.Search
    }

    /// Most probes: one more than `CRFSearch` asks for in the worst case, a guard against a step that never settles.
    static let probeLimit = 4

    /// Searches (or reads the cache under `files`' identity); nil when the plan has no video encoded by CRF to search
    /// on, or a probe failed (the preset's CRF then stands, measured as any).
    func run(cache: SearchCache?, files: [String], activity: () -> Void) throws -> Chosen? {
        guard let main = mainVideo, let stretch = SampleEncode.stretch(source: source, plan: plan) else { return nil }
        let key = cache == nil ? nil : SearchCache.key(files: files, settings: settingsText(main))
        if let key, var kept = cache?.value(Chosen.self, for: key) {
            kept.search.cached = true
            kept.search.cpuSeconds = 0
            return kept
        }
        let bounds = CRFSearch.bounds(main.settings.codec.profile, target)
        let first = CRFSearch.firstProbe(target, crfAboveX264: main.settings.codec.profile.crfAboveX264, bounds: bounds)
        let windows = WindowPlacement.place(length: stretch.length, fps: stretch.fps)
        let whole = windows.count == 1
        let began = Self.cpuSeconds()
        var probes: [CRFProbe] = []
        while probes.count <= Self.probeLimit {
            let step = CRFSearch.next(probes, target: target, bounds: bounds, first: first, maxProbes: whole ? 2 : 3)
            guard case .probe(let crf) = step, probes.count < Self.probeLimit else {
                let (crf, unreachable) = Self.settle(step, probes: probes, first: first)
                let search = QualityReport.Search(probes: probes, windows: windows.count, whole: whole,
                                                  cpuSeconds: Self.cpuSeconds() - began, unreachable: unreachable)
                let chosen = Chosen(crf: crf, search: search)
                if let key { cache?.keep(chosen, for: key) }
                return chosen
            }
            guard let probe = SampleEncode.probe(source: source, plan: plan, crf: crf, windows: windows, metric: target.metric,
                                                 cancel: cancel, codecs: codecs, activity: activity) else {
                if cancel.isSet { throw ExportError.cancelled }
                return nil
            }
            probes.append(probe)
        }
        return nil
    }

    /// The CRF a final step names (a probe past the limit: the best probe that met the target, else the lowest).
    private static func settle(_ step: CRFSearch.Step, probes: [CRFProbe], first: Int) -> (Int, Bool) {
        switch step {
        case .chosen(let crf): return (crf, false)
        case .unreachable(let crf): return (crf, true)
        case .probe: return (probes.map(\.crf).min() ?? first, false)
        }
    }

    /// The main video's plan (the first encoded by CRF).
    private var mainVideo: VideoPlan? {
        guard let k = plan.crfVideo, case .transcodeVideo(let v) = plan.streams[k].action else { return nil }
        return v
    }

    /// Everything that shapes the probes' scores: the search's version, the target and its bounds, the main video's
    /// plan (size, filters, encoder settings) without its CRF, the stretch read, the codecs' threads, the libraries.
    private func settingsText(_ main: VideoPlan) -> String {
        var video = main
        video.settings.crf = 0
        return ["quality-search 1", "\(target)", "\(video)", "\(plan.timeline)", "\(codecs)", FFmpegVersions.lines.joined(separator: ";")]
            .joined(separator: "\n")
    }

    /// CPU seconds this process has used (user and system), what the search's cost is measured in.
    static func cpuSeconds() -> Double {
        var usage = rusage()
        guard getrusage(RUSAGE_SELF.rawValue, &usage) == 0 else { return 0 }
        func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }
}

extension ExportRequest {
    /// Why the preset's quality target cannot be measured with this FFmpeg (`vmaf` without `libvmaf`), as a usage
    /// error (exit 64) to refuse the export or batch before any work; nil when it can, or there is none.
    public var qualityRefusal: ExportError? {
        preset.video?.quality.flatMap { MetricCatalog.refusal($0.metric) }
    }
}
