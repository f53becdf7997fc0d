import Foundation

/// The CRF search of a quality target (`--quality`), as pure arithmetic: which CRF to probe next, which to encode the
/// file at, the bit rate a CRF should take and the CRF of a corrective encode. CRFs are integers (presets' `video.crf`
/// is one; SVT-AV1 takes no other). Scores are compared in a space where they fall about linearly with the CRF
/// (`linear`); the answers are deterministic, finite and inside the bounds for any input: a probe whose score is not
/// finite counts as missing the target by an unknown amount.
public enum CRFSearch {
    /// What to do next.
    public enum Step: Equatable, Sendable {
        /// Encode the probe windows at this CRF next.
        case probe(Int)
        /// The CRF to encode the file at.
        case chosen(Int)
        /// Even the lowest CRF allowed misses the target by more than the metric's tolerance: encode at this CRF
        /// (the lowest bound) and say that the target was not met.
        case unreachable(Int)
    }

    /// The CRFs searched on x264's scale when the target names none: below 12 the bytes grow with no visible gain,
    /// above 40 the pictures fall apart. Other encoders' sit `crfAboveX264` higher.
    public static let defaultBounds = 12...40

    /// How far a probe extrapolated from one or two others may lie from the nearest: about 5 dB of SSIM.
    public static let maxJump = 10

    /// A bracket of the target at most this many CRFs wide is narrow enough to interpolate in without a further probe.
    public static let narrowBracket = 4

    /// The CRFs the search may choose from for `target` on an encoder of CRF scale `crfRange` sitting `crfAboveX264`
    /// steps above x264's (`bounds(_:_:)` reads both from its `EncoderProfile`): `defaultBounds` shifted by
    /// `crfAboveX264` (SVT-AV1: 24…52), narrowed by the target's `minCRF`/`maxCRF` (rounded inwards) and by
    /// `crfRange`. When the target's own bounds lie wholly outside the default ones, the target's are taken (within
    /// `crfRange`).
    public static func bounds(crfRange scale: ClosedRange<Int>, crfAboveX264: Int, _ target: QualityTarget) -> ClosedRange<Int> {
        let low = target.minCRF.map { integer($0.rounded(.up), in: scale) }
        let high = target.maxCRF.map { integer($0.rounded(.down), in: scale) }
        let lower = max(low ?? scale.lowerBound, defaultBounds.lowerBound + crfAboveX264, scale.lowerBound)
        let upper = min(high ?? scale.upperBound, defaultBounds.upperBound + crfAboveX264, scale.upperBound)
        if lower <= upper { return lower...upper }
        let own = (low ?? scale.lowerBound, high ?? scale.upperBound)
        return own.0 <= own.1 ? own.0...own.1 : own.0...own.0
    }

    /// `score` in a space where it falls about linearly with the CRF: SSIM as `-10·log10(1-ssim)` dB (the `ssim`
    /// filter's own dB; at most 60 dB, which an SSIM of 1 reaches), PSNR and VMAF as they are.
    public static func linear(_ score: Double, _ metric: QualityMetric) -> Double {
        guard metric == .ssim else { return score }
        return score >= 1 ? maxSSIMdB : min(maxSSIMdB, -10 * log10(1 - score))
    }

    /// The highest SSIM in dB `linear` gives (an SSIM of 1 − 10⁻⁶ or more).
    public static let maxSSIMdB = 60.0

    /// How much `linear` falls a CRF step on a typical clip, used until two probes measure it: SSIM −0.55 dB
    /// (x264 medium: 0.53 on mandelbrot, 0.65 on testsrc2), PSNR −0.5 dB, VMAF −1.
    public static func defaultSlope(_ metric: QualityMetric) -> Double {
        switch metric {
        case .ssim: -0.55
        case .psnr: -0.5
        case .vmaf: -1.0
        }
    }

    /// Where the search starts: the CRF (on an encoder's scale `crfAboveX264` above x264's) at which a typical clip
    /// reaches `aim(target)`, inside `bounds`. The typical clip is the median of bench/quality-target.sh's 22 (x264
    /// medium at CRF 28: SSIM 0.978, 16.6 dB; PSNR about 38 dB), moved by `defaultSlope`: SSIM 0.97 starts at 30,
    /// 0.99 at 22. A start near the answer saves a probe, and a probe at a low CRF costs the most CPU.
    public static func firstProbe(_ target: QualityTarget, crfAboveX264: Int, bounds: ClosedRange<Int>) -> Int {
        let (anchor, typical): (Int, Double) = switch target.metric {
        case .ssim: (28, linear(0.978, .ssim))
        case .psnr: (28, 38)
        case .vmaf: (28, 93)
        }
        let crf = Double(anchor + crfAboveX264) + (linear(aim(target), target.metric) - typical) / defaultSlope(target.metric)
        return integer(crf.rounded(), in: bounds)
    }

    /// The score the search aims at: the target plus a quarter of the metric's tolerance, so that a file measured
    /// a little below its windows still meets it.
    public static func aim(_ target: QualityTarget) -> Double {
        target.target + 0.25 * target.metric.tolerance
    }

