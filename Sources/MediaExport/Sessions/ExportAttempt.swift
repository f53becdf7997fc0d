import Foundation
import MediaExportCore
import MediaExportFFmpeg

/// One route of an export's fallback chain, as its steps: prepare (the source, its edits, the target), plan,
/// encode within a size limit, commit, describe. The chain makes one per route, so each attempt has its own state;
/// `target` is the output it is writing, which the chain discards when the route fails.
final class ExportAttempt {
    let session: ExportSession
    let run: ExportSession.Run
    let route: ExportRoute
    /// The output being written (a size limit's second try and a quality target's corrective encode write a new one).
    var target: OutputTarget?
    /// When the last `progress` event went out (shared by both passes of a two-pass encode).
    private var lastReport = Date.distantPast
    /// The output's expected duration, which progress is measured against.
    private var expected: Double?

    var request: ExportRequest { session.request }
    var token: CancelToken { session.token }

    /// True for the route the chain started from (no fallback before it): a byte copy there is the plan's choice.
    let isStart: Bool

    init(session: ExportSession, run: ExportSession.Run, route: ExportRoute, isStart: Bool) {
        self.session = session
        self.run = run
        self.route = route
        self.isStart = isStart
    }

    /// What became of the route, as a value the chain decides on: delivered, or failed as `RouteFailure` says (the
    /// error that stands if no route follows, the reason a fallback names); a failed route's output is discarded.
    enum Outcome {
        case delivered(ExportEvent.Completed)
        case failed(ExportError, RouteFailure, reason: String)
    }

    /// Runs the route (`perform`) and says how it went.
    func outcome() -> Outcome {
        do {
            return .delivered(try perform())
        } catch {
            target?.discard()
            let failure = session.translate(error)
            if let skipped = error as? RouteSkipped { return .failed(failure, .skipped, reason: skipped.reason) }
            return .failed(failure, failure.routeFailure, reason: failure.description)
        }
    }

    /// The route the planner plans for this one (`ExportPlanner.plannedRoute`).
    private var planRoute: ExportRoute { ExportPlanner.plannedRoute(route, preset: request.preset) }

    /// What the prepare and plan steps settled, and the size limit's state: the plan as it stands (a size limit
    /// may plan again with lower rates), the notes of the `started` event.
    struct Encode {
        let source: ProbedSource
        let edits: EditSidecar?
        let container: Container?
        let finalPath: String
        var plan: ExportPlan
        var tags: [String: String]
        var notes: [String]
        /// A CRF encode's rates measured on samples (`SampleEncode`), when a size limit or the estimate needs them.
        var sampled: OutputSize.Measured?
        var budget: OutputSize.Budget?
        var sizeNote: String?
        /// True once the limit is met by choosing bit rates (a first try over it is then made again, lower).
        var retryable = false
        /// The main video's encode measured as it runs (a quality target's proof).
        var scoring: Transcoder.Scoring?
        /// The main audio (input stream) brought to a loudness target, applied to every plan encoded (a size limit's
        /// plans too).
        var loudness: (LoudnessNormalisation, stream: Int)?
        /// The plan as encoded: with the loudness normalisation.
        var encoded: ExportPlan { loudness.map { plan.withLoudness($0.0, stream: $0.stream) } ?? plan }
    }

