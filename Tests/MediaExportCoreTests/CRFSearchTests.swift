import Foundation
import Testing
@testable import MediaExportCore

/// The CRF search of a quality target (`CRFSearch`), run to its end on curves made from the scores and sizes x264
/// medium measured at integer CRFs (640x360, 30 fps, 5 s; design47 §7), and on made-up noisy and broken curves.
@Suite struct CRFSearchTests {
    /// A clip's score and bit rate against the CRF: measured points joined by straight lines in `CRFSearch.linear`'s
    /// space (and log2 of the bits), extended past the ends along the nearest segment.
    struct Curve: CustomTestStringConvertible, Sendable {
        var name: String
        var metric: QualityMetric = .ssim
        /// CRF, score, bytes of the 5 s clip.
        var points: [(crf: Double, score: Double, bytes: Double)]
        /// Added to the score at a CRF (noise), by CRF.
        var noise: @Sendable (Int) -> Double = { _ in 0 }

        var testDescription: String { name }

        func score(_ crf: Int) -> Double {
            let value = along(crf) { CRFSearch.linear($0.score, metric) }
            return (metric == .ssim ? 1 - pow(10, -value / 10) : value) + noise(crf)
        }

        func bitRate(_ crf: Int) -> Double { pow(2, along(crf) { log2($0.bytes * 8 / 5) }) }

        func probe(_ crf: Int) -> CRFProbe { CRFProbe(crf: crf, score: score(crf), p5: score(crf) - 0.002, bitRate: bitRate(crf)) }

        /// `value` of the points, linear between (and beyond) the two points around `crf`.
        func along(_ crf: Int, _ value: ((crf: Double, score: Double, bytes: Double)) -> Double) -> Double {
            let x = Double(crf)
            let index = min(max(points.firstIndex { $0.crf >= x } ?? points.count - 1, 1), points.count - 1)
            let (a, b) = (points[index - 1], points[index])
            return value(a) + (value(b) - value(a)) * (x - a.crf) / (b.crf - a.crf)
        }
    }

    static let mandelbrot = Curve(name: "mandelbrot", points: [
        (18, 0.9923, 1_773_000), (22, 0.9881, 1_161_000), (26, 0.9806, 677_000), (30, 0.9677, 321_000), (34, 0.9499, 139_000),
    ])
    static let testsrc2 = Curve(name: "testsrc2", points: [
        (18, 0.9976, 734_000), (22, 0.9955, 541_000), (26, 0.9902, 349_000), (30, 0.9820, 208_000), (34, 0.9737, 152_000),
        (35, 0.9713, 145_000), (38, 0.9632, 131_000),
    ])
    static let grainy = Curve(name: "testsrc2+noise", points: [(24, 0.9828, 436_000), (28, 0.9748, 256_000), (32, 0.9650, 169_000)])
    /// PSNR falling 0.5 dB a CRF, a little faster at high CRFs.
    static let psnr = Curve(name: "psnr", metric: .psnr, points: [(12, 48, 4_000_000), (24, 42, 900_000), (36, 35, 200_000), (48, 27, 50_000)])

    /// Probes as `next` asks until it stops (at most 10); every probe asked for is new and inside the bounds.
    static func run(_ curve: Curve, _ target: QualityTarget, bounds: ClosedRange<Int> = 12...40, first: Int = 18,
                    maxProbes: Int = 3) -> (step: CRFSearch.Step, probes: [CRFProbe]) {
        var probes: [CRFProbe] = []
        while true {
            let step = CRFSearch.next(probes, target: target, bounds: bounds, first: first, maxProbes: maxProbes)
            guard case .probe(let crf) = step, probes.count < 10 else { return (step, probes) }
            #expect(bounds.contains(crf) && !probes.contains { $0.crf == crf }, "\(crf) after \(probes.map(\.crf))")
            probes.append(curve.probe(crf))
        }
    }

    /// The largest CRF in `bounds` whose score meets `target`.
    static func best(_ curve: Curve, _ target: Double, bounds: ClosedRange<Int> = 12...40) -> Int? {
        bounds.filter { curve.score($0) >= target }.max()
    }

