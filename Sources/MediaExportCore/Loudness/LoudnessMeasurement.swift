import Foundation

/// One EBU R128 measurement of an audio stream (ITU-R BS.1770, as FFmpeg's `ebur128=peak=true` measures): what the
/// source's audio is before an export and what the output's is after it, and what `loudnorm`'s second pass is told.
public struct LoudnessMeasurement: Codable, Sendable, Equatable {
    /// Integrated loudness, LUFS (−70 when nothing is above the absolute gate: silence).
    public var integrated: Double
    /// Loudness range, LU.
    public var range: Double
    /// The highest true peak of any channel, dBTP (4× oversampled; −144 for digital silence).
    public var truePeak: Double
    /// The relative gate of the integrated loudness, LUFS (`loudnorm`'s `measured_thresh`).
    public var threshold: Double
    /// The channels measured (a source that the output downmixes is measured downmixed: the loudness it will have).
    public var channels: Int
    /// Seconds of audio measured.
    public var seconds: Double

    /// Creates the value from each of its fields.
    public init(integrated: Double, range: Double, truePeak: Double, threshold: Double, channels: Int, seconds: Double) {
        self.integrated = integrated; self.range = range; self.truePeak = truePeak; self.threshold = threshold
        self.channels = channels; self.seconds = seconds
    }

    /// The floor a peak of digital silence is given (JSON has no −∞).
    public static let silentPeak = -144.0

    /// True when no block of audio is above the absolute gate (−70 LUFS): there is no loudness to normalise.
    public var isSilent: Bool { integrated <= -70 }

    /// dB of a linear amplitude, at least `silentPeak`.
    public static func decibels(amplitude: Double) -> Double {
        amplitude > 0 ? max(silentPeak, 20 * log10(amplitude)) : silentPeak
    }

    /// The relative gate of the integrated loudness from the momentary loudness of every 400 ms block (`ebur128`'s
    /// `M`, one a 100 ms step): the power mean of the blocks above −70 LUFS, less 10 LU, as BS.1770 gates them. −70
    /// when no block is above the absolute gate.
    public static func relativeGate(momentary: [Double]) -> Double {
        let kept = momentary.filter { $0 >= -70 }
        guard !kept.isEmpty else { return -70 }
        let power = kept.reduce(0) { $0 + pow(10, ($1 + 0.691) / 10) } / Double(kept.count)
        return -0.691 + 10 * log10(power) - 10
    }
}
