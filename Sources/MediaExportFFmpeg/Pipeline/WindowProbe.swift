internal import CFFmpeg
import MediaExportCore

extension SampleEncode {
    /// One probe of a CRF search (`CRFSearch`): `plan`'s main video alone, encoded at `crf` on each of `windows`
    /// exactly as the plan says (size, filters, tone mapping, encoder speed), its measured frames scored with `metric`
    /// against the frames given to the encoder, pooled by the windows' weights. A window that covers the whole
    /// stretch is the whole encode. nil when the plan encodes no video by CRF, a window fails, or cancelled.
    package static func probe(source: ProbedSource, plan: ExportPlan, crf: Int, windows: [ProbeWindow], metric: QualityMetric,
                              cancel: CancelToken, codecs: CodecRun, activity: () -> Void) -> CRFProbe? {
        guard let k = plan.crfVideo else { return nil }
        let main = plan.streams[k].index
        guard var run = Run(source: source, plan: plan.withVideoCRF(crf).keeping(only: { $0.index == main }, reason: "not probed"),
                            cancel: cancel, codecs: codecs) else { return nil }
        run.scoring = Transcoder.Scoring(metric: metric, every: 1)
        var parts: [(scores: FrameScores, weight: Double)] = []
        var bytes = 0.0, seconds = 0.0
        for window in windows {
            if cancel.isSet { return nil }
            let whole = window.start <= 0 && window.length >= run.stretch
            guard let sampled = whole ? run.encode(from: 0, length: run.stretch, lead: 0, activity: activity)
                                      : run.sample(from: window.start, length: window.length, activity: activity),
                  let scores = sampled.scores, scores.count > 0 else { return nil }
            parts.append((scores, window.weight))
            bytes += Double(whole ? sampled.video.bytes : sampled.video.windowBytes)
            seconds += whole ? run.stretch : Double(sampled.video.windowFrames) / run.fps
        }
        guard seconds > 0 else { return nil }
        return CRFProbe(crf: crf, windows: parts, bitRate: bytes * 8 / seconds)
    }
}

extension SampleEncode {
    /// The stretch of `plan`'s main video encoded by CRF, in seconds, and its frames a second (the source's, at most
    /// a frame-rate cap's): what a quality search places its windows on. nil when there is none to sample.
    package static func stretch(source: ProbedSource, plan: ExportPlan) -> (length: Double, fps: Double)? {
        Run(source: source, plan: plan, cancel: CancelToken(), codecs: CodecRun()).map { ($0.stretch, $0.fps) }
    }
}
