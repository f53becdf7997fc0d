import Foundation

/// What `--loudness` asks of an export's audio: measured only (`measure`), or normalised to an integrated loudness
/// (`-16`, in LUFS) with its true peak at most `truePeak` dBTP, both as measured on the output (EBU R128 / ITU-R
/// BS.1770, as FFmpeg's `ebur128` measures).
public struct LoudnessTarget: Codable, Sendable, Equatable {
    /// The integrated loudness to reach, LUFS; nil: measure only, change nothing.
    public var integrated: Double?
    /// The highest true peak the output may have, dBTP.
    public var truePeak: Double

    /// A target of `integrated` LUFS (nil: measure only) under a true-peak ceiling (not checked: `problem`).
    public init(integrated: Double?, truePeak: Double = LoudnessTarget.defaultTruePeak) {
        self.integrated = integrated
        self.truePeak = truePeak
    }

    /// Measure only.
    public static let measure = LoudnessTarget(integrated: nil)
    /// The default true-peak ceiling: −1 dBTP, the ceiling of the EBU's and the streaming services' recommendations.
    public static let defaultTruePeak = -1.0
    /// Integrated loudness targets accepted (FFmpeg's `loudnorm` takes −70 … −5 LUFS).
    public static let integratedRange: ClosedRange<Double> = -70 ... -5
    /// The output is on target when its integrated loudness is within this many LU of it (the issue's ±0.5 LU).
    public static let tolerance = 0.5

    /// What is wrong with a target, as a value (the words are `reason`).
    public enum Problem: Error, Equatable, Sendable {
        /// Neither `measure` nor a number.
        case malformed(String)
        /// A loudness outside `integratedRange`.
        case outOfRange(Double)

        /// The problem in words, with what is accepted.
        public var reason: String {
            switch self {
            case .malformed(let text): "\"\(text)\" is neither measure nor a loudness in LUFS (-16, -23)"
            case .outOfRange(let value): "\(value.formatted()) LUFS is outside -70…-5 LUFS"
            }
        }
    }

    /// Parses `measure` or a loudness in LUFS (`-16`, `-23.5`, with or without ` LUFS`).
    public init(parsing text: String) throws(Problem) {
        let word = text.trimmingCharacters(in: .whitespaces).lowercased()
        if word == "measure" { self = .measure; return }
        let number = word.hasSuffix("lufs") ? String(word.dropLast(4)).trimmingCharacters(in: .whitespaces) : word
        guard let value = Double(number), value.isFinite else { throw .malformed(text) }
        guard Self.integratedRange.contains(value) else { throw .outOfRange(value) }
        self.init(integrated: value)
    }

    /// What is wrong with an integrated loudness target (a preset's `audio.loudness`); nil: nothing.
    public static func problem(integrated value: Double) -> Problem? {
        value.isFinite && integratedRange.contains(value) ? nil : .outOfRange(value)
    }

    /// The target as the option writes it: `measure`, `-16 LUFS`.
    public var text: String { integrated.map { "\($0.formatted()) LUFS" } ?? "measure" }
}
