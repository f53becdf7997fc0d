import Foundation
import Testing
@testable import MediaExportCore

/// `LoudnessTarget` parsing and `LoudnessNormalisation`'s choice (pure).
struct LoudnessTargetTests {
    @Test("measure, -16, -23.5 LUFS parse; out of range and words are refused as values")
    func parsing() throws {
        #expect(try LoudnessTarget(parsing: "measure") == .measure)
        #expect(try LoudnessTarget(parsing: "-16").integrated == -16)
        #expect(try LoudnessTarget(parsing: "-23.5 LUFS") == LoudnessTarget(integrated: -23.5, truePeak: -1))
        #expect(throws: LoudnessTarget.Problem.outOfRange(-80)) { try LoudnessTarget(parsing: "-80") }
        #expect(throws: LoudnessTarget.Problem.outOfRange(0)) { try LoudnessTarget(parsing: "0") }
        #expect(throws: LoudnessTarget.Problem.malformed("loud")) { try LoudnessTarget(parsing: "loud") }
        #expect(LoudnessTarget.problem(integrated: -16) == nil && LoudnessTarget.problem(integrated: -4) != nil)
    }

    static func measured(_ i: Double, peak: Double, range: Double = 3) -> LoudnessMeasurement {
        LoudnessMeasurement(integrated: i, range: range, truePeak: peak, threshold: i - 10, channels: 2, seconds: 10)
    }

    @Test("a gain when the peak leaves 1 dB under the ceiling, else loudnorm with the measurement; none for measure or silence")
    func choice() throws {
        let target = LoudnessTarget(integrated: -16)
        let gain = try #require(LoudnessNormalisation.choose(measured: Self.measured(-30, peak: -17), target: target))
        #expect(gain.method == .gain && abs(gain.gainDB - 14) < 1e-9 && gain.filter == nil && abs(gain.linearGain - 5.0119) < 1e-3)
        let limited = try #require(LoudnessNormalisation.choose(measured: Self.measured(-30, peak: -15.5), target: target))
        #expect(limited.method == .loudnorm)
        #expect(limited.filter == "loudnorm=I=-16.00:LRA=7.00:TP=-2.00:measured_I=-30.00:measured_LRA=3.00:measured_TP=-15.50:"
                + "measured_thresh=-40.00:offset=0.00:linear=true:dual_mono=false")
        let predicted = Self.measured(-17.9, peak: -2)
        let corrected = try #require(limited.corrected(measured: Self.measured(-30, peak: -15.5), target: target, predicted: predicted))
        #expect(corrected.filter?.hasPrefix("loudnorm=I=-14.10:") == true && corrected.gainDB == 14)
        #expect(limited.corrected(measured: Self.measured(-30, peak: -15.5), target: target, predicted: Self.measured(-16.1, peak: -2)) == nil)
        #expect(gain.corrected(measured: Self.measured(-30, peak: -17), target: target, predicted: predicted) == nil)
        #expect(LoudnessNormalisation.choose(measured: Self.measured(-30, peak: -17), target: .measure) == nil)
        #expect(LoudnessNormalisation.choose(measured: Self.measured(-70, peak: -144), target: target) == nil)
    }

    @Test("the relative gate is the power mean of the blocks above -70 LUFS less 10 LU; the report judges ±0.5 LU and the ceiling")
    func gateAndReport() {
        #expect(abs(LoudnessMeasurement.relativeGate(momentary: [-20, -20, -120]) - (-30)) < 1e-9)
        #expect(LoudnessMeasurement.relativeGate(momentary: [-120]) == -70)
        var report = LoudnessReport(target: LoudnessTarget(integrated: -16))
        report.source = Self.measured(-30, peak: -17)
        report.method = .gain
        report.measuredOutput(Self.measured(-16.4, peak: -2.6))
        #expect(report.met == true && report.warning == nil)
        #expect(report.summary == "-30.0 LUFS → -16.4 LUFS, true peak -2.6 dBTP")
        report.measuredOutput(Self.measured(-15.9, peak: -0.8))
        #expect(report.met == false && report.warning != nil)
    }

    @Test("a loudness target keeps a fitting source from a remux or copy (--policy needed); without audio it still fits")
    func targetNeedsTranscode() {
        var preset = Presets.named("1920x1080")
        preset.audio?.loudness = -16
        #expect(unfit(.landscape1080, preset: Presets.named("1920x1080")) == nil)
        #expect(unfit(.landscape1080, preset: preset) == "audio normalised to -16 LUFS")
        #expect(unfit(.make([.h264(0, 1920, 1080)]), preset: preset) == nil)
    }
}
