/// The per-frame scores of one metric over an encode (`ScoringTap`): every `every`-th frame given to the encoder,
/// scored against what the encoder made of it.
public struct FrameScores: Codable, Sendable, Equatable {
    /// The metric the values are in.
    public var metric: QualityMetric
    /// One score a scored frame, in presentation order.
    public private(set) var values: [Float] = []
    /// Every how many frames one was scored (1: each).
    public var every: Int
    /// Frames meant to be scored that found no partner (a reference the decoder never gave back, or the reverse):
    /// 0 in a sound run.
    public var unpaired = 0

    /// No scores yet.
    public init(metric: QualityMetric, every: Int) {
        self.metric = metric
        self.every = max(1, every)
    }

    /// Adds one frame's score.
    public mutating func append(_ score: Double) { values.append(Float(score)) }

    /// Frames scored.
    public var count: Int { values.count }

    /// The mean score (what the ffmpeg CLI's summary line gives: the mean of the per-frame values); nil when none.
    public var mean: Double? {
        values.isEmpty ? nil : values.reduce(0.0) { $0 + Double($1) } / Double(values.count)
    }

    /// The 5th percentile (nearest rank): the worst frames' level; nil when none.
    public var p5: Double? { percentile(5) }

    /// The `p`-th percentile (0…100, nearest rank); nil when nothing was scored.
    public func percentile(_ p: Double) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
        return Double(sorted[min(max(rank, 1), sorted.count) - 1])
    }

    /// Bytes the scoring may hold in reference frames (it holds one per frame the encoder delays).
    public static let memoryBudget = 64 << 20

    /// Frames scored at most over one encode: a longer file scores every k-th frame.
    public static let maxScored = 40_000

    /// Every how many frames to score so that the frames held while the encoder delays `delay` of them stay within
    /// `memoryBudget`, and at most `maxScored` are scored of `frames` (nil: unknown).
    public static func every(frameBytes: Int, delay: Int, frames: Int? = nil) -> Int {
        let held = max(1, delay) * max(0, frameBytes)
        let forMemory = (held + memoryBudget - 1) / memoryBudget
        let forCount = frames.map { ($0 + maxScored - 1) / maxScored } ?? 1
        return max(1, forMemory, forCount)
    }
}
