internal import CFFmpeg
import MediaExportCore

extension Transcoder {
    /// What to measure during a run (`Transcoder.scoring`): the main video's encode, scored with `metric` on
    /// every `every`-th frame (nil: as often as `ScoringTap.every` allows).
    package struct Scoring: Sendable, Equatable {
        /// The metric.
        package var metric: QualityMetric
        /// Every how many frames one is scored; nil: chosen by the memory rule.
        package var every: Int?

        /// Scoring with `metric`, every `every`-th frame (nil: chosen).
        package init(metric: QualityMetric, every: Int? = nil) {
            self.metric = metric
            self.every = every
        }
    }

    /// Gives the first video transcode among `stages` a tap for `scoring`, scoring every k-th frame by the memory rule and
    /// at most `FrameScores.maxScored` frames when `scoring.every` is not given; only the frames of `measuredWindow`
    /// when one is set (a sample's measured frames, not those that warm the encoder up).
    func attachScoring(_ scoring: Scoring, to stages: [StreamStage]) throws {
        guard let stage = stages.lazy.compactMap({ $0 as? VideoTranscodeStage }).first else { return }
        let video = stage.plan
        // The frames the run will give the encoder, from the planned length and the output's rate (nil: unknown).
        let rate = av_q2d(stage.outputStream.pointee.avg_frame_rate)
        let frames = expectedDuration.flatMap { rate > 0 && $0.isFinite ? Int(($0 * rate).rounded(.up)) : nil }
        let every = scoring.every ?? ScoringTap.every(width: video.width, height: video.height, format: av_get_pix_fmt(video.pixelFormat),
                                                      frames: frames)
        stage.scoring = try ScoringTap(metric: scoring.metric, every: every, outputStream: stage.outputStream, path: stage.path,
                                       window: measuredWindow)
    }

    /// The scores of the run's tap, once its encoder has ended (nil: nothing was scored).
    func finishScoring(_ stages: [StreamStage]) throws -> FrameScores? {
        try stages.lazy.compactMap({ ($0 as? VideoTranscodeStage)?.scoring }).first?.finish()
    }
}
