import Foundation
import MediaExportCore
import MediaExportFFmpeg

/// A quality target in an export's attempt (`ExportAttempt`): the search before the encode, the measure during it,
/// one corrective encode after it when the whole output fell short.
extension ExportAttempt {
    /// Chooses the CRF for the plan's quality target (`QualitySearch`) and sets it in the plan, with the scoring of the
    /// real encode; nil without a target, or on a route that encodes no video by CRF.
    func searchQuality(_ encode: inout Encode) throws -> QualityReport? {
        guard route == .transcode || route == .salvage, let video = request.preset.video, let target = video.quality,
              encode.plan.streams.contains(where: { if case .transcodeVideo = $0.action { return true }; return false }) else { return nil }
        var report = QualityReport(target: target, presetCRF: video.crf)
        encode.scoring = Transcoder.Scoring(metric: target.metric)
        // A salvage reads a damaged file: its windows are not searched, the output is measured at the preset's CRF.
        if route == .salvage { return report.unsearched(crf: video.crf) }
        let watchdog = run.watchdog
        let search = QualitySearch(target: target, source: encode.source, plan: encode.plan, cancel: token, codecs: CodecRun(request))
        let files = [run.selection.report.resource] + (run.selection.editsFile.map { [$0] } ?? [])
        guard var chosen = try search.run(cache: request.searchCache.flatMap { SearchCache(path: $0) }, files: files,
                                          activity: { watchdog.touch() }) else { return report.unsearched(crf: video.crf) }
        chosen.crf += session.debugQualityOffset
        report.search = chosen.search
        report.crf = chosen.crf
        session.searchedCRF = chosen.crf
        encode.plan = encode.plan.withVideoCRF(chosen.crf)
        let probes = chosen.search.probes
        if let rate = CRFSearch.predictedBitRate(probes, crf: chosen.crf) {
            // The started record's estimate: the probes measured the rate at the chosen CRF (the audio as sampled, if it was).
            encode.sampled = OutputSize.Measured(video: rate, audio: encode.sampled?.audio ?? [:])
            if let atPreset = CRFSearch.predictedBitRate(probes, crf: video.crf), let seconds = encode.plan.timeline.expectedDuration {
                report.savedBytes = Int64(((atPreset - rate) * seconds / 8).rounded())
            }
        }
        if chosen.search.unreachable {
            report.notes.append("\(target.text) is out of reach within CRF \(CRFSearch.bounds(video.codec.profile, target).lowerBound) or more: encoded there")
        }
        return report
    }

    /// Takes the output's measure into `report`; a measure short of the target is encoded once more at a lower CRF
    /// (not under a size limit, which chose the bit rate), and said. Returns the outcome and output that stand.
    func proveQuality(_ report: inout QualityReport, _ encode: inout Encode, outcome: Transcoder.Outcome,
                      output: OutputTarget) throws -> (Transcoder.Outcome, OutputTarget) {
        if encode.budget != nil {
            report.crf = nil
            session.searchedCRF = nil
            report.notes.append("the size limit chose the video's bit rate: the output is measured, not encoded for the target")
        }
        guard let scores = outcome.scores else {
            report.notes.append("the output could not be measured")
            return (outcome, output)
        }
        report.measured(scores)
        guard report.missed, request.sizeLimit == nil, let crf = report.crf, let goal = request.preset.video?.quality,
              let codec = request.preset.video?.codec, let achieved = report.achieved,
              let lower = CRFSearch.corrective(crf: crf, achieved: achieved, target: goal, probes: report.search?.probes ?? [],
                                               bounds: CRFSearch.bounds(codec.profile, goal)) else {
            return (outcome, output)
        }
        output.discard()
        encode.plan = encode.plan.withVideoCRF(lower)
        encode.notes.append("quality: CRF \(crf) measured \(achieved) < \(goal.text): encoded again at CRF \(lower)")
        let next = try session.makeTarget(request.output, selection: run.selection)
        target = next
        let (again, delivered) = try encodeWithinLimit(&encode, first: next)
        report.corrective = .init(fromCRF: crf, achieved: achieved)
        report.crf = lower
        session.searchedCRF = lower
        if let scores = again.scores { report.measured(scores) }
        return (again, delivered)
    }
}

extension QualityReport {
    /// This report for an encode at the preset's `crf` without a search (a salvage, slow motion, a probe that failed),
    /// said in its notes.
    fileprivate func unsearched(crf: Int) -> QualityReport {
        var report = self
        report.crf = crf
        report.notes.append("not searched: the output is measured at the preset's CRF \(crf)")
        return report
    }
}