    @Test("on measured curves the chosen CRF meets the target, within 3 probes, at most 1 below the best",
          arguments: [mandelbrot, testsrc2, grainy], [18, 23, 28, 34])
    func measuredCurves(curve: Curve, first: Int) throws {
        // The targets whose best CRF lies within the measured points (beyond them the curve is made up).
        let measured = Int(curve.points.first!.crf)...Int(curve.points.last!.crf)
        let targets = stride(from: 0.95, through: 0.995, by: 0.0025).filter { Self.best(curve, $0).map(measured.contains) == true }
        #expect(targets.count >= 5)
        for target in targets {
            let (step, probes) = Self.run(curve, QualityTarget(metric: .ssim, target: target), first: first)
            let best = try #require(Self.best(curve, target))
            guard case .chosen(let crf) = step else { Issue.record("\(target): \(step)"); continue }
            #expect(curve.score(crf) >= target - QualityMetric.ssim.tolerance, "\(target): CRF \(crf)")
            #expect(probes.count <= 3 && crf >= best - 1 && crf <= best, "\(target): CRF \(crf), best \(best), probes \(probes.map(\.crf))")
        }
    }

    @Test("mandelbrot at 0.97 from CRF 18: probes 18, 28, 29, chooses 29 (its score 0.9705)")
    func mandelbrotExample() {
        let (step, probes) = Self.run(Self.mandelbrot, QualityTarget(metric: .ssim, target: 0.97))
        #expect(probes.map(\.crf) == [18, 28, 29] && step == .chosen(29))
    }

    @Test("PSNR: the chosen CRF meets the target, at most 1 below the best", arguments: [38.0, 40, 42.5, 45, 47])
    func psnrCurve(target: Double) throws {
        let (step, probes) = Self.run(Self.psnr, QualityTarget(metric: .psnr, target: target), first: 23)
        let best = try #require(Self.best(Self.psnr, target))
        #expect(probes.count <= 3 && (step == .chosen(best) || step == .chosen(best - 1)), "\(step), best \(best)")
    }

    @Test("one window (the whole stretch): 2 probes, a 3rd only when the 2nd missed by more than the tolerance")
    func wholeStretch() {
        let target = QualityTarget(metric: .ssim, target: 0.97)
        let (step, probes) = Self.run(Self.testsrc2, target, maxProbes: 2)
        #expect(probes.map(\.crf) == [18, 28], "the 2nd met: no 3rd")
        guard case .chosen(let crf) = step else { Issue.record("\(step)"); return }
        #expect(crf > 28 && Self.testsrc2.score(crf) >= 0.97)
        // testsrc2 falls faster than the default slope: from 22 (0.9955) it overshoots 0.98 to 32 (0.9782), a miss by
        // more than the tolerance: a 3rd probe, interpolated, finds 31 (0.9802).
        let missed = Self.run(Self.testsrc2, QualityTarget(metric: .ssim, target: 0.98), first: 22, maxProbes: 2)
        #expect(missed.probes.map(\.crf) == [22, 32, 31] && missed.step == .chosen(31))
        // A miss within the tolerance makes no 3rd, even in a bracket 12 wide (with windows it would).
        let near = [CRFProbe(crf: 18, score: 0.99, p5: 0.98, bitRate: 1), CRFProbe(crf: 30, score: 0.9695, p5: 0.96, bitRate: 1)]
        #expect(CRFSearch.next(near, target: target, bounds: 12...40, first: 18, maxProbes: 2) == .chosen(29))
        #expect(CRFSearch.next(near, target: target, bounds: 12...40, first: 18, maxProbes: 3) == .probe(29))
    }

    @Test("a flat noisy curve (SSIM ruled by grain) below the target: down to the lowest CRF, unreachable there")
    func flatNoisyUnreachable() {
        var flat = Self.grainy
        flat.points = [(12, 0.9330, 12e6), (40, 0.9320, 3e6)]
        flat.noise = { [0.0004, -0.0003, 0.0002, -0.0004, 0.0001][$0 % 5] }
        let (step, probes) = Self.run(flat, QualityTarget(metric: .ssim, target: 0.97))
        #expect(step == .unreachable(12) && probes.count <= 3 && probes.last?.crf == 12)
    }

    @Test("a flat noisy curve just above the target: creeps up by the default slope, chooses a CRF that meets it")
    func flatNoisyMet() {
        var flat = Self.grainy
        flat.points = [(12, 0.9530, 12e6), (40, 0.9520, 3e6)]
        flat.noise = { [0.0004, -0.0003, 0.0002, -0.0004, 0.0001][$0 % 5] }
        for first in [12, 18, 30, 40] {
            let (step, probes) = Self.run(flat, QualityTarget(metric: .ssim, target: 0.95), first: first)
            guard case .chosen(let crf) = step else { Issue.record("from \(first): \(step)"); continue }
            #expect(probes.count <= 3 && crf >= probes.map(\.crf).max()! && flat.score(crf) >= 0.95, "from \(first): \(crf) after \(probes.map(\.crf))")
        }
        #expect(Self.run(flat, QualityTarget(metric: .ssim, target: 0.95), first: 40).step == .chosen(40))
    }

