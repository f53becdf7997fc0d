internal import CFFmpeg
import Foundation
import MediaExportCore

/// The executor: runs one route's plan on the calling thread, demux → stages → mux. It decides nothing: every
/// stream's fate and the timeline come from the `ExportPlan`. Like FFmpeg 7's scheduler, it owns the graph:
/// stages (`StreamStage`: transcode, or the stream-copy bypass) take packets and hand packets back, and this
/// loop alone writes the muxer and keeps the counts. Everything FFmpeg is owned here (through the stages) and
/// freed when the transcoder goes away.
package final class Transcoder {
    let demuxer: Demuxer
    let plan: ExportPlan
    let timeline: Timeline
    package let expectedDuration: Double?
    private let source: String
    /// The output; nil for a run into FFmpeg's `null` muxer (a first pass, a sample encode): nothing is written,
    /// checked or committed.
    private let target: OutputTarget?
    /// The pass of a two-pass video encode this run is.
    private let pass: EncoderPass?
    /// The main video is decoded on a thread of its own.
    private let pipelined: Bool
    private let cancel: CancelToken
    let errors: ErrorPolicy
    private let container: Container
    /// A salvage: a file cut short is delivered as far as its data goes (`Outcome.partialCause` says so) instead of refused.
    package var salvage = false
    /// Test hook: hang (until stopped) once the output reaches this time, to exercise the stall watchdog.
    package var debugStallAtOutputTime: Double?
    /// Test hook: packets of streams of this kind are not written (a broken output the verifier must catch).
    package var debugLoseStreamKind: SourceStream.Kind?
    /// How the codecs run: their threads, and whether deterministic (`CodecRun`).
    private let codecs: CodecRun
    /// The container tags the output gets (see `OutputTags`).
    private let tags: [String: String]
    let info: SourceInfo
    /// Each output stream's packets written so far, read by the progress observer between packets.
    package let written = WrittenSoFar()
    /// Seconds of the main video, from its first frame, whose packets `Outcome.videoOutput` counts apart
    /// (`windowFrames`, `windowBytes`): a sample encode's measured frames, between the frames that warm the encoder
    /// up and those that keep its lookahead full.
    package var measuredWindow: Range<Double>?
    /// Measures the main video's encode against the frames given to it (`Outcome.scores`); nil: nothing measured.
    package var scoring: Scoring?

    /// Takes the source's demuxer (see `ProbedSource.takeDemuxer`) for a possible plan. How the plan is run, not what
    /// it makes: `pipelined` decodes the video on a thread of its own (`DecodeThread`); `codecs` is how each
    /// decoder, encoder and filter graph runs (`CodecRun`: threads, deterministic).
    package init(source: ProbedSource, plan: ExportPlan, target: OutputTarget?, cancel: CancelToken, errors: ErrorPolicy = ErrorPolicy(),
                 tags: [String: String]? = nil, pass: EncoderPass? = nil, pipelined: Bool = false, codecs: CodecRun = CodecRun()) throws {
        self.pipelined = pipelined
        self.codecs = codecs
        guard plan.isPossible, let container = plan.container else {
            throw ExportError.noUsableStreams(path: source.info.path, reason: plan.impossible ?? "no container for this extension")
        }
        self.source = source.info.path
        self.info = source.info
        self.tags = tags ?? OutputTags.forOutput(resource: source.info.tags, original: nil).tags
        self.errors = errors
        self.container = container
        self.target = target
        self.pass = pass
        self.cancel = cancel
        self.plan = plan
        demuxer = try source.takeDemuxer()
        timeline = Timeline(origin: plan.timeline.origin, length: plan.timeline.length,
                            slowMotion: plan.timeline.slowMotion == nil ? nil : plan.timeline)
        expectedDuration = plan.timeline.expectedDuration
    }

    /// Builds one stage per kept stream, in the output's order (`keptInOutputOrder`); dropped streams get none.
    private func makeStages(muxer: Muxer) throws -> [StreamStage] {
        var stages: [StreamStage] = []
        // In the output's order: each stage adds its output stream when it is made.
        for decision in plan.keptInOutputOrder {
            let input = demuxer.streams[decision.index]
            switch decision.action {
            case .transcodeVideo(let v):
                stages.append(try VideoTranscodeStage(input: input, plan: v, muxer: muxer, timeline: timeline, strict: errors.strict, path: source,
                                                      pass: pass, pipelined: pipelined, cancel: cancel, codecs: codecs, source: info))
            case .transcodeAudio(let a):
                var audioTimeline = timeline
                if let stop = decision.stopsAt { audioTimeline.length = stop }
                stages.append(try AudioTranscodeStage(input: input, plan: a, muxer: muxer, timeline: audioTimeline, strict: errors.strict, path: source,
                                                      codecs: codecs))
            case .transcodeSubtitle(let codec):
                stages.append(try SubtitleTranscodeStage(input: input, encoderName: codec, muxer: muxer, timeline: timeline,
                                                         strict: errors.strict, path: source))
            case .copy(let displayMatrix):
                stages.append(try StreamCopyStage(input: input, displayMatrix: displayMatrix, muxer: muxer, timeline: timeline,
                                                  trimmed: timeline.origin > demuxer.startTime, leadIn: plan.timeline.leadIn > 0,
                                                  variableRate: info.streams[decision.index].variableRate))
            case .coverArt(let strips):
                stages.append(try CoverArtStage(input: input, muxer: muxer, stripsMetadata: strips))
            case .drop:
                break
            }
        }
        // The planned timecode, on the main video's output stream: the MP4/MOV muxer makes a timecode track of it.
        if let timecode = plan.timecode, let value = timecode.output, let stage = stages.first(where: { Int($0.inputIndex) == timecode.stream }) {
            av_dict_set(&stage.outputStream.pointee.metadata, "timecode", value, 0)
        }
        for stage in stages {
            let index = Int(stage.inputIndex)
            setStreamTags(stage.outputStream, dropping: plan.metadata.streams[index] ?? [], neutral: plan.metadata.neutral[index] ?? [:],
                          language: index < info.streams.count ? info.streams[index].language : nil, container: container)
        }
        // A track selection's first audio stream is the default one; the others are not (the source's may be gone).
        if let main = plan.defaultAudio {
            for stage in stages where plan.streams[Int(stage.inputIndex)].kind == .audio {
                let d = stage.outputStream.pointee.disposition
                stage.outputStream.pointee.disposition = Int(stage.inputIndex) == main ? d | cff_disposition_default() : d & ~cff_disposition_default()
            }
        }
        return stages
    }

    /// What `run` tells its observer after every packet: the output time, the video frames, and whether it is the last call.
    typealias RunProgress = (_ outputTime: Double, _ videoFrames: Int, _ final: Bool) -> Void

    /// Streams the whole export into the target's temporary file. `progress` is called after every packet.
    package func run(beforeCommit: () throws -> Void = {}, progress: (_ outputTime: Double, _ videoFrames: Int, _ final: Bool) -> Void) throws -> Outcome {
        var state = try start()
        try pump(&state, progress: progress)
        try drain(&state, progress: progress)
        return try finish(&state, beforeCommit: beforeCommit, progress: progress)
    }

    /// Opens the muxer, builds the stages, writes the header (with the chapters) and seeks to the timeline's start.
    private func start() throws -> RunState {
        let muxer = try Muxer(target: target, container: container, cancel: cancel)
        let ordered = try makeStages(muxer: muxer)
        if let scoring { try attachScoring(scoring, to: ordered) }
        var byInput = [StreamStage?](repeating: nil, count: demuxer.streams.count)
        for stage in ordered { byInput[Int(stage.inputIndex)] = stage }
        // Only the streams we use are demuxed; the rest are discarded inside libavformat — unless a kept stream
        // declares no duration of its own: then where the whole file's data ends is what tells a truncated file
        // from one whose dropped streams simply run longer, so their packets are read (never decoded).
        let measureAll = plan.streams.contains { $0.isKept && !(info.streams[$0.index].durationIsOwn) }
        if !measureAll {
            for stream in demuxer.streams where byInput[Int(stream.pointee.index)] == nil { stream.pointee.discard = AVDISCARD_ALL }
        }
        if plan.copiesTimedStream { demuxer.generatesPresentationTimes() }

        // The plan's chapters: the source's on the output's timeline, with the tags the metadata level keeps.
        let chapters = plan.chapters
        try muxer.setChapters(chapters)
        try muxer.writeHeader(metadata: tags, reservedIndex: target == nil ? nil : indexReservation(ordered, chapters: chapters))
        try demuxer.seek(toStartOf: plan, origin: timeline.origin, mainVideo: info.mainVideo,
                         decoderLead: ordered.compactMap { ($0 as? AudioTranscodeStage)?.decoderLead }.max() ?? 0)
        demuxer.countErrorsFromHere()

        let lost: Set<Int32> = debugLoseStreamKind.map { kind in
            Set(ordered.filter { plan.streams[Int($0.inputIndex)].kind == kind }.map(\.inputIndex))
        } ?? []
        written.reset(outputs: ordered.count)
        return RunState(muxer: muxer, stages: ordered, byInput: byInput,
                        counts: Counts(outputs: ordered.count, inputBases: demuxer.streams.map { av_q2d($0.pointee.time_base) },
                                       coverage: ByteCoverage(audioOf: info)),
                        mainVideo: ordered.first { $0 is VideoTranscodeStage }?.inputIndex, lost: lost, written: written,
                        measuredWindow: measuredWindow, cancel: cancel)
    }

    /// Reads the input to its end, or until every stage is done: each packet goes through its stage, and what comes
    /// out straight to the muxer. The damage is checked and the progress told after every packet.
    private func pump(_ state: inout RunState, progress: RunProgress) throws {
        let packet = Packet()
        // One per export: keeps the input's timeline continuous across discontinuities (see `TimestampRepair`).
        let timestamps = TimestampRepair(context: demuxer.context)
        reading: while true {
            if cancel.isSet { throw ExportError.cancelled }
            switch try demuxer.read(into: packet) {
            case .endOfFile: break reading
            case .packet:
                // A packet the demuxer could only read in part (the file ends inside it) counts as corrupt.
                if (packet.pointer.pointee.flags & AV_PKT_FLAG_CORRUPT) != 0 { state.counts.skippedPackets += 1 }
                let index = Int(packet.pointer.pointee.stream_index)
                state.counts.noteRead(packet.pointer.pointee)
                // Streams that appear mid-file (MPEG-TS may add some) have no stage.
                if index < state.byInput.count, let stage = state.byInput[index] {
                    // Where the data ends is measured above on the source's own clock; the stage gets the
                    // packet on the repaired, continuous one.
                    state.counts.add(timestamps.repair(packet, for: stage))
                    state.counts.add(try stage.send(packet))
                    try state.takeReady(from: stage, progress: progress)
                }
                packet.unref()
            }
            try checkDamage(state.counts)
            if state.counts.skippedPackets > 0 && state.counts.firstSkipAt == nil { state.counts.firstSkipAt = state.counts.outputTime }
            progress(state.counts.outputTime, state.counts.videoFrames, false)
            if let stallAt = debugStallAtOutputTime, state.counts.outputTime >= stallAt {
                while !cancel.isSet { usleep(10_000) }
            }
            if state.stages.allSatisfy(\.isDone) { break reading }
        }
    }

    /// End of stream flows downstream explicitly, stream by stream: decoders, then filters, then encoders.
    private func drain(_ state: inout RunState, progress: RunProgress) throws {
        for stage in state.stages {
            if cancel.isSet { throw ExportError.cancelled }
            state.counts.add(try stage.sendEndOfStream())
            try state.takeReady(from: stage, reporting: true, progress: progress)
        }
        try checkDamage(state.counts)
    }

    /// Throws `tooManyDecodeErrors` once more packets were skipped than the error policy allows.
    private func checkDamage(_ counts: Counts) throws {
        if counts.skippedPackets > errors.threshold {
            throw ExportError.tooManyDecodeErrors(path: source, count: counts.skippedPackets, threshold: errors.threshold)
        }
    }

    /// Refuses a truncated input, completes the output, frees the codecs, and checks the output against the plan
    /// (when there is one) before `beforeCommit`; says what the run did.
    private func finish(_ state: inout RunState, beforeCommit: () throws -> Void, progress: RunProgress) throws -> Outcome {
        var counts = state.counts
        let kept = plan.keptInOutputOrder
        let truncation = truncation(kept: kept, counts: counts)
        // A kept stream's data ran out well before its own duration: a truncated file. Delivering the short result
        // as if it were complete would hide the damage; only a salvage delivers it, and says so.
        if let truncation, !salvage { throw ExportError.truncated(path: source, reason: truncation) }
        // A salvage of which nothing decoded has nothing to deliver, nor one of a kept video or audio stream of which
        // nothing decoded (its track would be empty): the byte copy is then the last step.
        if salvage, let empty = kept.indices.first(where: { (kept[$0].kind == .video || kept[$0].kind == .audio) && counts.packets[$0] == 0 }) {
            let what = counts.endTime.allSatisfy({ $0 == nil }) ? "it" : "\(kept[empty].kind.rawValue) stream #\(kept[empty].index)"
            throw ExportError.truncated(path: source, reason: "nothing of \(what) decodes" + (truncation.map { ": " + $0 } ?? ""))
        }
        try state.muxer.finish()
        let scores = try finishScoring(state.stages)
        try demuxer.verifyUnchanged()
        if target == nil {
            // Nothing was written: a first pass or a sample encode has nothing to check.
            progress(counts.outputTime, counts.videoFrames, true)
            return Outcome(skippedPackets: counts.skippedPackets, notes: plan.notes, timestampRepairs: counts.timestampRepairs,
                           droppedFrames: counts.droppedFrames, videoFrames: counts.videoFrames, verification: Verification(checks: []),
                           videoOutput: state.video, scores: scores)
        }
        // The codecs are done: free them (an encoder's lookahead is most of an export's memory) before the output
        // is read back, so that reading it never adds to the export's peak.
        let stageNotes = state.stages.flatMap { ($0 as? VideoTranscodeStage)?.notes ?? [] }
        let audioGaps = state.stages.flatMap { ($0 as? AudioTranscodeStage)?.gaps ?? [] }
        // A cut's loose end is no loss, unless the data shows damage (`FrameHoles.lost(stream:looseEndIsLoss:)`).
        let damageSeen = counts.skippedPackets > 0 || !demuxer.unreadable.isEmpty || demuxer.loggedErrors > 0 || info.endsInsidePacket
        let measured = info.countsTimestampHoles ? state.stages.compactMap { s in (s as? MeasuresHoles)?.measuredHoles.map { (Int(s.inputIndex), $0) } } : []
        let lostFrames = measured.flatMap { $1.lost(stream: $0, looseEndIsLoss: damageSeen) }
        let looseEnds = damageSeen ? [] : measured.flatMap { $1.looseEnd(stream: $0) }
        let stageWarnings = state.stages.flatMap { ($0 as? VideoTranscodeStage)?.warnings ?? ($0 as? AudioTranscodeStage)?.warnings ?? [] }
        let heldLonger = state.stages.flatMap { ($0 as? VideoTranscodeStage)?.heldLonger ?? [] }
        state.stages.removeAll()
        state.byInput.removeAll()
        let delivered = counts.delivered(kept: kept, lostFrames: lostFrames + heldLonger + looseEnds, fromZero: container.isQuickTimeFamily)
        let damage = damageAccount(kept: kept, counts: counts, lostFrames: lostFrames, audioGaps: audioGaps)
        // The limit counts what was lost as well as what was rejected (`ExportEvent.Damage`).
        if damage.counted > errors.threshold && !salvage {
            throw ExportError.tooManyDecodeErrors(path: source, count: damage.counted, threshold: errors.threshold)
        }
        counts.skippedPackets = damage.total
        let damaged = counts.skippedPackets > 0 || truncation != nil
        // Repaired timestamps move media on the timeline: the header's durations no longer describe the output, what
        // was written does (the repairs are counted and said).
        let (verification, facts) = try verify(delivered: delivered, damaged: damaged || counts.timestampRepairs > 0 || !audioGaps.isEmpty,
                                               inputEnd: counts.inputEnd)
        try beforeCommit()
        progress(counts.outputTime, counts.videoFrames, true)
        // A salvage of a file cut short says where its data ends once (`Outcome.partialCause`), not again for each stream.
        let shortfalls = stageWarnings + kept.enumerated().compactMap { j, decision in
            damaged && truncation == nil ? shortfall(decision, delivered: delivered[j], counts: counts) : nil
        }
        return Outcome(skippedPackets: counts.skippedPackets, notes: plan.notes + stageNotes, timestampRepairs: counts.timestampRepairs,
                       droppedFrames: counts.droppedFrames, videoFrames: counts.videoFrames, verification: verification, shortfalls: shortfalls,
                       audioGaps: audioGaps, lostFrames: lostFrames, videoOutput: state.video, output: facts,
                       partialCause: salvage ? partialCause(truncation: truncation, damage: damage) : nil,
                       damage: damage.isEmpty ? nil : damage, scores: scores)
    }

    /// Room for the moov at the front of an MP4-family output (`Muxer.writeHeader(metadata:reservedIndex:)`), when
    /// its size can be bounded for sure: every stream copied packet for packet from a source that says how many
    /// packets each has (an MP4/MOV's index), so the output has at most that many. nil otherwise (the faststart pass,
    /// as always), and for files where the room would be over 1 % of the source (a small file's rewrite is cheap).
    ///
    /// The bound: 64 bytes a packet (the sample tables take at most 49: stsz 4, stco/co64 8 and stsc 12 a chunk of
    /// one packet, stts and ctts 8 each, stss 4, stps 4, sdtp 1; movenc writes 12-20), each stream's codec
    /// configuration, tags and cover twice over, each chapter's title and its text track, and 64 KiB. An index
    /// larger than its room fails the mux (`reserved_moov_size is too small`), so the bound is meant to be loose.
    private func indexReservation(_ stages: [StreamStage], chapters: [OutputChapter]) -> Int64? {
        guard container.isQuickTimeFamily,
              stages.allSatisfy({ $0 is StreamCopyStage || $0 is CoverArtStage }) else { return nil }
        var bytes: Int64 = 64 << 10
        for stage in stages {
            let input = demuxer.streams[Int(stage.inputIndex)]
            let output = stage.outputStream
            let packets = input.pointee.nb_frames
            if stage is StreamCopyStage {
                guard packets > 0 else { return nil }
                bytes += 64 * packets
            } else {
                bytes += 2 * Int64(max(0, input.pointee.attached_pic.size))
            }
            bytes += 4096 + 2 * Int64(max(0, output.pointee.codecpar.pointee.extradata_size))
            bytes += 2 * Demuxer.dictionary(output.pointee.metadata).reduce(0) { $0 + Int64($1.key.utf8.count + $1.value.utf8.count + 32) }
        }
        bytes += 2 * tags.reduce(0) { $0 + Int64($1.key.utf8.count + $1.value.utf8.count + 64) }
        bytes += chapters.reduce(0) { $0 + 256 + 2 * $1.tags.reduce(0) { $0 + Int64($1.key.utf8.count + $1.value.utf8.count) } }
        return bytes * 100 <= info.size ? bytes : nil
    }

    /// Why the output is short, if a kept stream's data ended well before its own expected duration (a stream
    /// the preset drops is never the measure): cut short, or with a stretch of the file that could not be read. Where
    /// the data ends is measured on the packets read, so a stream whose packets were there but did not decode is
    /// damage (counted, and said in the warnings), not truncation.
    /// Durations FFmpeg guessed from the bit rate are not trusted for this.
    private func truncation(kept: [StreamDecision], counts: Counts) -> String? {
        guard !info.durationsEstimated else { return nil }
        let origin = timeline.origin
        let fileEnd = counts.inputEnd.compactMap { $0 }.max()
        for (j, decision) in kept.enumerated() where decision.kind == .video || decision.kind == .audio {
            guard let expected = decision.expectedDuration, decision.index < counts.inputEnd.count else { continue }
            // A stream without a duration of its own is measured by where the whole file's data ends.
            let own = info.streams[decision.index].durationIsOwn
            // How much of its duration the data covers: from the stream's first packet when that comes before the
            // output's start and nothing was cut (an Opus stream's declared duration counts its pre-skip before 0).
            var from = origin
            if timeline.length == nil && origin <= info.startTime, let first = counts.inputStart[decision.index] { from = min(from, first) }
            var end = (own ? counts.inputEnd[decision.index] : fileEnd).map { $0 - from } ?? 0
            // Packets without a duration (ASF's) end where their decoded media ends.
            // On the output's clock (slow motion stretches it): the written end already is.
            end = timeline.slowMotion.map { $0.outputSeconds(end - (origin - from)) + (origin - from) } ?? end
            if j < counts.endTime.count, let written = counts.endTime[j] { end = max(end, written + (origin - from)) }
            // Frames the header declares and the data lacks shorten it as much as a cut would (a demuxer that numbers
            // the frames it finds may place the last at the full length).
            let frames = declaredFrames(decision, counts: counts).flatMap { $0.missing > 0 ? $0 : nil }
            if let frames { end = min(end, frames.heldSeconds) }
            if SourceInfo.isTruncated(end: end, of: expected) {
                // A stretch of the file no packet came from: data there that could not be read, not a file cut short
                // (known only when every stream is read: a discarded one's packets are skipped over).
                let hole = demuxer.streams.contains { $0.pointee.discard == AVDISCARD_ALL } ? nil : counts.coverage.largestHole
                let shortfall = DataShortfall(end: end, expected: expected, hole: hole?.moved(by: -from))
                return "\(decision.kind.rawValue) stream #\(decision.index): " + shortfall.description(frames: frames?.clause)
            }
        }
        return nil
    }

    /// Reads the finished temporary file back and checks it against the plan; throws `planMismatch` (clean input) or
    /// `verificationFailed` (corrupt input was skipped). Returns the checks and the facts they were made on.
    private func verify(delivered: [DeliveredStream], damaged: Bool, inputEnd: [Double?]) throws -> (Verification, OutputFacts?) {
        guard let target else { return (Verification(checks: []), nil) }
        let began = DispatchTime.now().uptimeNanoseconds
        // What the plan can expect of each stream is at most what the input's packets held: a header that declares
        // a few milliseconds more than its data (a WAV's data size, a track's padding) is not the output's fault.
        // (Data that ends well before is a truncation, refused before this.)
        var expected = plan
        for k in expected.streams.indices where expected.streams[k].isKept {
            let index = expected.streams[k].index
            if index < inputEnd.count, let end = inputEnd[index], let want = expected.streams[k].expectedDuration {
                let held = max(0, end - timeline.origin) + expected.streams[k].shownLeadIn
                expected.streams[k].expectedDuration = min(want, timeline.slowMotion?.outputSeconds(held) ?? held)
            }
        }
        func check(decoding: Bool) throws -> (Verification, OutputFacts) {
            let facts = try target.withReadablePath { try OutputInspector.facts(path: $0, cancel: cancel, decodeFirstFrames: decoding) }
            return (OutputVerifier.verify(plan: expected, source: info, facts: facts, delivered: delivered, tags: tags, damaged: damaged), facts)
        }
        // The header alone first (cheap; a transcoded video's pixel format from its parsed sequence header); what it
        // cannot tell for sure (a copied MP3's channel count is only in its frames) is read again the way FFmpeg
        // reads any input, decoding a first frame, before anything fails.
        var (verification, facts) = try check(decoding: false)
        if !verification.passed { (verification, facts) = try check(decoding: true) }
        verification.seconds = Double(DispatchTime.now().uptimeNanoseconds - began) / 1e9
        if !verification.passed {
            // Input that decoded cleanly gave what the plan did not foresee: the plan's mistake, said as such.
            throw damaged ? ExportError.verificationFailed(path: target.finalPath, checks: verification.failureSummary)
                          : ExportError.planMismatch(path: target.finalPath, checks: verification.failureSummary)
        }
        return (verification, facts)
    }

}
