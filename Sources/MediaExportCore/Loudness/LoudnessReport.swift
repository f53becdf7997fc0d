import Foundation

/// The loudness of an export (`--loudness`, preset `audio.loudness`): the source's main audio measured before, the
/// target and how it was reached, the output measured after — the `completed` record's `loudness` and the summary's
/// line.
public struct LoudnessReport: Codable, Sendable, Equatable {
    /// The source's main audio as the export reads it (its range, downmixed as the output is); nil: no audio.
    public var source: LoudnessMeasurement?
    /// The integrated loudness asked for, LUFS; nil: measured only.
    public var target: Double?
    /// The true-peak ceiling, dBTP (with a target).
    public var truePeakCeiling: Double?
    /// How the loudness was changed.
    public var method: LoudnessMethod = .none
    /// dB the audio was scaled by (`gain`), or the offset `loudnorm` was asked to make up (`loudnorm`).
    public var gain: Double?
    /// The output's main audio, measured after the export; nil when it has none.
    public var output: LoudnessMeasurement?
    /// With a target: true when the output is within `LoudnessTarget.tolerance` of it and its true peak at most the
    /// ceiling (whether or not it could be changed: a copied stream is judged too); nil without a target or audio.
    public var met: Bool?
    /// What else to know, in words (no audio, silent audio, a copied stream, the method's reason).
    public var notes: [String] = []

    /// A report of `target` before anything is measured.
    public init(target: LoudnessTarget) {
        self.target = target.integrated
        truePeakCeiling = target.integrated == nil ? nil : target.truePeak
    }

    /// Takes the output's measurement and judges it against the target.
    public mutating func measuredOutput(_ m: LoudnessMeasurement?) {
        output = m
        guard let goal = target, let ceiling = truePeakCeiling, let m else { return }
        met = abs(m.integrated - goal) <= LoudnessTarget.tolerance && m.truePeak <= ceiling
    }

    /// One line: `-30.1 LUFS → -16.0 LUFS, true peak -1.2 dBTP` (measured only: `-30.1 LUFS, LRA 0.1 LU, true peak
    /// -16.8 dBTP`); `no audio` when there is none.
    public var summary: String {
        func lufs(_ v: Double) -> String { String(format: "%.1f LUFS", v) }
        guard let source else { return "no audio" + (notes.first.map { " (\($0))" } ?? "") }
        let last = output ?? source
        var line = method == .none ? lufs(source.integrated) + String(format: ", LRA %.1f LU", source.range)
                                   : lufs(source.integrated) + " → " + lufs(last.integrated)
        line += String(format: ", true peak %.1f dBTP", last.truePeak)
        if let goal = target, met == false { line += " (target " + lufs(goal) + String(format: ", ≤ %.1f dBTP: missed)", truePeakCeiling ?? 0) }
        return line
    }

    /// The warning when a target was missed; nil otherwise.
    public var warning: String? {
        guard met == false, let goal = target, let out = output else { return nil }
        return String(format: "loudness: the output measures %.1f LUFS, true peak %.1f dBTP, against a target of %.1f LUFS ±%.1f LU, ≤ %.1f dBTP",
                      out.integrated, out.truePeak, goal, LoudnessTarget.tolerance, truePeakCeiling ?? 0)
    }
}
