import Foundation
import MediaExportCore
import MediaExportFFmpeg

/// A loudness target or measure in an export's attempt (`ExportAttempt`): the source's main audio measured before
/// the encode (pass 1, or the caller's measurement), the normalisation chosen from it for the encode, the output
/// measured after it.
extension ExportAttempt {
    /// Measures the source's main audio as the plan reads it (its range; downmixed when the output is) and, with a
    /// target, chooses how to reach it (`LoudnessNormalisation`, kept in `encode.loudness`); nil without
    /// `--loudness` or a preset's `audio.loudness`. No audio, silent audio and a copied stream are said in the notes.
    func prepareLoudness(_ encode: inout Encode) throws -> LoudnessReport? {
        guard let target = request.loudnessTarget else { return nil }
        var report = LoudnessReport(target: target)
        let info = encode.source.info
        guard let main = info.mainAudio, let decision = encode.plan.streams.first(where: { $0.index == main }), decision.isKept else {
            report.notes.append(info.mainAudio == nil ? "the source has no audio" : "the output has no audio")
            return report
        }
        var channels: Int? = nil
        if case .transcodeAudio(let audio) = decision.action, audio.channels < info.streams[main].channels { channels = audio.channels }
        let measured = try sourceLoudness(stream: main, channels: channels ?? info.streams[main].channels, downmix: channels != nil, plan: encode.plan)
        report.source = measured
        guard target.integrated != nil, let measured else { return report }
        guard case .transcodeAudio = decision.action else {
            report.notes.append("the audio is copied (\(route.rawValue)): its loudness cannot be changed")
            return report
        }
        guard var normalisation = LoudnessNormalisation.choose(measured: measured, target: target) else {
            report.notes.append("the audio is silent (below -70 LUFS throughout): nothing to normalise")
            return report
        }
        if let filter = normalisation.filter, case .transcodeAudio(let audio) = decision.action,
           let predicted = try sourceLoudness(stream: main, channels: channels ?? info.streams[main].channels, downmix: channels != nil,
                                              plan: encode.plan, through: "\(filter),aresample=\(audio.settings.sampleRate)"),
           let corrected = normalisation.corrected(measured: measured, target: target, predicted: predicted) {
            report.notes.append(String(format: "loudnorm measured %.1f LUFS on the source for a %.1f LUFS target: asked for %@ instead",
                                       predicted.integrated, target.integrated ?? 0, corrected.filter.flatMap { $0.split(separator: ":").first.map(String.init) } ?? ""))
            normalisation = corrected
        }
        if let tried = trial(normalisation, stream: main, encode: encode, target: target, report: &report) { normalisation = tried }
        encode.loudness = (normalisation, main)
        report.method = normalisation.method
        report.gain = (normalisation.gainDB * 100).rounded() / 100
        if normalisation.method == .loudnorm {
            report.notes.append(String(format: "a linear gain of %+.1f dB would peak at %.1f dBTP: loudnorm's limiter keeps the peaks down",
                                       normalisation.gainDB, measured.truePeak + normalisation.gainDB))
        }
        if encode.edits?.volume != nil { report.notes.append("the edit's volume is replaced by the loudness target") }
        return report
    }

    /// The caller's measurement when it is of the audio this export reads (`ExportRequest.loudnessMeasured`: the
    /// channels match), else the source measured here over the plan's range.
    private func sourceLoudness(stream: Int, channels: Int, downmix: Bool, plan: ExportPlan, through: String? = nil) throws -> LoudnessMeasurement? {
        if through == nil, let given = request.loudnessMeasured, given.channels == channels { return given }
        let timeline = plan.timeline
        let trimmed = timeline.origin > timeline.sourceStart || timeline.length != nil
        let watchdog = run.watchdog
        return try LoudnessMeter.measure(path: run.selection.report.resource, stream: stream,
                                         range: trimmed ? (timeline.origin, timeline.length.map { timeline.origin + $0 }) : nil,
                                         channels: downmix ? channels : nil, through: through, cancel: token, activity: { watchdog.touch() })
    }

    /// A gain's result found by encoding the main audio alone with it into a temporary file (discarded) and measuring
    /// that: a lossy encoder takes some loudness off (AAC: 0.4–0.5 LU off pink noise, its high bands coded coarsely),
    /// so the gain is moved by what the trial missed, when the trial's true peak leaves room. nil: no change (a
    /// `loudnorm`, a miss under 0.05 LU, no room, or a trial that failed).
    private func trial(_ n: LoudnessNormalisation, stream: Int, encode: Encode, target: LoudnessTarget, report: inout LoudnessReport) -> LoudnessNormalisation? {
        guard n.method == .gain, let goal = target.integrated, !token.isSet else { return nil }
        let plan = encode.plan.withLoudness(n, stream: stream).keeping(only: { $0.index == stream }, reason: "loudness trial: the main audio alone")
        let watchdog = run.watchdog
        do {
            let t = try session.makeTarget(request.output, selection: run.selection)
            defer { t.discard() }
            let transcoder = try Transcoder(source: encode.source, plan: plan, target: t, cancel: token, errors: request.errors, tags: [:],
                                            pass: nil, pipelined: false, codecs: CodecRun(request))
            _ = try transcoder.run(progress: { _, _, _ in watchdog.touch() })
            guard let tried = try LoudnessMeter.measure(path: t.temporaryPath, cancel: token, activity: { watchdog.touch() }) else { return nil }
            let miss = goal - tried.integrated
            guard abs(miss) >= 0.05, tried.truePeak + miss <= target.truePeak - LoudnessNormalisation.encoderHeadroom / 2 else { return nil }
            report.notes.append(String(format: "the encoder took the gain's result to %.2f LUFS (a trial of the audio alone): %+.2f dB more gain",
                                       tried.integrated, miss))
            return .gain(n.gainDB + miss)
        } catch {
            report.notes.append("the trial encode of the audio failed (\(session.translate(error).description)): the measured gain is used")
            return nil
        }
    }

    /// A byte copy's record with its loudness: the copy is the source, measured once as both (and judged against a
    /// target it could not be brought to).
    func copiedLoudness(_ completed: ExportEvent.Completed) -> ExportEvent.Completed {
        guard let target = request.loudnessTarget else { return completed }
        var copied = completed, report = LoudnessReport(target: target)
        measureOutputLoudness(&report, output: completed.output)
        report.source = report.output
        report.notes.append(report.output == nil ? "the source has no audio" : "copied byte for byte: the loudness is the source's")
        copied.loudness = report
        if let warning = report.warning { copied.warnings.append(warning) }
        return copied
    }

    /// Measures the output's main audio into `report` and judges it.
    func measureOutputLoudness(_ report: inout LoudnessReport, output: String) {
        let watchdog = run.watchdog
        do {
            report.measuredOutput(try LoudnessMeter.measure(path: output, cancel: token, activity: { watchdog.touch() }))
        } catch {
            report.notes.append("the output's loudness could not be measured: \(session.translate(error).description)")
        }
    }
}