    /// Runs the route: a byte copy, or plan (the pure planner; an impossible plan skips the route), encode, commit.
    func perform() throws -> ExportEvent.Completed {
        let report = deliveredReport()
        if route == .copy { return copiedLoudness(try byteCopy(report: report)) }
        let prepared = try prepare()
        var encode = try plan(prepared)
        var quality = try searchQuality(&encode)
        try fit(&encode, scale: 1, allowCRF: true)
        var loudness = try prepareLoudness(&encode)
        if let sizeNote = encode.sizeNote { encode.notes.append(sizeNote) }
        announce(encode, report: report)
        var (outcome, output) = try encodeWithinLimit(&encode, first: prepared.target)
        if var q = quality { (outcome, output) = try proveQuality(&q, &encode, outcome: outcome, output: output); quality = q }
        try output.commit()
        if var l = loudness { measureOutputLoudness(&l, output: output.finalPath); loudness = l }
        session.delivered = .init(plan: encode.plan, edits: encode.edits)
        // What the executor decided while running (frames the decoder flagged interlaced) joins the plan's notes.
        let ranNotes = encode.notes + outcome.notes.filter { !encode.notes.contains($0) }
        var completed = describe(output: output.finalPath, muxed: true, facts: outcome.output, skipped: outcome.skippedPackets, notes: ranNotes, report: report)
        completed.timestampRepairs = outcome.timestampRepairs
        completed.droppedFrames = outcome.droppedFrames
        completed.verification = outcome.verification
        if encode.plan.metadata.level != .all { completed.metadata = .init(level: encode.plan.metadata.level, dropped: encode.plan.metadata.droppedNames) }
        completed.partial = outcome.partialCause.map { .init(duration: completed.duration, declaredDuration: encode.plan.timeline.expectedDuration, cause: $0) }
        completed.damage = outcome.damage
        completed.quality = quality
        completed.loudness = loudness
        completed.warnings = (completed.partial.map { [$0.warning] } ?? [])
            + Accounting.warnings(plan: encode.plan, skippedPackets: outcome.damage?.corruptPackets ?? 0, droppedFrames: outcome.droppedFrames,
                                  timestampRepairs: outcome.timestampRepairs, audioGaps: outcome.audioGaps, lostFrames: outcome.lostFrames,
                                  unreadableBytes: outcome.damage?.unreadableBytes ?? 0, version: report) + outcome.shortfalls
            + (quality?.warning.map { [$0] } ?? []) + (loudness?.warning.map { [$0] } ?? [])
        return completed
    }

    /// The version this route delivers: the original when it cannot apply the edits (a passthrough remux says so itself).
    private func deliveredReport() -> VersionReport {
        var report = run.selection.report
        if let lost = session.editsLost(by: route, selection: run.selection), !(planRoute == .remux && request.preset.passthrough) {
            report.delivered = .original
            report.reason += "; the \(route.rawValue) fallback does not apply \(lost)"
        }
        return report
    }

    /// The source, its edits checked against it, and the target (made first: it refuses a bad output before any
    /// work, and settles the container — the preset's default extension when the name has none).
    private func prepare() throws -> (source: ProbedSource, edits: EditSidecar?, target: OutputTarget) {
        let selection = run.selection
        let source = try run.source(cancel: token)
        var edits = selection.edits
        // Photos writes a trim's end on its own clock: one that runs a few milliseconds past the media's end means
        // "to the end" (a sidecar's user-written end past the end stays an error).
        if selection.report.adjustmentData != nil, let t = edits?.trim, let d = source.info.duration, t.end > d, t.end - d < 0.5 {
            edits?.trim?.end = d
        }
        if let edits, let sidecar = selection.editsFile {
            try edits.validate(against: source.info, path: sidecar)
            if request.preset.passthrough && !edits.needsTranscode.isEmpty {
                throw ExportError.editNeedsTranscode(path: sidecar, edits: edits.needsTranscode)
            }
        }
        let t = try session.makeTarget(request.output, selection: selection)
        target = t
        if let cut = ExportPlanner.keyframeLookup(source: source.info, preset: request.preset, route: planRoute, edits: edits, range: request.timeRange) {
            try source.lookUpKeyframe(at: cut)
        }
        return (source, edits, t)
    }