    @Test("a curve that rises with the CRF (noise): the default slope, answers inside the bounds")
    func invertedCurve() {
        let target = QualityTarget(metric: .ssim, target: 0.97)
        let probes = [CRFProbe(crf: 18, score: 0.968, p5: 0.96, bitRate: 1), CRFProbe(crf: 24, score: 0.969, p5: 0.96, bitRate: 1)]
        #expect(CRFSearch.next(probes, target: target, bounds: 12...40, first: 18, maxProbes: 3) == .probe(17))
        let inverted = [CRFProbe(crf: 18, score: 0.968, p5: 0.96, bitRate: 1), CRFProbe(crf: 24, score: 0.975, p5: 0.97, bitRate: 1)]
        #expect(CRFSearch.next(inverted, target: target, bounds: 12...40, first: 18, maxProbes: 3) == .probe(17))
        #expect(CRFSearch.next(inverted, target: target, bounds: 12...40, first: 18, maxProbes: 2) == .chosen(17))
    }

    @Test("unreachable: even the lowest CRF misses by more than the tolerance; within it, the lowest is chosen")
    func unreachable() {
        let target = QualityTarget(metric: .ssim, target: 0.97)
        let hard = Curve(name: "noise alls=4", points: [(12, 0.9650, 8e6), (16, 0.9622, 4_367_000), (40, 0.93, 1e6)])
        let (step, probes) = Self.run(hard, target, first: 18)
        #expect(step == .unreachable(12) && probes.count <= 3)
        let near = [CRFProbe(crf: 12, score: 0.9695, p5: 0.96, bitRate: 1)]
        #expect(CRFSearch.next(near, target: target, bounds: 12...40, first: 12, maxProbes: 3) == .chosen(12))
    }

    @Test("a probe at the highest CRF that meets the target: it is chosen")
    func metAtUpperBound() {
        let target = QualityTarget(metric: .ssim, target: 0.95)
        let probes = [CRFProbe(crf: 40, score: 0.951, p5: 0.94, bitRate: 1)]
        #expect(CRFSearch.next(probes, target: target, bounds: 12...40, first: 40, maxProbes: 3) == .chosen(40))
        let (step, run) = Self.run(Self.testsrc2, target)
        #expect(step == .chosen(40) && run.count <= 3)
    }

    @Test("the first probe is the preset's CRF, clamped to the bounds")
    func firstProbe() {
        let target = QualityTarget(metric: .ssim, target: 0.97)
        #expect(CRFSearch.next([], target: target, bounds: 12...40, first: 18, maxProbes: 3) == .probe(18))
        #expect(CRFSearch.next([], target: target, bounds: 24...52, first: 18, maxProbes: 3) == .probe(24))
        #expect(CRFSearch.next([], target: target, bounds: 12...40, first: 51, maxProbes: 3) == .probe(40))
    }

    @Test("bounds: 12…40 on x264/x265, 24…52 on SVT-AV1, narrowed by the target's minCRF/maxCRF rounded inwards")
    func bounds() {
        let plain = QualityTarget(metric: .ssim, target: 0.97)
        #expect(CRFSearch.bounds(.libx264, plain) == 12...40 && CRFSearch.bounds(.libx265, plain) == 12...40)
        #expect(CRFSearch.bounds(.libsvtav1, plain) == 24...52)
        #expect(CRFSearch.bounds(.libx264, QualityTarget(metric: .ssim, target: 0.97, minCRF: 14, maxCRF: 32)) == 14...32)
        #expect(CRFSearch.bounds(.libsvtav1, QualityTarget(metric: .ssim, target: 0.97, minCRF: 30.5, maxCRF: 45.7)) == 31...45)
        #expect(CRFSearch.bounds(.libx264, QualityTarget(metric: .ssim, target: 0.97, minCRF: 4)) == 12...40)
        #expect(CRFSearch.bounds(.libsvtav1, QualityTarget(metric: .ssim, target: 0.97, maxCRF: 60)) == 24...52)
        // Bounds wholly outside the defaults are the target's own, within the encoder's scale.
        #expect(CRFSearch.bounds(.libx264, QualityTarget(metric: .ssim, target: 0.97, minCRF: 44)) == 44...51)
        #expect(CRFSearch.bounds(.libx264, QualityTarget(metric: .ssim, target: 0.97, minCRF: 2, maxCRF: 8)) == 2...8)
        #expect(CRFSearch.bounds(.libx264, QualityTarget(metric: .ssim, target: 0.97, minCRF: 20.2, maxCRF: 20.8)) == 21...21)
        #expect(CRFSearch.bounds(.libx264, QualityTarget(metric: .ssim, target: 0.97, minCRF: 1e300)) == 51...51)
    }

