import Foundation

/// How an export's main audio is brought to a loudness target, chosen from the source's measurement (pure): an exact
/// linear gain when the measured true peak leaves room for it, else FFmpeg's `loudnorm` given the measurement (its
/// second pass: dynamic, with a true-peak limiter) and resampled back to the output's rate.
package struct LoudnessNormalisation: Sendable, Equatable {
    /// The method chosen.
    package var method: LoudnessMethod
    /// dB the audio is scaled by (the `gain` method), or `loudnorm`'s offset to the target (what a linear gain would be).
    package var gainDB: Double
    /// The `loudnorm` filter's arguments (the `loudnorm` method); nil for a gain.
    package var filter: String?

    /// Headroom kept under the target's true-peak ceiling before encoding: a lossy encoder's output overshoots the
    /// peaks it is given (AAC, measured here: up to 0.5 dB on pink noise), so the audio given to it peaks at most
    /// this much below the ceiling, and the output is measured against the ceiling itself.
    package static let encoderHeadroom = 1.0

    /// A linear gain of `dB`.
    package static func gain(_ dB: Double) -> LoudnessNormalisation { LoudnessNormalisation(method: .gain, gainDB: dB, filter: nil) }

    /// The linear factor of the gain.
    package var linearGain: Double { pow(10, gainDB / 20) }

    /// The normalisation of audio measured as `measured` to `target`; nil when the target only measures or the audio
    /// is silent (nothing to bring up). `aim`: the integrated loudness `loudnorm` is asked for, when its dynamic mode
    /// was found to land off the target (`corrected(predicted:)`); nil: the target's.
    package static func choose(measured: LoudnessMeasurement, target: LoudnessTarget, aim: Double? = nil) -> LoudnessNormalisation? {
        guard let goal = target.integrated, !measured.isSilent else { return nil }
        let gain = goal - measured.integrated
        let ceiling = target.truePeak - encoderHeadroom
        if measured.truePeak + gain <= ceiling { return LoudnessNormalisation(method: .gain, gainDB: gain, filter: nil) }
        // loudnorm's second pass: it normalises linearly when the measured peak allows (it does not: see above), else
        // dynamically towards `I` within a loudness range of `LRA`, its limiter holding peaks under `TP`.
        let lra = min(50, max(7, (measured.range * 10).rounded(.up) / 10))
        let args = [("I", aim ?? goal), ("LRA", lra), ("TP", ceiling), ("measured_I", measured.integrated), ("measured_LRA", measured.range),
                    ("measured_TP", measured.truePeak), ("measured_thresh", measured.threshold), ("offset", 0)]
            .map { "\($0.0)=\(String(format: "%.2f", $0.1))" }.joined(separator: ":")
        return LoudnessNormalisation(method: .loudnorm, gainDB: gain, filter: "loudnorm=\(args):linear=true:dual_mono=false")
    }

    /// `loudnorm`'s dynamic mode lands off its `I` where its limiter works hard (measured here: −17.9 LUFS for −16 on
    /// noise with clicks 12 dB over the ceiling): the aim moved by the miss `predicted` shows (the output of this
    /// normalisation measured on the source), within −70…−5; nil when the miss is within 0.2 LU (or for a gain).
    package func corrected(measured: LoudnessMeasurement, target: LoudnessTarget, predicted: LoudnessMeasurement) -> LoudnessNormalisation? {
        guard method == .loudnorm, let goal = target.integrated, abs(goal - predicted.integrated) > 0.2 else { return nil }
        let aim = min(LoudnessTarget.integratedRange.upperBound, max(LoudnessTarget.integratedRange.lowerBound, 2 * goal - predicted.integrated))
        return Self.choose(measured: measured, target: target, aim: aim)
    }
}

/// How the loudness was changed.
public enum LoudnessMethod: String, Codable, Sendable, Equatable {
    /// Not changed: measured only, no audio, silent audio, or audio copied.
    case none
    /// An exact linear gain (the peak allowed it).
    case gain
    /// FFmpeg's `loudnorm`, second pass with the source's measurement (dynamic, true-peak limited).
    case loudnorm
}