    /// The next step given the probes so far, in the order made. `first` is the CRF to start from (the preset's,
    /// clamped to `bounds`). Rules: no probe → probe `first`; the second probe is the CRF the first predicts with
    /// `defaultSlope` for `aim` (at most `maxJump` away, at least 1); a further probe only while the probes do not
    /// bracket the target, or bracket it more than `narrowBracket` CRFs apart (secant extrapolation or
    /// interpolation); at most `maxProbes` probes. `maxProbes` 2 is the one-window case (the whole stretch: a probe
    /// costs a whole encode): a third is made only when the second missed the target by more than the metric's
    /// tolerance (no CRF near the target is known yet) and the two do not settle it. The chosen CRF is interpolated
    /// for `aim` and floored, never above a probe that missed the target nor below the highest below it that met
    /// it; a probe at the lowest bound that misses by more than the tolerance → `.unreachable`.
    public static func next(_ probes: [CRFProbe], target: QualityTarget, bounds: ClosedRange<Int>, first: Int, maxProbes: Int) -> Step {
        guard !probes.isEmpty else { return .probe(min(max(first, bounds.lowerBound), bounds.upperBound)) }
        let search = Search(probes: probes, target: target, bounds: bounds)
        if search.unreachable { return .unreachable(bounds.lowerBound) }
        let missedSecond = probes.count >= 2 && search.misses(probes[1], by: target.metric.tolerance)
        let limit = max(1, maxProbes) + (maxProbes == 2 && missedSecond ? 1 : 0)
        guard probes.count < limit, let crf = search.nextProbe(), !probes.contains(where: { $0.crf == crf }) else {
            return .chosen(search.chosen())
        }
        return .probe(crf)
    }

    /// The bit rate the probes predict at `crf`: `log2(bitRate)` linear in the CRF through the two probes nearest
    /// it (a slope of −1/6 a step, halving every 6, with one probe or when noise makes the two disagree). Nil
    /// without a probe of a positive, finite bit rate.
    public static func predictedBitRate(_ probes: [CRFProbe], crf: Int) -> Double? {
        let points = probes.filter { $0.bitRate.isFinite && $0.bitRate > 0 }.map { Point(crf: $0.crf, value: log2($0.bitRate)) }
        guard let (near, other) = nearest(points, to: crf) else { return nil }
        let perStep = slope(near, other, default: -1.0 / 6)
        return pow(2, min(max(near.value + perStep * Double(crf - near.crf), -1000), 1000))
    }

    /// The CRF of the one corrective encode after the full file measured `achieved` at `crf`, below the target by
    /// more than the tolerance: lower by the steps the probes' slope near `crf` (`defaultSlope` with fewer than two
    /// probes) says `aim` is away, at least 1 (1 too when `achieved` is not finite), at least `bounds.lowerBound`.
    /// Nil when `crf` is already at the lower bound.
    public static func corrective(crf: Int, achieved: Double, target: QualityTarget, probes: [CRFProbe], bounds: ClosedRange<Int>) -> Int? {
        guard crf > bounds.lowerBound else { return nil }
        let metric = target.metric
        let points = probes.filter(\.score.isFinite).map { Point(crf: $0.crf, value: linear($0.score, metric)) }
        let perStep = nearest(points, to: crf).map { slope($0.0, $0.1, default: defaultSlope(metric)) } ?? defaultSlope(metric)
        let gap = achieved.isFinite ? (linear(aim(target), metric) - linear(achieved, metric)) / -perStep : 0
        let steps = max(1, integer(gap.rounded(.up), in: 1...max(1, crf - bounds.lowerBound)))
        return max(bounds.lowerBound, crf - steps)
    }
}

extension CRFSearch {
    /// A probe's CRF and its score in the linear space (or log2 of its bit rate).
    struct Point: Equatable {
        var crf: Int
        var value: Double
    }

    /// `x` as an integer inside `range` (`x` is rounded already; not a number → the lower bound, the safe side).
    static func integer(_ x: Double, in range: ClosedRange<Int>) -> Int {
        guard !x.isNaN else { return range.lowerBound }
        return Int(min(max(x, Double(range.lowerBound)), Double(range.upperBound)))
    }

    /// The secant slope through two points of different CRFs when it falls (noise can make it flat or rising),
    /// else `fallback`.
    static func slope(_ a: Point, _ b: Point?, default fallback: Double) -> Double {
        guard let b, b.crf != a.crf else { return fallback }
        let slope = (b.value - a.value) / Double(b.crf - a.crf)
        return slope.isFinite && slope < 0 ? slope : fallback
    }

    /// The point nearest `crf` and the nearest other of another CRF (ties: the lower CRF); nil when none.
    static func nearest(_ points: [Point], to crf: Int) -> (Point, Point?)? {
        let sorted = points.sorted { (abs($0.crf - crf), $0.crf) < (abs($1.crf - crf), $1.crf) }
        guard let near = sorted.first else { return nil }
        return (near, sorted.first { $0.crf != near.crf })
    }
}