    /// The route's plan, or `RouteSkipped` when it is impossible; the output's tags; and a CRF encode's video rate
    /// measured on a few samples when a size limit or the estimate needs it (otherwise not worth their cost).
    private func plan(_ prepared: (source: ProbedSource, edits: EditSidecar?, target: OutputTarget)) throws -> Encode {
        let (source, edits, t) = prepared
        var plan = try ExportPlanner.plan(source: source.info, preset: request.preset, route: planRoute, container: t.container,
                                          edits: edits, range: request.timeRange, tracks: request.tracks)
        // A salvage keeps what it can: by stream copy when nothing of the main streams decodes here.
        if !plan.isPossible && route == .salvage && planRoute == .transcode {
            plan = try ExportPlanner.plan(source: source.info, preset: request.preset, route: .remux, container: t.container,
                                          edits: edits, range: request.timeRange, tracks: request.tracks)
        }
        if let refusal = plan.refusal { throw ExportError.noUsableStreams(path: source.info.path, reason: refusal) }
        if !plan.isPossible { throw RouteSkipped(plan: plan, path: source.info.path) }
        let output = OutputTags.forOutput(resource: source.info.tags, original: run.originalTags(), level: plan.metadata.level)
        plan.metadata.container = output.dropped
        var notes = plan.notes + (plan.metadata.note.map { [$0] } ?? [])
        if !output.fromOriginal.isEmpty, let original = run.selection.metadataSource {
            notes.append("\(output.fromOriginal.joined(separator: ", ")) taken from the original \(PathName.lastComponent(original))")
        }
        let watchdog = run.watchdog
        let sampled = request.sizeLimit != nil && route == .transcode || request.estimate == .samples
            ? SampleEncode.rates(source: source, plan: plan, cancel: token, codecs: CodecRun(request),
                                activity: { watchdog.touch() }) : nil
        if token.isSet { throw ExportError.cancelled }
        return Encode(source: source, edits: edits, container: t.container, finalPath: t.finalPath, plan: plan, tags: output.tags,
                      notes: notes, sampled: sampled)
    }

    /// Fits a transcode into the size limit, if any: the preset's own encode when samples put it well under, else bit
    /// rates chosen for the limit (`scale` lower on a second try) and the plan made again with them.
    private func fit(_ encode: inout Encode, scale: Double, allowCRF: Bool) throws {
        let encodes = encode.plan.streams.contains { if case .transcodeVideo = $0.action { return true }; if case .transcodeAudio = $0.action { return true }; return false }
        guard let limit = request.sizeLimit, route == .transcode, encodes else { return }
        encode.retryable = true
        let info = encode.source.info
        // The preset's own encode, measured on samples, well under the limit: one pass as the preset says, checked
        // when done (and made again in two passes if it came out over after all).
        if allowCRF, let sampled = encode.sampled, let estimate = OutputSize.estimatedBytes(plan: encode.plan, source: info, measured: sampled),
           Double(estimate) <= 0.6 * Double(limit) {
            encode.sizeNote = "size limit \(limit) bytes: the preset's own encode is estimated at \(estimate) bytes; checked when done"
            return
        }
        switch OutputSize.budget(limit: limit, plan: encode.plan, source: info, ceiling: encode.sampled?.video ?? request.preset.video?.bitrate.map(Double.init), scale: scale) {
        case .failure(let refusal): throw ExportError.sizeLimitExceeded(path: encode.finalPath, limit: limit, reason: refusal.reason)
        case .success(let chosen):
            encode.budget = chosen
            encode.sizeNote = chosen.note
            let dropped = encode.plan.metadata.container
            encode.plan = try ExportPlanner.plan(source: info, preset: OutputSize.apply(chosen, to: request.preset), route: planRoute,
                                                 container: encode.container, edits: encode.edits, range: request.timeRange, tracks: request.tracks)
            encode.plan.metadata.container = dropped
        }
    }

    /// The `started` event: the plan's streams, its notes, the size estimate.
    private func announce(_ encode: Encode, report: VersionReport) {
        let (plan, info, measured) = (encode.plan, encode.source.info, encode.budget == nil ? encode.sampled : nil)
        var estimate = OutputSize.estimatedBytes(plan: plan, source: info, measured: measured)
        var method = estimate == nil ? nil : OutputSize.estimateMethod(plan: plan, source: info, measured: measured)
        if method == .guess, let known = request.measuredEstimate { (estimate, method) = (known, .samples) }
        expected = plan.timeline.expectedDuration
        session.emit(.started(.init(input: request.input, output: encode.finalPath, preset: request.preset.name,
                                    container: encode.container?.rawValue ?? "", duration: expected, timeRange: request.timeRange,
                                    streams: plan.streamPlans, notes: encode.notes, version: report, estimatedBytes: estimate,
                                    estimateMethod: method, maxFileSize: request.sizeLimit)))
    }

