import Foundation

// What a stream copy into a container without edit lists (Matroska, WebM: `ContainerKeeps.editList`) holds, which
// an MP4/MOV's edit list would have hidden or given back: the planner predicts it, so the verifier can check it.

extension ExportPlanner {
    /// A stream copy from the source's start into a container without edit lists (Matroska) carries the samples the
    /// source's edit list hides before its start (`SourceStream.hiddenLeadIn`: the lead-in of an `ffmpeg -ss … -c copy`
    /// cut, from its keyframe) and shows them, as the ffmpeg CLI's copy does: the plan expects them, and says so.
    /// Copied audio cut into such a container starts and ends with whole packets (ALAC's are 4096 samples), which no
    /// edit list trims: its length is what was written, not the range to the sample.
    static func showLeadIn(_ d: inout StreamDecision, stream s: SourceStream, source: SourceInfo, container: Container,
                           timeline: PlannedTimeline) -> String? {
        guard case .copy = d.action, !container.keeps.editList else { return nil }
        let cut = timeline.origin - source.startTime > 0.0005 || timeline.length != nil
        if cut && s.kind == .audio { d.durationExact = false }
        guard let lead = s.hiddenLeadIn, lead.seconds > 0, timeline.origin - source.startTime <= 0.0005 else { return nil }
        d.expectedDuration = d.expectedDuration.map { $0 + lead.seconds }
        d.shownLeadIn = lead.seconds
        d.expectedFrames = d.expectedFrames.map { $0 + (s.kind == .video ? lead.samples : 0) }
        guard s.index == source.mainVideo else { return nil }
        return String(format: "the source's edit list hides %.3f s before its start (from its keyframe); .%@ has no edit list: the copy shows them",
                      lead.seconds, container.rawValue)
    }

    /// A stream copy of audio cut after its start into a container without edit lists, whose pre-skip is longer than
    /// the verifier's audio tolerance (4096 samples at 48 kHz): players would drop that much of the cut's own start
    /// again (`SourceStream.preSkip`; mutagen's Opus sample: 1.365 s). The stream is dropped and the route blocked,
    /// naming what can: a container with an edit list, or a transcode (whose decoder drops it once, before the cut).
    static func preSkipsReplayed(_ decisions: inout [StreamDecision], source: SourceInfo, container: Container,
                                 timeline: PlannedTimeline) -> [PlanBlocker] {
        guard !container.keeps.editList, timeline.origin - source.startTime > 0.0005 else { return [] }
        var blockers: [PlanBlocker] = []
        for i in decisions.indices {
            guard case .copy = decisions[i].action, decisions[i].kind == .audio else { continue }
            let skip = source.streams[decisions[i].index].preSkip
            guard skip > 4096.0 / 48_000 else { continue }
            let can = Container.allCases.filter { $0.keeps.editList && source.streams[decisions[i].index].fitsIn.contains($0) }
            let blocker = PlanBlocker.preSkipReplayed(stream: decisions[i].index, codec: decisions[i].codec, container: container, seconds: skip, can: can)
            decisions[i].action = .drop(reason: blocker.description)
            blockers.append(blocker)
        }
        return blockers
    }
}
