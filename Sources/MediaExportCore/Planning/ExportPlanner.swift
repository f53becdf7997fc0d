import Foundation

/// Decides, before any decoding, what an export does with every input stream — for one route of the fallback chain.
/// Pure: it reads a `SourceInfo` the FFmpeg layer built and returns an `ExportPlan` the FFmpeg layer runs.
///
/// The routes:
/// - `.transcode`: decode and encode with the preset; for a passthrough preset, a stream copy of each kept stream
///   (`plannedRoute`). Impossible when a main stream the preset keeps has no decoder (`blockers`).
/// - `.remux`: a stream copy. For a transcoding preset (the remux fallback) it keeps only the kinds of stream the
///   preset keeps, ignores the crop and volume edits (they need a transcode), and is impossible when the container
///   cannot hold a main stream the preset keeps (`blockers`).
/// - `.copy`: a byte copy of the resource; always possible, applies no edit and no range.
package enum ExportPlanner {
    /// The route planned for a route of the chain: a passthrough preset copies every stream it keeps (a remux)
    /// wherever the chain would transcode or salvage; a salvage keeps what decodes by the transcode.
    package static func plannedRoute(_ route: ExportRoute, preset: Preset) -> ExportRoute {
        switch route {
        case .copy, .remux: return route
        case .transcode, .salvage: return preset.passthrough ? .remux : .transcode
        }
    }

    /// Why a QuickTime chapter track is not a stream of the output (its chapters are; not a loss, so no warning).
    package static let chapterTrackReason = "chapter track: the chapters themselves are carried over"
    /// The note on a copied video whose rotation or flip went into the display matrix.
    package static let losslessGeometryNote = "rotation/flip applied losslessly to the display matrix"

    /// The plan for one route.
    ///
    /// - Parameters:
    ///   - range: the request's time range, on the timeline of the version delivered (it counts from the sidecar's
    ///     trim, which the planner merges in: `TimeRangePlanning.sourceRange`). The byte copy ignores it, with a note.
    ///   - container: the output's container; nil makes a transcode or remux impossible ("no container for this
    ///     extension"); the byte copy needs none.
    ///   - edits: the sidecar's edits. A passthrough preset asked for crop or volume is refused by the session before
    ///     planning (`editNeedsTranscode`); planned anyway, a stream copy simply does not apply them.
    /// - Throws: `ExportError.invalidTimeRange` (bad range), `noUsableStreams` (an `--audio-language` that matches
    ///   no audio stream) — everything else is a plan (an impossible one carries its reason). The byte copy never throws: it does not read the range.
    ///   - tracks: which audio streams to keep (`--audio-language`, `--audio first`); every one by default.
    package static func plan(source: SourceInfo, preset: Preset, route: ExportRoute, container: Container?,
                            edits: EditSidecar?, range: TimeRange?, tracks: TrackSelection = .all) throws -> ExportPlan {
        if route == .copy { return byteCopy(source, range: range) }

        let mode = Mode(preset: preset, route: route)
        var edits = mode.effectiveEdits(edits)
        let slowNote = mergeSubFrameRegions(&edits, source: source)
        var (timeline, notes) = try TimeRangePlanning.timeline(for: source, range: TimeRangePlanning.sourceRange(timeRange: range, edits: edits),
                                                               streamCopy: mode.streamCopy, editList: container?.keeps.editList ?? false)
        guard let container else {
            return ExportPlan(route: route, container: nil, streams: [], timeline: timeline, notes: notes,
                              impossible: "no container for this extension")
        }

        // Slow motion stretches the output's timeline (a stream copy cannot: the session refuses it before planning,
        // and the remux fallback delivers normal speed with the loss said, like a crop).
        if !mode.streamCopy, let slow = edits?.slowMotion, slow.rate != 1, !slow.regions.isEmpty {
            timeline.slowMotion = slow.normalized
            timeline.sourceStart = source.startTime
            timeline.expectedDuration = timeline.expectedDuration.map { timeline.outputSeconds($0) }
            notes.append(slowMotionNote(slow.normalized))
        }
        if let slowNote { notes.append(slowNote) }
        var decider = StreamDecider(source: source, preset: preset, mode: mode, container: container, edits: edits, tracks: tracks)
        var decisions = source.streams.map { stream in
            var d = decider.decide(stream)
            // Cover art has no timeline: nothing to expect of its duration or frames.
            if d.isKept && !d.isCoverArt {
                capFrameRate(&d, stream: stream, source: source, timeline: timeline)
                d.changes = StreamChange.planned(d, stream: stream, container: container)
                expect(&d, stream: stream, source: source, timeline: timeline)
                if let note = showLeadIn(&d, stream: stream, source: source, container: container, timeline: timeline) { notes.append(note) }
                fillVBV(&d, timeline: timeline)
            }
            return d
        }
        keepFirstAudioOnly(&decisions, tracks: tracks)
        dropLoneExtras(&decisions)
        var blockers = decider.blockers + preSkipsReplayed(&decisions, source: source, container: container, timeline: timeline)
        blockers += kindsLost(decisions, source: source, preset: preset, mode: mode, container: container, edits: edits,
                              blockers: blockers)
        // Progress and the `started` event's duration follow the longest stream kept, not the container: an .m4a of
        // a clip whose audio is shorter than its video lasts as long as the audio.
        if let longest = decisions.filter(\.isKept).compactMap(\.expectedDuration).max() { timeline.expectedDuration = longest }
        stopAudio(&decisions, source: source, timeline: timeline)
        try checkLanguages(tracks, source: source)
        notes += streamNotes(decisions)
        var plan = ExportPlan(route: route, container: container, streams: decisions, timeline: timeline, notes: notes,
                              impossible: impossibleReason(decisions, source: source, mode: mode, container: container, blockers: blockers),
                              blockers: blockers)
        plan.refusal = refusal(plan, source: source, mode: mode, inputFault: decider.inputFault)
        plan.outputOrder = audioOrder(decisions, source: source, tracks: tracks)
        planTimecode(&plan, source: source, container: container)
        plan.metadata = MetadataPlan(source: source, decisions: decisions, level: preset.metadataLevel, container: container)
        plan.chapters = plan.metadata.outputChapters(Chapters.forOutput(source.chapters, timeline: timeline, sourceStartTime: source.startTime))
        if !tracks.keepsAll { plan.defaultAudio = plan.keptInOutputOrder.first { $0.kind == .audio }?.index }
        return plan
    }

    /// What the transcodes do to the pictures and each kept stream's named changes (but those said by a note of their own).
    static func streamNotes(_ decisions: [StreamDecision]) -> [String] {
        var notes: [String] = []
        for case .transcodeVideo(let v) in decisions.map(\.action) {
            notes += PictureProcessing.notes(v)
            if let cap = v.frameRateCap { notes.append(cap.note) }
        }
        for d in decisions where d.isKept { notes += d.changes.filter { !$0.hasOwnNote }.map { $0.note(stream: d.index, kind: d.kind) } }
        return notes
    }

    /// Transcoded audio stops at its own end too: decoders emit an encoder's end padding that the source's edit list
    /// hides, which would make the output a frame longer than the input. Only a duration declared exactly is a
    /// limit: one estimated from timestamps (MPEG-TS) knows nothing of recordings joined after the first, whose
    /// audio the timestamp repair keeps; a trim's length and slow motion's stretched clock are the timeline's.
    static func stopAudio(_ decisions: inout [StreamDecision], source: SourceInfo, timeline: PlannedTimeline) {
        guard timeline.length == nil, source.declaresExactDurations, timeline.slowMotion == nil else { return }
        for i in decisions.indices {
            guard case .transcodeAudio = decisions[i].action else { continue }
            decisions[i].stopsAt = decisions[i].expectedDuration ?? timeline.expectedDuration
        }
    }

    /// An audio selection that matches nothing is a usage error, not a reason to deliver every track by copy.
    static func checkLanguages(_ tracks: TrackSelection, source: SourceInfo) throws {
        let audio = source.streams.filter { $0.kind == .audio }
        guard let wanted = tracks.audioLanguages, !wanted.isEmpty, !audio.isEmpty,
              !audio.contains(where: { tracks.wants(language: $0.language) }) else { return }
        let have = Set(audio.map { $0.language ?? "und" }).sorted().joined(separator: ", ")
        throw ExportError.noUsableStreams(path: source.path, reason: "no audio stream in \(wanted.joined(separator: ", ")) (the file has: \(have))")
    }

    /// `--audio first`: the first audio stream kept, alone.
    static func keepFirstAudioOnly(_ decisions: inout [StreamDecision], tracks: TrackSelection) {
        guard tracks.firstAudioOnly, let first = decisions.first(where: { $0.kind == .audio && $0.isKept }) else { return }
        for k in decisions.indices where decisions[k].kind == .audio && decisions[k].isKept && decisions[k].index != first.index {
            decisions[k].action = .drop(reason: "--audio first keeps only audio stream #\(first.index)")
        }
    }

    /// Subtitles and cover art with nothing to go with are dropped (`dropLoneSubtitles`, `dropLoneCoverArt`).
    static func dropLoneExtras(_ decisions: inout [StreamDecision]) {
        dropLoneSubtitles(&decisions)
        dropLoneCoverArt(&decisions)
    }

    /// Subtitles belong to a picture or a sound: with no video or audio kept (an audio-only preset on a film without
    /// audio, into a container that would take the subtitles), they are no export, and the route is impossible.
    static func dropLoneSubtitles(_ decisions: inout [StreamDecision]) {
        guard !decisions.contains(where: { $0.isKept && !$0.isCoverArt && ($0.kind == .video || $0.kind == .audio) }) else { return }
        for k in decisions.indices where decisions[k].isKept && decisions[k].kind == .subtitle {
            decisions[k].action = .drop(reason: "subtitles alone are no export (no video or audio is kept)")
            decisions[k].changes = []
        }
    }

    /// A cover belongs to what is exported with it: alone, it is no export (the file's picture in an empty .mp4).
    static func dropLoneCoverArt(_ decisions: inout [StreamDecision]) {
        guard !decisions.contains(where: { $0.isKept && !$0.isCoverArt }) else { return }
        for k in decisions.indices where decisions[k].isCoverArt {
            decisions[k] = StreamDecision(index: decisions[k].index, kind: decisions[k].kind, codec: decisions[k].codec,
                                          action: .drop(reason: CoverArt.aloneReason))
        }
    }

    /// A kind of stream the source has and the preset keeps is never lost whole: if every video (or every audio)
    /// stream had to be dropped — no picture size, no sample rate, only cover art left — the route cannot deliver
    /// what was asked, and the chain goes on (the byte copy keeps everything). The blockers this adds to `blockers`.
    static func kindsLost(_ decisions: [StreamDecision], source: SourceInfo, preset: Preset, mode: Mode, container: Container,
                          edits: EditSidecar?, blockers: [PlanBlocker]) -> [PlanBlocker] {
        var added: [PlanBlocker] = []
        for kind in [SourceStream.Kind.video, .audio] {
            let presetKeeps: Bool
            if mode.streamCopy {
                presetKeeps = kind == .video ? mode.keepVideo : mode.keepAudio
            } else {
                presetKeeps = kind == .video ? (preset.video != nil && container != .m4a) : preset.audio != nil
            }
            // Muting is an edit asked for: its audio is meant to go.
            guard presetKeeps, !(kind == .audio && edits?.mute == true) else { continue }
            let candidates = source.streams.filter { $0.kind == kind && !$0.isAttachedPicture }
            guard !candidates.isEmpty, !candidates.contains(where: { decisions[$0.index].isKept }) else { continue }
            // Already said by a blocker naming one of them (a container that cannot hold it, no decoder)?
            guard !(blockers + added).contains(where: { b in candidates.contains { b.stream == $0.index } }) else { continue }
            let reasons = candidates.map { c in "#\(c.index) \(c.codec): \(decisions[c.index].streamPlan.reason ?? "dropped")" }
            added.append(.kindLost(kind, reasons: reasons))
        }
        return added
    }

    /// Why the route cannot run, or nil.
    static func impossibleReason(_ decisions: [StreamDecision], source: SourceInfo, mode: Mode, container: Container,
                                 blockers: [PlanBlocker]) -> String? {
        if !decisions.contains(where: \.isKept) {
            let kinds = decisions.map { "#\($0.index) \($0.kind.rawValue) \($0.codec): \($0.streamPlan.reason ?? "")" }.joined(separator: "; ")
            // A stream copy's blockers follow: they name the containers that can hold what this one cannot.
            let can = mode.streamCopy && !blockers.isEmpty ? "; \(joined(blockers))" : ""
            return source.streams.isEmpty ? "the file has no streams"
                : "no stream can be exported with preset \(mode.presetName) to .\(container.rawValue) (\(kinds))\(can)"
        }
        // A main stream without a decoder skips the transcode: dropping it would deliver the rest as a success.
        return blockers.isEmpty ? nil : "\(mode.streamCopy ? "remux" : "transcode") skipped: \(joined(blockers))"
    }

    /// The request's own route (a transcode, or a passthrough preset's stream copy) cannot give what was asked of this
    /// container for a healthy input — a codec the container cannot hold, a rotation a copy would lose: the export
    /// is refused before any work (`ExportPlan.refusal`), as no fallback would deliver what was asked. An input that
    /// lacks something (no decoder, no picture size), or has no stream at all, still goes down the chain; so does the
    /// remux fallback of a transcoding preset (it runs only after the transcode failed on the input).
    static func refusal(_ plan: ExportPlan, source: SourceInfo, mode: Mode, inputFault: Bool) -> String? {
        guard !mode.remuxOfTranscodingPreset, let reason = plan.impossible, !inputFault, !source.streams.isEmpty else { return nil }
        return plan.blockers.isEmpty ? reason : joined(plan.blockers)
    }

    /// The blockers' words, joined for a reason.
    package static func joined(_ blockers: [PlanBlocker]) -> String { blockers.map(\.description).joined(separator: "; ") }

    /// The audio streams in `--audio-language`'s order (a language's streams in the source's), in the audio's
    /// places; nil when that is the source's order or fewer than two languages were asked for.
    static func audioOrder(_ decisions: [StreamDecision], source: SourceInfo, tracks: TrackSelection) -> [Int]? {
        guard let wanted = tracks.audioLanguages, wanted.count > 1 else { return nil }
        let rank = { (d: StreamDecision) in
            wanted.firstIndex { TrackSelection.canonical($0) == TrackSelection.canonical(source.streams[d.index].language ?? "und") } ?? wanted.count
        }
        let kept = decisions.filter(\.isKept)
        var audio = kept.filter { $0.kind == .audio }.enumerated().sorted { (rank($0.element), $0.offset) < (rank($1.element), $1.offset) }
            .map(\.element.index).makeIterator()
        let order = kept.map { $0.kind == .audio ? audio.next()! : $0.index }  // one audio index per kept audio stream
        return order != kept.map(\.index) ? order : nil
    }

    /// The cut the FFmpeg layer should look up a keyframe for (`SourceInfo.cutKeyframe`) before planning `route`:
    /// the start, in seconds from the source's start, of a stream copy that starts after 0 in a source with a main
    /// video. nil when no lookup is needed — or when the range is invalid (`plan` then throws).
    package static func keyframeLookup(source: SourceInfo, preset: Preset, route: ExportRoute, edits: EditSidecar?, range: TimeRange?) -> Double? {
        let mode = Mode(preset: preset, route: route)
        guard route != .copy, mode.streamCopy, source.mainVideo != nil,
              let checked = try? TimeRangePlanning.validate(TimeRangePlanning.sourceRange(timeRange: range, edits: mode.effectiveEdits(edits)),
                                                            duration: source.duration, path: source.path),
              checked.start > 0 else { return nil }
        return checked.start
    }

    /// The edits (and the time range) a fallback route cannot apply, joined for a message: nil when the version delivered is not the current one, for a transcode, or when
    /// nothing is lost. A remux loses the crop and volume; a byte copy loses the whole sidecar and the time range.
    ///
    /// - Parameters:
    ///   - sidecarName: the sidecar's file name, for the byte copy's "the edits of IMG_1.edit.json".
    ///   - timeRangeGiven: the request has a time range.
    ///   - deliversCurrent: the version selected is the current one (`VersionReport.delivered == .current`).
    package static func editsLost(by route: ExportRoute, edits: EditSidecar?, sidecarName: String?, timeRangeGiven: Bool,
                                 deliversCurrent: Bool) -> String? {
        guard deliversCurrent, route != .transcode else { return nil }
        var lost: [String] = []
        if let edits, !edits.isEmpty {
            lost = route == .copy ? ["the edits of \(sidecarName ?? "the sidecar")"] : edits.needsTranscode
        }
        if route == .copy && timeRangeGiven { lost.append("the time range") }
        return lost.isEmpty ? nil : lost.joined(separator: ", ")
    }

    /// A `maxBitrate` cap's VBV buffer starts nearly full in x264/x265 (90 %): the encoder may spend that much above
    /// the cap at the start, which on a clip of a few seconds lifts its average well over the cap (ffmpeg's
    /// `-maxrate 400k -bufsize 800k` gives 504 kb/s on 3 s). The buffer is started fuller only as the output's
    /// length allows: the start's extra at most 15 % of the cap over the whole output (2 % … 90 % full).
    static func fillVBV(_ d: inout StreamDecision, timeline: PlannedTimeline) {
        guard case .transcodeVideo(var v) = d.action, let cap = v.settings.maxBitrate,
              let seconds = d.expectedDuration ?? timeline.expectedDuration, seconds > 0 else { return }
        let buffer = Double(v.settings.bufferSize ?? 2 * cap)
        v.vbvInitialFill = min(0.9, max(0.02, 0.15 * Double(cap) * seconds / buffer))
        d.action = .transcodeVideo(v)
    }

    // MARK: - Streams

    /// How a route treats a preset: the remux fallback of a transcoding preset is named "<name> (remux)" in reasons.
    struct Mode {
        /// Packets are copied, not decoded (passthrough preset, or any remux).
        var streamCopy: Bool
        /// The remux fallback of a transcoding preset: blockers make it impossible, crop/volume are ignored.
        var remuxOfTranscodingPreset: Bool
        /// The preset name in reasons ("<name> (remux)" for the remux fallback).
        var presetName: String
        /// A stream copy keeps video unless the preset keeps audio only.
        var keepVideo: Bool
        /// A stream copy keeps audio unless the preset keeps video only.
        var keepAudio: Bool

        init(preset: Preset, route: ExportRoute) {
            streamCopy = ExportPlanner.plannedRoute(route, preset: preset) == .remux
            remuxOfTranscodingPreset = streamCopy && !preset.passthrough
            presetName = remuxOfTranscodingPreset ? "\(preset.name) (remux)" : preset.name
            keepVideo = preset.video != nil || preset.audio == nil
            keepAudio = preset.audio != nil || preset.video == nil
        }

        /// The edits this mode applies: the remux fallback drops the crop and volume (only a transcode applies them;
        /// a passthrough preset asked for them is refused by the session before planning, `editNeedsTranscode`).
        func effectiveEdits(_ edits: EditSidecar?) -> EditSidecar? {
            guard remuxOfTranscodingPreset, var edits else { return edits }
            edits.crop = nil
            edits.volume = nil
            return edits
        }
    }

    /// What a kept stream should come out as: its own duration from the timeline's start, cut to the timeline's
    /// length; the container's duration when it declares none of its own.
    static func expect(_ d: inout StreamDecision, stream s: SourceStream, source: SourceInfo, timeline: PlannedTimeline) {
        let start = max(0, timeline.origin - source.startTime)
        let own = s.duration.map { max(0, $0 - start) }
        // On the source's clock first (the timeline's expected duration is the output's: stretched by slow motion).
        var expected = own ?? (timeline.slowMotion == nil ? timeline.expectedDuration : source.duration.map { max(0, $0 - start) })
        if let length = timeline.length { expected = expected.map { min($0, length) } ?? length }
        let inputExpected = expected
        d.expectedDuration = expected.map { timeline.outputSeconds($0) }
        let trustworthy = source.declaresExactDurations && s.durationIsOwn && own != nil
        d.durationExact = trustworthy || (timeline.length != nil && own.map { $0 >= timeline.length! } == true && source.declaresExactDurations)
        // A variable-rate video's length is container accounting (an MP4 states it by decode times, Matroska to the
        // last frame's end): what was written is the measure. A part of it holds no share of its frames either.
        let part = start > 0 || (timeline.length.map { l in own.map { $0 > l } ?? true } ?? false)
        if s.variableRate { d.durationExact = false }
        if case .copy = d.action, s.kind == .video, let length = timeline.length, own.map({ $0 > length }) ?? true { d.framesPastEnd = s.reorderDepth }
        if s.kind == .video, let count = s.frameCount, count > 0, let total = s.duration, total > 0, let expected = inputExpected, trustworthy,
           !(s.variableRate && part) {
            d.expectedFrames = Int((Double(count) * min(1, expected / total)).rounded())  // expected ≥ 0, total > 0: 0…count
        }
        if s.kind == .video, d.expectedFrames == nil, let frames = framesInRange(s, timeline: timeline, own: source.durationsEstimated ? nil : own) {
            d.expectedFrames = frames
            d.framesEstimated = true
        }
        if case .transcodeVideo(let v) = d.action, let cap = v.frameRateCap, let frames = d.expectedFrames {
            // What the slots hold of frames evenly spaced on the output's clock (the verifier takes it as a ceiling:
            // a source slower than the cap in places keeps fewer); unknown when slow motion slows only part of it.
            d.expectedFrames = cap.slowed ? nil : cap.shownRate.map { FrameRateCap.keptFrames(frames, sourceRate: $0, maxFrameRate: cap.maxFrameRate) }
        }
    }

    /// The frames a range of a stream of constant frame rate holds (its length at that rate), when the stream declares
    /// no count but goes on past the range (`own`: its seconds from the range's start): the prediction that makes a
    /// short delivery on healthy input fail (a seek that lost a GOP), which "as written" would pass. nil otherwise:
    /// no range, slow motion, an unknown or variable rate (`frameRate` is the average; `baseFrameRate` every step; an
    /// index that shows gaps, `variableRate`, though both rates agree: an AVI's empty chunks).
    static func framesInRange(_ s: SourceStream, timeline: PlannedTimeline, own: Double?) -> Int? {
        guard let length = timeline.length, length > 0, timeline.slowMotion == nil, let own, own >= length, !s.variableRate,
              let rate = s.frameRate, let base = s.baseFrameRate, rate > 0, abs(rate - base) <= base * 0.001 else { return nil }
        return Int((length * rate).rounded())
    }

    /// `video.maxFrameRate`: whether the transcoded video's frames come faster than it on the output's timeline.
    /// Slow motion slows the regions it covers: when one covers all that is exported, the frames come that much slower.
    static func capFrameRate(_ d: inout StreamDecision, stream s: SourceStream, source: SourceInfo, timeline: PlannedTimeline) {
        guard case .transcodeVideo(var v) = d.action, let cap = v.settings.maxFrameRate else { return }
        var playback = 1.0, slowed = false
        if let slow = timeline.slowMotion {
            // On the original's timeline, as the regions are.
            let start = timeline.origin - timeline.sourceStart
            let end = timeline.length.map { start + $0 } ?? source.duration
            if let end, slow.regions.contains(where: { $0.start <= start + 1e-6 && $0.end >= end - 1e-6 }) { playback = slow.rate } else { slowed = true }
        }
        v.frameRateCap = FrameRateCap.planned(maxFrameRate: cap, sourceRate: s.frameRate, playback: playback, slowed: slowed)
        d.action = .transcodeVideo(v)
    }

    /// Joins slow-motion regions closer than a frame of the video and drops those shorter than one
    /// (`SlowMotion.withoutSubFrameRegions`), in `edits` (no slow motion when none is left); the note when it changed any.
    static func mergeSubFrameRegions(_ edits: inout EditSidecar?, source: SourceInfo) -> String? {
        guard let slow = edits?.slowMotion, slow.rate != 1, !slow.regions.isEmpty,
              let fps = source.firstVideo.flatMap({ $0.frameRate ?? $0.baseFrameRate }), fps > 0 else { return nil }
        let (kept, merged, dropped) = slow.withoutSubFrameRegions(frame: 1 / fps)
        guard merged + dropped > 0 else { return nil }
        edits?.slowMotion = kept.regions.isEmpty ? nil : kept
        let count = slow.normalized.regions.count
        return String(format: "slow motion: of %d region%@, %d joined with a neighbour less than a frame away and %d shorter than a frame dropped (a frame is %.0f ms at %@ fps): %d left",
                      count, count == 1 ? "" : "s", merged, dropped, 1000 / fps, FrameRateCap.format(fps), kept.regions.count)
    }

    /// What the slow motion does, for the notes.
    static func slowMotionNote(_ slow: SlowMotion) -> String {
        let regions = slow.regions.map { String(format: "%.3f–%.3f s", $0.start, $0.end) }.joined(separator: ", ")
        return String(format: "slow motion: %@ played at %g× (video timestamps stretched, audio slowed with its pitch kept); a flat rate, without Photos' speed ramps",
                      regions, slow.rate)
    }

    /// The byte copy: every stream goes along untouched; the range cannot be applied.
    static func byteCopy(_ source: SourceInfo, range: TimeRange?) -> ExportPlan {
        let streams = source.streams.map { s in
            StreamDecision(index: s.index, kind: s.kind, codec: s.codec, action: .copy(displayMatrix: nil),
                           width: s.kind == .video ? s.width : nil, height: s.kind == .video ? s.height : nil)
        }
        // No expected duration: a byte copy's progress is not time-based.
        return ExportPlan(route: .copy, container: nil, streams: streams, timeline: PlannedTimeline(origin: source.startTime),
                          notes: range != nil ? ["time range not applied by a byte copy"] : [])
    }
}
