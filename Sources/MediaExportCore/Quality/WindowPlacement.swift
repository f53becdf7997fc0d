/// A stretch of the output timeline the CRF search encodes and measures at each probed CRF.
public struct ProbeWindow: Codable, Sendable, Equatable {
    /// Where it starts, in seconds of the output timeline.
    public var start: Double
    /// How long it is, in seconds.
    public var length: Double
    /// Its share of the pooled score (`CRFProbe.init(crf:windows:bitRate:)`): the length of the stretch it stands for
    /// over the whole length. The weights of one placement sum to 1.
    public var weight: Double

    /// A window of the given start, length and weight.
    public init(start: Double, length: Double, weight: Double) {
        self.start = start
        self.length = length
        self.weight = weight
    }
}

/// Where the CRF search's probe windows go: the whole of a short stretch, else a few short windows spread over it.
public enum WindowPlacement {
    /// A stretch of fewer frames than this is measured whole, as one window (< 15 s at 30 fps): shorter, windows
    /// with their warm-up would be most of it.
    public static let wholeBelowFrames = 450.0
    /// The frames one window of a longer stretch measures.
    public static let measuredFrames = 40.0
    /// The most windows of a stretch.
    public static let maxWindows = 8
    /// Keyframe intervals counted as irregular (an encoder's scene cuts) when one differs from their median by more
    /// than this share of it.
    public static let irregularity = 0.2

    /// The windows of a stretch of `length` seconds at `fps` frames a second. Under `wholeBelowFrames` frames (or an
    /// unknown rate): one window, the whole stretch, weight 1. Else N = min(8, 4 + ⌊length/60⌋) windows of
    /// `measuredFrames` frames, one in the middle of each of N equal strata, weight 1/N; when the source's
    /// `keyframes` (seconds on the output timeline) are irregular, a window starts at the first keyframe in its
    /// stratum's middle half (a scene's start), where there is one. Every window lies inside `0..<length`; none for
    /// an empty or not finite length.
    public static func place(length: Double, fps: Double, keyframes: [Double] = []) -> [ProbeWindow] {
        guard length.isFinite, length > 0 else { return [] }
        guard fps.isFinite, fps > 0, length * fps >= wholeBelowFrames else { return [ProbeWindow(start: 0, length: length, weight: 1)] }
        let count = min(maxWindows, 4 + Int((length / 60).rounded(.down)))
        let stratum = length / Double(count)
        let window = min(measuredFrames / fps, stratum)
        let cuts = irregular(keyframes) ? keyframes.filter(\.isFinite).sorted() : []
        return (0..<count).map { index in
            let begin = Double(index) * stratum
            let middleHalf = (begin + stratum / 4)..<(begin + stratum * 3 / 4)
            let start = cuts.first(where: middleHalf.contains) ?? begin + stratum / 2 - window / 2
            let latest = min(begin + stratum, length) - window
            return ProbeWindow(start: max(begin, min(start, latest)), length: window, weight: 1 / Double(count))
        }
    }

    /// True when the intervals between `keyframes` differ, one from their median by more than `irregularity`: the
    /// keyframes of scene cuts, not of a fixed GOP. Fewer than two intervals: not irregular.
    public static func irregular(_ keyframes: [Double]) -> Bool {
        let times = keyframes.filter(\.isFinite).sorted()
        let intervals = zip(times.dropFirst(), times).map { $0 - $1 }.filter { $0 > 0 }
        guard intervals.count >= 2 else { return false }
        let median = intervals.sorted()[intervals.count / 2]
        return intervals.contains { abs($0 - median) > irregularity * median }
    }
}