    @Test("the SVT-AV1 scale: a curve 12 CRFs up is searched as on x264's")
    func svtAV1() throws {
        var shifted = Self.mandelbrot
        shifted.points = shifted.points.map { ($0.crf + 12, $0.score, $0.bytes) }
        let bounds = CRFSearch.bounds(.libsvtav1, QualityTarget(metric: .ssim, target: 0.97))
        let (step, probes) = Self.run(shifted, QualityTarget(metric: .ssim, target: 0.97), bounds: bounds, first: 30)
        #expect(step == .chosen(41) && probes.allSatisfy { bounds.contains($0.crf) } && probes.count <= 3)
    }

    @Test("SSIM in dB: the ssim filter's own, 60 dB at 1 and above; PSNR and VMAF as they are")
    func linear() {
        #expect(abs(CRFSearch.linear(0.99, .ssim) - 20) < 1e-9)
        #expect(CRFSearch.linear(1, .ssim) == 60 && CRFSearch.linear(1.5, .ssim) == 60 && CRFSearch.linear(0.99999999, .ssim) == 60)
        #expect(CRFSearch.linear(42, .psnr) == 42 && CRFSearch.linear(93, .vmaf) == 93)
    }

    @Test("scores that are not numbers count as misses: the search goes down, stays finite and in bounds, never traps")
    func notANumber() {
        let target = QualityTarget(metric: .ssim, target: 0.97)
        var broken = Self.mandelbrot
        broken.noise = { _ in .nan }
        let (step, probes) = Self.run(broken, target, first: 30)
        #expect(probes.map(\.crf) == [30, 24, 18] && step == .chosen(12))
        let lowest = Self.run(broken, target, first: 14).step
        #expect(lowest == .unreachable(12))
        for bad in [Double.nan, .infinity, -.infinity] {
            let probes = [CRFProbe(crf: 26, score: 0.98, p5: 0.97, bitRate: 1), CRFProbe(crf: 34, score: bad, p5: bad, bitRate: bad)]
            let step = CRFSearch.next(probes, target: target, bounds: 12...40, first: 26, maxProbes: 3)
            // Bracketed 8 wide: interpolated with the default slope from 26 (16.99 dB, aim 15.26 dB): 29. A whole
            // stretch's 2nd probe that measured nothing missed by more than the tolerance: a 3rd there too.
            #expect(step == .probe(29), "\(bad)")
            #expect(CRFSearch.next(probes, target: target, bounds: 12...40, first: 26, maxProbes: 2) == .probe(29), "\(bad)")
            #expect(CRFSearch.next(probes, target: target, bounds: 12...40, first: 26, maxProbes: 1) == .chosen(29), "\(bad)")
            #expect(CRFSearch.predictedBitRate(probes, crf: 30).map(\.isFinite) == true)
            #expect(CRFSearch.corrective(crf: 30, achieved: bad, target: target, probes: probes, bounds: 12...40) == 29)
        }
    }

