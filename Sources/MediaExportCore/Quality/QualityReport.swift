import Foundation

/// What a quality-targeted export (`--quality`, preset `video.quality`) chose and reached: the CRF the search chose,
/// how it searched, and the whole output measured against the frames given to the encoder — the `completed` record's
/// `quality`, the summary's line and the batch row's columns.
public struct QualityReport: Codable, Sendable, Equatable {
    /// The metric measured.
    public var metric: QualityMetric
    /// The mean score asked for.
    public var target: Double
    /// The output's mean score over the frames scored (the ffmpeg CLI's summary figure); nil when not measured
    /// (the source's video was kept, or a size limit encoded by bit rate without a measure).
    public var achieved: Double?
    /// The 5th percentile of the per-frame scores: the level of the worst frames.
    public var p5: Double?
    /// The CRF the output was encoded at (after any corrective encode); nil when the video was not encoded by CRF.
    public var crf: Int?
    /// The preset's own CRF: where the search started, and what `savedBytes` compares with.
    public var presetCRF: Int
    /// Frames scored, and every how many frames one was (1: each; long or large files score every k-th).
    public var frames: Int = 0
    /// Every how many frames one was scored.
    public var every: Int = 1
    /// The search: its probes (one CRF each, pooled over the windows), the windows, CPU seconds, whether it was
    /// read from the cache of an earlier run (then nothing was encoded for it).
    public var search: Search?
    /// The one corrective encode, when the first full encode measured short of the target.
    public var corrective: Corrective?
    /// True when `achieved` is at least `target` less the metric's tolerance (`QualityMetric.tolerance`).
    public var met: Bool?
    /// Bytes the output is predicted to save against an encode at the preset's CRF (from the probes' rates; negative:
    /// it spent more to meet the target); nil when not predicted.
    public var savedBytes: Int64?
    /// What else to know, in words: the size limit won, the target is out of reach within the CRF bounds, the source
    /// was kept.
    public var notes: [String] = []

    /// A report of a target, before anything is measured.
    public init(target: QualityTarget, presetCRF: Int) {
        metric = target.metric
        self.target = target.target
        self.presetCRF = presetCRF
    }

    /// How the CRF was chosen.
    public struct Search: Codable, Sendable, Equatable {
        /// The probes in the order made.
        public var probes: [CRFProbe]
        /// The windows each probe encoded (1 with `whole`: the whole stretch).
        public var windows: Int
        /// True when the one window was the whole stretch (a short clip).
        public var whole: Bool
        /// CPU seconds the search took (0 when cached).
        public var cpuSeconds: Double
        /// True when the CRF came from the cache of an earlier run with the same file and settings.
        public var cached: Bool
        /// True when even the lowest CRF allowed missed the target on the windows.
        public var unreachable: Bool

        /// Creates the value from each of its fields.
        public init(probes: [CRFProbe], windows: Int, whole: Bool, cpuSeconds: Double, cached: Bool = false, unreachable: Bool = false) {
            self.probes = probes; self.windows = windows; self.whole = whole; self.cpuSeconds = cpuSeconds
            self.cached = cached; self.unreachable = unreachable
        }
    }

    /// A first encode that missed the target, encoded again at a lower CRF.
    public struct Corrective: Codable, Sendable, Equatable {
        /// The first encode's CRF.
        public var fromCRF: Int
        /// What the first encode measured.
        public var achieved: Double

        /// Creates the value from each of its fields.
        public init(fromCRF: Int, achieved: Double) { self.fromCRF = fromCRF; self.achieved = achieved }
    }

    /// Takes the output's measure: `achieved` (rounded: SSIM to 5 decimals, dB to 3), `p5`, the frames and `met`.
    public mutating func measured(_ scores: FrameScores) {
        guard let mean = scores.mean else { return }
        let scale = metric == .ssim ? 1e5 : 1e3
        achieved = (mean * scale).rounded() / scale
        p5 = scores.p5.map { ($0 * scale).rounded() / scale }
        frames = scores.count
        every = scores.every
        met = mean >= target - metric.tolerance
    }

    /// True when a measure fell short of the target by more than the tolerance.
    public var missed: Bool { met == false }

    /// The summary's line: `ssim 0.97123 (p5 0.9655) ≥ 0.97 at CRF 29; 2 probes on 4 windows, 3.1 s CPU`.
    public var summary: String {
        let digits = metric == .ssim ? "%.5f" : "%.2f"
        var text = metric.rawValue + " " + (achieved.map { String(format: digits, $0) } ?? "not measured")
        if let p5 { text += " (p5 " + String(format: digits, p5) + ")" }
        text += (met == false ? " < " : " ≥ ") + QualityTarget(metric: metric, target: target).text.dropFirst(metric.rawValue.count + 1)
        if let crf { text += " at CRF \(crf)" }
        if let c = corrective { text += " (CRF \(c.fromCRF) measured " + String(format: digits, c.achieved) + ": encoded again)" }
        if let s = search {
            text += s.cached ? "; CRF from the cache of an earlier search"
                : String(format: "; %d probe%@ on %@, %.1f s CPU", s.probes.count, s.probes.count == 1 ? "" : "s",
                         s.whole ? "the whole clip" : "\(s.windows) windows", s.cpuSeconds)
        }
        if every > 1 { text += "; every \(every)th frame measured" }
        return text
    }

    /// The `WARNING:` line of an output measured short of its target, even after its corrective encode; nil otherwise.
    public var warning: String? {
        guard met == false, let achieved else { return nil }
        return "quality \(metric.rawValue) \(achieved) is under the target \(target) (tolerance \(metric.tolerance))"
            + (crf.map { " at CRF \($0)" } ?? "") + (notes.isEmpty ? "" : ": " + notes.joined(separator: "; "))
    }
}