    /// Encodes into the target; an output over the size limit is made once more, aimed lower by what the first try
    /// overshot, and then the limit is a failure.
    func encodeWithinLimit(_ encode: inout Encode, first: OutputTarget) throws -> (Transcoder.Outcome, OutputTarget) {
        let limit = request.sizeLimit
        var current = first
        var retried = false
        while true {
            do {
                return (try self.encode(encode, into: current), current)
            } catch let over as OverSizeLimit {
                guard let limit, encode.retryable, !retried else {
                    throw ExportError.sizeLimitExceeded(path: current.finalPath, limit: limit ?? 0,
                                                        reason: "the output came to \(over.bytes) bytes" + (retried ? " after a second try at a lower bit rate" : ""))
                }
                retried = true
                current.discard()
                try fit(&encode, scale: encode.budget == nil ? 1 : min(0.95, Double(limit) / Double(over.bytes) * 0.97), allowCRF: false)
                encode.notes.append("the first try came to \(over.bytes) bytes, over the limit: encoded again (\(encode.sizeNote ?? ""))")
                current = try session.makeTarget(request.output, selection: run.selection)
                target = current
            }
        }
    }

    /// Progress of one run of the pipeline, as the share `weight` of the whole after `base` (a first pass is a part);
    /// `projected`: the final size projected from the packets so far (bytes on disk lag the input: lookahead, interleaving).
    private func reporter(base: Double, weight: Double, written: @escaping () -> Int64?, projected: @escaping (Double) -> Int64? = { _ in nil }) -> (Double, Int, Bool) -> Void {
        let watchdog = run.watchdog, began = run.began, interval = session.progressInterval, expected = expected
        return { [self] outputTime, frames, final in
            watchdog.touch()
            let now = Date()
            let last = final && base + weight >= 1
            guard last || now.timeIntervalSince(lastReport) >= interval else { return }
            lastReport = now
            let elapsed = now.timeIntervalSince(began)
            let part = final ? 1 : expected.map { $0 > 0 ? min(1, max(0, outputTime / $0)) : 0 } ?? 0
            let fraction = base + weight * part
            let rate = elapsed > 0 ? fraction / elapsed : 0
            let eta: Double? = last ? 0 : (expected != nil && rate > 0) ? max(0, (1 - fraction) / rate) : nil
            session.setProgress(fraction)
            let bytes = written()
            session.emit(.progress(.init(fraction: fraction, outputTime: outputTime, speed: elapsed > 0 ? outputTime / elapsed : 0,
                                         fps: elapsed > 0 ? Double(frames) / elapsed : 0, elapsed: elapsed, eta: eta, bytesWritten: bytes,
                                         projectedBytes: bytes == nil ? nil : projected(part))))
        }
    }

    /// Runs the plan into `target`: a two-pass plan first runs its video alone into FFmpeg's `null` muxer (the
    /// encoder's statistics go to a private folder), then the whole plan. Before the output is committed the input is
    /// checked unchanged and, under a size limit, the file's size (`OverSizeLimit`).
    private func encode(_ encode: Encode, into target: OutputTarget) throws -> Transcoder.Outcome {
        let (plan, limit) = (encode.encoded, request.sizeLimit)
        let twoPass = plan.streams.contains { if case .transcodeVideo(let v) = $0.action { return v.settings.twoPass }; return false }
        let log = try twoPass ? PassLog(path: target.finalPath) : nil
        if let log { try firstPass(encode, log: log) }
        let base = twoPass ? 0.3 : 0
        // A salvage skips every packet that does not decode, however many (they are counted and said).
        let errors = route == .salvage ? ErrorPolicy(maxDecodeErrors: .max, stallTimeout: request.errors.stallTimeout) : request.errors
        let transcoder = try Transcoder(source: encode.source, plan: plan, target: target, cancel: token, errors: errors, tags: encode.tags,
                                        pass: log.map { .second(log: $0.file) }, pipelined: request.pipeline.isOn(cores: Cores.available),
                                        codecs: CodecRun(request))
        transcoder.salvage = route == .salvage
        transcoder.scoring = encode.scoring
        transcoder.debugStallAtOutputTime = route == .transcode && planRoute == .transcode ? session.debugStallAtOutputTime : nil
        transcoder.debugLoseStreamKind = route == .transcode ? session.debugLoseStreamKind : nil
        var checkedSize: Int64?
        var outcome = try transcoder.run(beforeCommit: {
            try run.snapshot.verify()
            guard let limit, let size = FileSystem.size(target.temporaryPath) else { return }
            if size > limit { throw OverSizeLimit(bytes: size) }
            checkedSize = size
        }, progress: reporter(base: base, weight: 1 - base, written: { target.mediaBytesWritten }, projected: { [info = encode.source.info] in
            OutputSize.projectedBytes(plan: plan, source: info, written: transcoder.written.streams, fraction: $0) }))
        if let limit, let size = checkedSize {
            outcome.verification.checks.append(.init(name: "file size", expected: "at most \(limit) bytes", measured: "\(size) bytes", outcome: .passed))
        }
        withExtendedLifetime(log) {}
        return outcome
    }