extension CRFSearch {
    /// The probes so far read against a target: the lowest CRF that missed it and the highest below that which met
    /// it (a bracket when both are known), and the CRFs they point to.
    struct Search {
        /// The probes, in the order made.
        let probes: [CRFProbe]
        /// The target and its metric.
        let target: QualityTarget
        /// The CRFs allowed.
        let bounds: ClosedRange<Int>
        /// `aim(target)` in the linear space.
        let aim: Double
        /// The lowest-CRF probe that missed the target (below it, or not finite).
        let missed: CRFProbe?
        /// The highest-CRF probe that met the target below `missed` (of all, without one).
        let met: CRFProbe?

        /// Reads `probes` against `target`.
        init(probes: [CRFProbe], target: QualityTarget, bounds: ClosedRange<Int>) {
            self.probes = probes
            self.target = target
            self.bounds = bounds
            aim = CRFSearch.linear(CRFSearch.aim(target), target.metric)
            let missed = probes.filter { !($0.score.isFinite && $0.score >= target.target) }.min { ($0.crf, $0.score) < ($1.crf, $1.score) }
            self.missed = missed
            met = probes.filter { $0.score.isFinite && $0.score >= target.target && $0.crf < missed?.crf ?? .max }
                .max { ($0.crf, -$0.score) < ($1.crf, -$1.score) }
        }

        /// True when `probe` scored below the target by more than `tolerance` (or not a finite score).
        func misses(_ probe: CRFProbe, by tolerance: Double) -> Bool {
            !(probe.score.isFinite && probe.score >= target.target - tolerance)
        }

        /// True when a probe at (or below) the lowest bound missed the target by more than the metric's tolerance.
        var unreachable: Bool {
            probes.contains { $0.crf <= bounds.lowerBound && misses($0, by: target.metric.tolerance) }
        }

        /// The CRF to probe next, nil when the probes settle it: inside a bracket wider than `narrowBracket`, beyond
        /// the probe that met (up to `maxJump` higher) or below the one that missed (up to `maxJump` lower).
        func nextProbe() -> Int? {
            let crf: Int
            switch (met, missed) {
            case let (met?, missed?):
                guard missed.crf - met.crf > narrowBracket else { return nil }
                crf = integer(interpolate(met, missed).rounded(), in: (met.crf + 1)...(missed.crf - 1))
            case let (met?, nil):
                guard met.crf < bounds.upperBound else { return nil }
                crf = integer(extrapolate(from: met).rounded(), in: (met.crf + 1)...(met.crf + maxJump))
            case let (nil, missed?):
                guard missed.crf > bounds.lowerBound else { return nil }
                crf = integer(extrapolate(from: missed).rounded(), in: (missed.crf - maxJump)...(missed.crf - 1))
            case (nil, nil):
                return nil
            }
            return min(max(crf, bounds.lowerBound), bounds.upperBound)
        }

        /// The CRF to encode at: the one the probes predict for `aim`, floored, at most 1 below the lowest that
        /// missed, at least the highest below it that met, at most `maxJump` above that one.
        func chosen() -> Int {
            let estimate: Double
            switch (met, missed) {
            case let (met?, missed?): estimate = interpolate(met, missed)
            case let (met?, nil): estimate = min(extrapolate(from: met), Double(met.crf + maxJump))
            case let (nil, missed?): estimate = extrapolate(from: missed)
            case (nil, nil): estimate = Double(bounds.lowerBound)
            }
            let ceiling = missed.map { $0.crf - 1 } ?? bounds.upperBound
            let crf = min(max(integer(estimate.rounded(.down), in: bounds), met?.crf ?? bounds.lowerBound), ceiling)
            return min(max(crf, bounds.lowerBound), bounds.upperBound)
        }

        /// The CRF where the line through a probe that met and one that missed reaches `aim`.
        func interpolate(_ met: CRFProbe, _ missed: CRFProbe) -> Double {
            guard missed.score.isFinite else { return extrapolate(from: met) }
            return estimate(from: point(met), slope: slope(point(met), point(missed), default: defaultSlope(target.metric)))
        }

        /// The CRF where a line from `probe` reaches `aim`: the secant to the probe of the nearest other CRF, or
        /// `defaultSlope`; 6 CRFs lower (x264's doubling of the bits) from a probe that measured no finite score.
        func extrapolate(from probe: CRFProbe) -> Double {
            guard probe.score.isFinite else { return Double(probe.crf - 6) }
            let others = probes.filter { $0.score.isFinite && $0.crf != probe.crf }.map(point)
            let other = nearest(others, to: probe.crf)?.0
            return estimate(from: point(probe), slope: slope(point(probe), other, default: defaultSlope(target.metric)))
        }

        /// The CRF where a line of `slope` (negative) through `point` reaches `aim`.
        func estimate(from point: Point, slope: Double) -> Double {
            Double(point.crf) + (aim - point.value) / slope
        }

        /// A probe in the linear space.
        func point(_ probe: CRFProbe) -> Point { Point(crf: probe.crf, value: linear(probe.score, target.metric)) }
    }
}
