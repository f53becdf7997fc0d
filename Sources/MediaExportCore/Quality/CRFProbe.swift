/// One probe of the CRF search (`CRFSearch`): the plan's probe windows encoded at one CRF and measured, pooled over
/// the windows.
public struct CRFProbe: Codable, Sendable, Equatable {
    /// The CRF the windows were encoded at.
    public var crf: Int
    /// The pooled mean score of the measured frames (the windows' means weighted by their strata).
    public var score: Double
    /// The 5th percentile (nearest rank) of all measured frames' scores: the worst frames' level.
    public var p5: Double
    /// The bits a second the measured frames took.
    public var bitRate: Double

    /// A probe of the given figures.
    public init(crf: Int, score: Double, p5: Double, bitRate: Double) {
        self.crf = crf
        self.score = score
        self.p5 = p5
        self.bitRate = bitRate
    }

    /// Pools the windows of one probe: `score` = the mean of the windows' means weighted by their `weight` (equal
    /// weights when those given are not positive), `p5` over every frame of every window (`FrameScores.percentile`);
    /// windows that scored nothing are left out. Nil when no window has a score.
    public init?(crf: Int, windows: [(scores: FrameScores, weight: Double)], bitRate: Double) {
        let scored = windows.compactMap { window in window.scores.mean.map { (mean: $0, weight: window.weight, scores: window.scores) } }
        guard let metric = scored.first?.scores.metric else { return nil }
        let weights = scored.map { $0.weight.isFinite ? max(0, $0.weight) : 0 }
        let total = weights.reduce(0, +)
        let score = total > 0
            ? zip(scored, weights).reduce(0.0) { $0 + $1.0.mean * $1.1 } / total
            : scored.reduce(0.0) { $0 + $1.mean } / Double(scored.count)
        var all = FrameScores(metric: metric, every: 1)
        for window in scored { for value in window.scores.values { all.append(Double(value)) } }
        self.init(crf: crf, score: score, p5: all.p5 ?? score, bitRate: bitRate)
    }
}