    /// A two-pass encode's first pass, the video alone; freed before the second starts (a lookahead is most memory).
    private func firstPass(_ encode: Encode, log: PassLog) throws {
        let first = encode.plan.keeping(only: { if case .transcodeVideo = $0.action { return true }; return false }, reason: "first pass: video only")
        let pass1 = try Transcoder(source: encode.source, plan: first, target: nil, cancel: token, errors: request.errors, tags: encode.tags,
                                   pass: .first(log: log.file), pipelined: request.pipeline.isOn(cores: Cores.available), codecs: CodecRun(request))
        // x264's fast first pass takes about a third of the second's time.
        _ = try pass1.run(progress: reporter(base: 0, weight: 0.3, written: { nil }))
    }

    /// The `completed` record for a file in place. A file we `muxed` is described by what the verifier read of it
    /// (`facts`: its streams without the muxer's chapter and timecode tracks); a byte copy is any format, probed as any
    /// input is.
    func describe(output: String, muxed: Bool, facts: OutputFacts? = nil, skipped: Int, notes: [String], report: VersionReport) -> ExportEvent.Completed {
        let info = muxed && facts != nil ? nil : try? MediaProbe.probe(path: output, frameMetadata: false)
        let video = info?.streams.first { $0.type == "video" && !$0.isAttachedPicture }
        return .init(output: output, bytes: FileSystem.size(output) ?? 0, duration: facts?.duration ?? info?.duration ?? 0,
                     codecs: facts?.streams.map(\.codec) ?? info?.streams.filter { $0.isChapterTrack != true && $0.isTimecodeTrack != true }.map(\.codec) ?? [],
                     width: facts?.mainVideo?.width ?? video?.width, height: facts?.mainVideo?.height ?? video?.height,
                     wallTime: Date().timeIntervalSince(run.began), videoFrames: facts?.mainVideo?.frameCount,
                     skippedPackets: skipped, notes: notes, version: report)
    }
}

/// A finished output over the size limit (the session tries once more, lower, or fails with `sizeLimitExceeded`).
struct OverSizeLimit: Error {
    var bytes: Int64
}

/// A route whose plan is impossible (the container cannot hold a main stream, no stream left, no decoder for a
/// main stream): the chain skips it with the plan's reason and goes on; as the last route it is the failure.
struct RouteSkipped: Error {
    var plan: ExportPlan
    var path: String
    var reason: String { plan.impossible ?? "" }

    /// The failure when no route is left: a transcode without a decoder for a main stream fails in decoding, as
    /// an opened decoder would; a remux whose container cannot hold a main stream fails in muxing; a route with
    /// nothing at all to export is `noUsableStreams`.
    var failure: ExportError {
        guard !plan.blockers.isEmpty, plan.streams.contains(where: \.isKept) else { return .noUsableStreams(path: path, reason: reason) }
        if plan.route == .transcode {
            // A stream kind lost whole for want of parameters: nothing the preset asks for can be delivered.
            guard plan.blockers.allSatisfy(\.isNoDecoder) else { return .noUsableStreams(path: path, reason: reason) }
            return .ffmpeg(stage: .decode, path: path, code: FFmpegCodes.decoderNotFound,
                           message: ExportPlanner.joined(plan.blockers) + " in this FFmpeg build")
        }
        return .ffmpeg(stage: .mux, path: path, code: -1, message: reason)
    }
}