    @Test("predicted bit rate: log2 linear in the CRF through the nearest probes, halving every 6 from one")
    func predictedBitRate() throws {
        let target = QualityTarget(metric: .ssim, target: 0.97)
        #expect(CRFSearch.predictedBitRate([], crf: 20) == nil)
        let one = [CRFProbe(crf: 20, score: 0.98, p5: 0.97, bitRate: 1_000_000)]
        #expect(abs(try #require(CRFSearch.predictedBitRate(one, crf: 26)) - 500_000) < 1e-6)
        #expect(abs(try #require(CRFSearch.predictedBitRate(one, crf: 14)) - 2_000_000) < 1e-6)
        let (_, probes) = Self.run(Self.mandelbrot, target)
        let predicted = try #require(CRFSearch.predictedBitRate(probes, crf: 29))
        #expect(abs(predicted / Self.mandelbrot.bitRate(29) - 1) < 0.01)
        // Between probes 10 apart (18, 28): the bits fall faster at higher CRFs, the chord is 10 % under.
        let between = try #require(CRFSearch.predictedBitRate(probes, crf: 23))
        #expect(abs(between / Self.mandelbrot.bitRate(23) - 1) < 0.15)
        // Bits that rise with the CRF (noise): the default slope from the nearest.
        let rising = [CRFProbe(crf: 20, score: 0.98, p5: 0.97, bitRate: 1000), CRFProbe(crf: 26, score: 0.97, p5: 0.96, bitRate: 2000)]
        #expect(abs(try #require(CRFSearch.predictedBitRate(rising, crf: 32)) - 1000) < 1e-6)
    }

    @Test("corrective: lower by the probes' slope, at least 1, not below the bounds, nil at the lowest")
    func corrective() {
        let target = QualityTarget(metric: .ssim, target: 0.97)
        let probes = [CRFProbe(crf: 18, score: 0.9923, p5: 0.99, bitRate: 1), CRFProbe(crf: 26, score: 0.9806, p5: 0.97, bitRate: 1),
                      CRFProbe(crf: 30, score: 0.9677, p5: 0.96, bitRate: 1)]
        // Mandelbrot at 30 measured 0.9677: 0.55 dB a step near 30 → 15.26 − 14.91 dB is 1 step.
        #expect(CRFSearch.corrective(crf: 30, achieved: 0.9677, target: target, probes: probes, bounds: 12...40) == 29)
        // 0.96 (13.98 dB) is 1.28 dB short of 15.26: 2.3 steps at 0.55 dB, 3 rounded up.
        #expect(CRFSearch.corrective(crf: 30, achieved: 0.96, target: target, probes: probes, bounds: 12...40) == 27)
        #expect(CRFSearch.corrective(crf: 30, achieved: 0.96, target: target, probes: [], bounds: 12...40) == 27)
        #expect(CRFSearch.corrective(crf: 30, achieved: 0.90, target: target, probes: probes, bounds: 24...40) == 24)
        #expect(CRFSearch.corrective(crf: 24, achieved: 0.90, target: target, probes: probes, bounds: 24...40) == nil)
        #expect(CRFSearch.corrective(crf: 30, achieved: 0.9699, target: target, probes: probes, bounds: 12...40) == 29)
        let psnr = QualityTarget(metric: .psnr, target: 42)
        #expect(CRFSearch.corrective(crf: 30, achieved: 41, target: psnr, probes: [], bounds: 12...40) == 27)
    }

    @Test("a probe pools its windows: the weighted mean of their means, the 5th percentile of all their frames")
    func pooling() throws {
        var a = FrameScores(metric: .ssim, every: 1)
        var b = FrameScores(metric: .ssim, every: 1)
        for k in 1...40 { a.append(0.96 + Double(k) / 10_000) }
        for k in 1...60 { b.append(0.98 + Double(k) / 10_000) }
        let empty = FrameScores(metric: .ssim, every: 1)
        let probe = try #require(CRFProbe(crf: 26, windows: [(a, 0.25), (b, 0.75), (empty, 0)], bitRate: 500_000))
        #expect(abs(probe.score - (0.25 * a.mean! + 0.75 * b.mean!)) < 1e-9)
        var all = a
        for value in b.values { all.append(Double(value)) }
        #expect(probe.p5 == all.p5 && probe.crf == 26 && probe.bitRate == 500_000)
        #expect(CRFProbe(crf: 26, windows: [(empty, 1)], bitRate: 1) == nil && CRFProbe(crf: 26, windows: [], bitRate: 1) == nil)
        let unweighted = try #require(CRFProbe(crf: 26, windows: [(a, 0), (b, .nan)], bitRate: 1))
        #expect(abs(unweighted.score - (a.mean! + b.mean!) / 2) < 1e-9)
        let data = try JSONEncoder().encode(probe)
        #expect(try JSONDecoder().decode(CRFProbe.self, from: data) == probe)
    }

    @Test("the search is deterministic")
    func deterministic() {
        let target = QualityTarget(metric: .ssim, target: 0.975)
        let once = Self.run(Self.testsrc2, target, first: 23)
        let again = Self.run(Self.testsrc2, target, first: 23)
        #expect(once.step == again.step && once.probes == again.probes)
    }
}
