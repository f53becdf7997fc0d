import Foundation

/// A measured quality an encode must reach (`--quality ssim:0.985`, preset `video.quality`): the CRF is chosen to meet
/// it rather than given. `minCRF`/`maxCRF` narrow the CRFs the search may choose from.
public struct QualityTarget: Codable, Sendable, Equatable {
    /// The metric measured.
    public var metric: QualityMetric
    /// The mean score to reach over the file (SSIM 0.5..<1, PSNR 20...80 dB, VMAF 0...100).
    public var target: Double
    /// The smallest CRF the search may choose (the best quality it may spend bytes on); nil: the encoder's default bound.
    public var minCRF: Double?
    /// The largest CRF the search may choose; nil: the encoder's default bound.
    public var maxCRF: Double?

    /// A target of `target` in `metric`, with optional CRF bounds (not checked: `problem(crfRange:)`).
    public init(metric: QualityMetric, target: Double, minCRF: Double? = nil, maxCRF: Double? = nil) {
        self.metric = metric
        self.target = target
        self.minCRF = minCRF
        self.maxCRF = maxCRF
    }

    /// What is wrong with a target, as a value (the words are `reason`).
    public enum Problem: Error, Equatable, Sendable {
        /// Not `METRIC:TARGET`.
        case malformed(String)
        /// A metric this tool does not know.
        case unknownMetric(String)
        /// A target outside what the metric can sensibly hold.
        case outOfRange(QualityMetric, Double)
        /// `minCRF` above `maxCRF`, or either outside the encoder's CRF scale.
        case crfBounds(min: Double?, max: Double?, scale: ClosedRange<Int>)

        /// The problem in words, with what is accepted.
        public var reason: String {
            switch self {
            case .malformed(let text):
                "\"\(text)\" is not METRIC:TARGET (ssim:0.985, psnr:42 or vmaf:95)"
            case .unknownMetric(let name):
                "unknown metric \"\(name)\": ssim, psnr or vmaf"
            case .outOfRange(let metric, let value):
                "\(metric.rawValue) target \(value.formatted()) is outside \(metric.targetRangeWords)"
            case .crfBounds(let low, let high, let scale):
                "minCRF \(low.map { $0.formatted() } ?? "–") and maxCRF \(high.map { $0.formatted() } ?? "–") must lie within "
                    + "\(scale.lowerBound)…\(scale.upperBound), minCRF at most maxCRF"
            }
        }
    }

    /// Parses `METRIC:TARGET` (`ssim:0.985`, `psnr:42`, `vmaf:95`); the metric's name in any case.
    public init(parsing text: String) throws(Problem) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[1].isEmpty else { throw .malformed(text) }
        let name = parts[0].trimmingCharacters(in: .whitespaces).lowercased()
        guard let metric = QualityMetric(rawValue: name) else { throw .unknownMetric(String(parts[0])) }
        guard let value = Double(parts[1].trimmingCharacters(in: .whitespaces)), value.isFinite else { throw .malformed(text) }
        guard metric.acceptsTarget(value) else { throw .outOfRange(metric, value) }
        self.init(metric: metric, target: value)
    }

    /// What is wrong with the target or its CRF bounds on an encoder whose CRF scale is `crfRange`; nil: nothing.
    public func problem(crfRange: ClosedRange<Int>) -> Problem? {
        guard metric.acceptsTarget(target) else { return .outOfRange(metric, target) }
        let scale = Double(crfRange.lowerBound)...Double(crfRange.upperBound)
        let inside = [minCRF, maxCRF].allSatisfy { $0.map { scale.contains($0) } ?? true }
        if !inside || (minCRF ?? -.infinity) > (maxCRF ?? .infinity) { return .crfBounds(min: minCRF, max: maxCRF, scale: crfRange) }
        return nil
    }

    /// The keys of a preset's `video.quality` object.
    public static let keys = ["metric", "target", "minCRF", "maxCRF"]

    /// The target as the option writes it (`ssim:0.985`).
    public var text: String { "\(metric.rawValue):\(target.formatted())" }
}

extension QualityMetric {
    /// Targets the metric can sensibly hold: SSIM 0.5 up to (not including) 1, PSNR 20 to 80 dB, VMAF 0 to 100.
    public func acceptsTarget(_ value: Double) -> Bool {
        switch self {
        case .ssim: value >= 0.5 && value < 1
        case .psnr: (20...80).contains(value)
        case .vmaf: (0...100).contains(value)
        }
    }

    /// `acceptsTarget`'s range in words.
    var targetRangeWords: String {
        switch self {
        case .ssim: "0.5 ≤ ssim < 1"
        case .psnr: "20…80 dB"
        case .vmaf: "0…100"
        }
    }
}

extension Double {
    /// The shortest text that reads back as the same number (`0.985`, `42`).
    fileprivate func formatted() -> String {
        self == rounded() && abs(self) < 1e15 ? String(Int64(self)) : String(self)
    }
}
