import Foundation
import Logging
import Synchronization
import MediaExportCore
import MediaExportFFmpeg

/// Exports one input with a preset, like `AVAssetExportSession`: a status that moves
/// `waiting → exporting → completed | failed | cancelled`, progress 0…1, a typed error, `cancel()`,
/// and a stream of `Codable` events (`started`, `progress`…, then exactly one final event).
///
/// The pipeline runs on the thread that calls `run()` (FFmpeg calls block); `export()` runs it on a
/// dedicated thread for async callers. `cancel()` may be called from any thread or a signal handler's queue.
public final class ExportSession: Sendable {
    /// Where an export stands.
    public enum Status: String, Codable, Sendable {
        case waiting, exporting, completed, failed, cancelled
    }

    /// The job.
    public let request: ExportRequest
    /// Where the session logs what a server needs to see (see `MediaExportLogging`).
    public let logger: Logger

    /// Everything that changes, behind one lock: read from any thread, written by the exporting one.
    private struct State {
        var status: Status = .waiting
        var progress: Double = 0
        var error: ExportError?
        var onEvent: (@Sendable (ExportEvent) -> Void)?
        var progressInterval: Double = 0.25
        var debugStallAtOutputTime: Double?
        var debugLoseStreamKind: SourceStream.Kind?
    }
    private let state = LockedBox(State())
    private let token = CancelToken()
    private let continuation: AsyncStream<ExportEvent>.Continuation
    /// Every event of this session, ending after the final one. Buffers the newest 1000 if nobody reads.
    public let events: AsyncStream<ExportEvent>

    /// Creates a session in the `waiting` state; it logs to `logger` (see `MediaExportLogging`). Without one it logs
    /// nothing: a library does not write to its host's stderr unless asked (swift-log's default handler would).
    public init(request: ExportRequest, logger: Logger = MediaExportLogging.silent) {
        self.request = request
        var logger = logger
        logger[metadataKey: "input"] = "\(request.input)"
        logger[metadataKey: "output"] = "\(request.output)"
        self.logger = logger
        (events, continuation) = AsyncStream.makeStream(of: ExportEvent.self, bufferingPolicy: .bufferingNewest(1000))
    }

    deinit {
        continuation.finish()
    }

    /// Called synchronously for every event, on the exporting thread. Set it before `run()`; it is released
    /// after the final event.
    public var onEvent: (@Sendable (ExportEvent) -> Void)? {
        get { state.withLock { $0.onEvent } }
        set { state.withLock { $0.onEvent = newValue } }
    }
    /// How often `progress` events are emitted at most, in seconds.
    public var progressInterval: Double {
        get { state.withLock { $0.progressInterval } }
        set { state.withLock { $0.progressInterval = newValue } }
    }
    /// Test hook: the transcode route pretends to hang once output reaches this many seconds.
    var debugStallAtOutputTime: Double? {
        get { state.withLock { $0.debugStallAtOutputTime } }
        set { state.withLock { $0.debugStallAtOutputTime = newValue } }
    }

    /// Test hook: the transcode route loses every packet of streams of this kind (a broken output that the
    /// verification must catch before it is committed).
    var debugLoseStreamKind: SourceStream.Kind? {
        get { state.withLock { $0.debugLoseStreamKind } }
        set { state.withLock { $0.debugLoseStreamKind = newValue } }
    }

    /// The current status.
    public var status: Status { state.withLock { $0.status } }
    /// Progress of the export, 0…1.
    public var progress: Double { state.withLock { $0.progress } }
    /// Why the export failed or was cancelled.
    public var error: ExportError? { state.withLock { $0.error } }

    /// Asks the export to stop. It ends as `cancelled`, leaving no output and no temporary file.
    public func cancel() {
        token.cancel()
    }

    /// Runs the export on a dedicated thread (FFmpeg calls block; the cooperative pool is left alone) and returns
    /// its final event. Cancelling the calling task cancels the export.
    public func export() async throws -> ExportEvent.Completed {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (cont: CheckedContinuation<ExportEvent.Completed, Error>) in
                let thread = Thread { cont.resume(with: Result { try self.run() }) }
                thread.stackSize = 8 << 20
                thread.start()
            }
        } onCancel: {
            cancel()
        }
    }

    /// Runs the export on the calling thread. Throws `ExportError` on failure or cancellation.
    ///
    /// When the input cannot be transcoded (no decoder, the decoder rejects it, too many corrupt packets, a stall)
    /// the fallback chain of `request.fallback` runs: remux, then byte copy, each announced by a `fallback` event.
    @discardableResult
    public func run() throws -> ExportEvent.Completed {
        let began = Date()
        state.withLock { $0.status = .exporting }
        let watchdog = StallWatchdog(timeout: request.errors.stallTimeout, token: token)
        defer { watchdog.stop() }
        do {
            if token.isSet { throw ExportError.cancelled }
            if request.deterministic && !CodecRun.pinCPUPaths() {
                throw ExportError.usage(reason: "--deterministic needs an x86-64-v2 CPU (SSE4.2), and this one has \(CPUFeatures.vector.last ?? "none") at most")
            }
            let selection = try VersionResolver.select(input: request.input, version: request.version,
                                                       editsPath: request.editsPath, requireCurrent: request.requireCurrent)
            let snapshot = try InputSnapshot(path: selection.report.resource)
            let run = Run(selection: selection, began: began, snapshot: snapshot, watchdog: watchdog)
            let first: ExportRoute = request.startRoute ?? (request.preset.passthrough ? .remux : .transcode)
            let chain = request.fallback.chain(startingWith: first)
            var fallbacks: [ExportEvent.Fallback] = []
            for (step, route) in chain.enumerated() {
                var target: OutputTarget?
                do {
                    var completed = try attempt(route, run: run, target: &target)
                    completed.route = route
                    completed.fallbacks = fallbacks
                    logger.info("exported \(completed.bytes) bytes by \(route.rawValue)",
                                metadata: ["verification": "\(completed.verification.map { $0.passed ? "passed" : "failed" } ?? "none")"])
                    for warning in completed.warnings { logger.notice("\(warning)") }
                    state.withLock { $0.status = .completed; $0.progress = 1 }
                    emit(.completed(completed))
                    continuation.finish()
                    return completed
                } catch {
                    target?.discard()
                    // An input that changed under us is a failure, never a reason to deliver it some other way.
                    try snapshot.verify()
                    let failure = translate(error)
                    let skipped = error as? RouteSkipped
                    guard skipped != nil || failure.isInputFault, step + 1 < chain.count else { throw failure }
                    let next = chain[step + 1]
                    if request.requireCurrent, let lost = editsLost(by: next, selection: selection) {
                        throw ExportError.versionUnavailable(path: request.input, version: .current,
                                                             reason: "\(failure.description); a \(next.rawValue) fallback would not apply \(lost) (--require-current)")
                    }
                    let fallback = ExportEvent.Fallback(from: route, to: next, reason: skipped?.reason ?? failure.description,
                                                        stage: skipped == nil ? failure.stage : nil)
                    // A stall ends this route only; a cancellation stands.
                    token.clearStall()
                    watchdog.touch()
                    fallbacks.append(fallback)
                    logger.warning("\(route.rawValue) failed, falling back to \(next.rawValue): \(fallback.reason)")
                    emit(.fallback(fallback))
                }
            }
            throw ExportError.cancelled  // not reached: the last route either returns or throws
        } catch {
            let exportError = translate(error)
            let elapsed = Date().timeIntervalSince(began)
            if case .cancelled = exportError {
                logger.info("cancelled")
                state.withLock { $0.status = .cancelled; $0.error = exportError }
                emit(.cancelled(.init(output: request.output, elapsed: elapsed)))
            } else {
                logger.error("\(exportError.description)", metadata: ["error": "\(exportError.kind.rawValue)"])
                state.withLock { $0.status = .failed; $0.error = exportError }
                emit(.failed(.init(exportError)))
            }
            continuation.finish()
            throw exportError
        }
    }

    /// What one run of the chain shares between its routes: the version, one probe of the resource (opened on
    /// first use: a byte copy needs none), the input's identity, the watchdog.
    private final class Run {
        let selection: VersionSelection
        let began: Date
        let snapshot: InputSnapshot
        let watchdog: StallWatchdog
        private var probed: ProbedSource?
        private var original: [String: String]??
        init(selection: VersionSelection, began: Date, snapshot: InputSnapshot, watchdog: StallWatchdog) {
            self.selection = selection; self.began = began; self.snapshot = snapshot; self.watchdog = watchdog
        }
        /// The tags of the asset's original when the resource read is its rendered edit (read once; nil if unreadable).
        func originalTags() -> [String: String]? {
            if let original { return original }
            let tags = selection.metadataSource.flatMap { try? MediaProbe.probe(path: $0, frameMetadata: false).tags }
            original = .some(tags)
            return tags
        }
        func source(cancel: CancelToken) throws -> ProbedSource {
            if let probed { return probed }
            let p = try ProbedSource(path: selection.report.resource, cancel: cancel)
            probed = p
            return p
        }
    }

    /// A stalled flag is the watchdog's: the route stalled.
    private func translate(_ error: Error) -> ExportError {
        if let skipped = error as? RouteSkipped { return skipped.failure }
        let e = (error as? ExportError) ?? .ffmpeg(stage: .write, path: request.output, code: -1, message: "\(error)")
        if case .cancelled = e, token.isStalled {
            return .stalled(path: request.input, seconds: request.errors.stallTimeout)
        }
        return e
    }

    /// The edits a fallback route cannot apply, if the version delivered would then not be the current one.
    private func editsLost(by route: ExportRoute, selection: VersionSelection) -> String? {
        ExportPlanner.editsLost(by: route, edits: selection.edits, sidecarName: selection.editsFile.map(PathName.lastComponent),
                                timeRangeGiven: request.timeRange != nil, deliversCurrent: selection.report.delivered == .current)
    }

    /// One route: plan it (the pure planner over the one probe), skip it when the plan is impossible, else run it.
    private func attempt(_ route: ExportRoute, run: Run, target: inout OutputTarget?) throws -> ExportEvent.Completed {
        let selection = run.selection
        var report = selection.report
        if let lost = editsLost(by: route, selection: selection), !(route == .remux && request.preset.passthrough) {
            report.delivered = .original
            report.reason += "; the \(route.rawValue) fallback does not apply \(lost)"
        }
        if route == .copy { return try byteCopy(run: run, report: report, target: &target) }

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
        // The target first: it refuses a bad output before any work, and settles the container (the preset's
        // default extension when the name has none).
        let t = try makeTarget(request.output, selection: selection)
        target = t
        let container = t.container
        if let cut = ExportPlanner.keyframeLookup(source: source.info, preset: request.preset, route: route, edits: edits, range: request.timeRange) {
            try source.lookUpKeyframe(at: cut)
        }
        // An audio selection that matches nothing is a usage error, not a reason to deliver every track by copy.
        let audio = source.info.streams.filter { $0.kind == .audio }
        if let wanted = request.tracks.audioLanguages, !wanted.isEmpty, !audio.isEmpty,
           !audio.contains(where: { request.tracks.wants(language: $0.language) }) {
            let have = Set(audio.map { $0.language ?? "und" }).sorted().joined(separator: ", ")
            throw ExportError.noUsableStreams(path: source.info.path, reason: "no audio stream in \(wanted.joined(separator: ", ")) (the file has: \(have))")
        }
        var plan = try ExportPlanner.plan(source: source.info, preset: request.preset, route: route, container: container,
                                          edits: edits, range: request.timeRange, tracks: request.tracks)
        if !plan.isPossible { throw RouteSkipped(plan: plan, path: source.info.path) }
        let output = OutputTags.forOutput(resource: source.info.tags, original: run.originalTags())
        var notes = plan.notes
        if !output.fromOriginal.isEmpty, let original = selection.metadataSource {
            notes.append("\(output.fromOriginal.joined(separator: ", ")) taken from the original \(PathName.lastComponent(original))")
        }
        let watchdog = run.watchdog
        let limit = request.sizeLimit
        // A CRF encode's video rate, measured on a few samples: the most a size limit's rate needs, and the estimate
        // when asked for (`SizeEstimation.samples`). Otherwise none: the samples cost more than the estimate is worth.
        let sampled = limit != nil && route == .transcode || request.estimate == .samples
            ? SampleEncode.videoBitrate(source: source, plan: plan, cancel: token, codecs: CodecRun(request),
                                      activity: { watchdog.touch() }) : nil
        if token.isSet { throw ExportError.cancelled }
        var budget: OutputSize.Budget?
        var sizeNote: String?
        /// True once the limit is met by choosing bit rates (a first try over it is then made again, lower).
        var retryable = false
        func fit(scale: Double, allowCRF: Bool) throws {
            let encodes = plan.streams.contains { if case .transcodeVideo = $0.action { return true }; if case .transcodeAudio = $0.action { return true }; return false }
            guard let limit, route == .transcode, encodes else { return }
            retryable = true
            // The preset's own encode, measured on samples, well under the limit: one pass as the preset says, checked
            // when done (and made again in two passes if it came out over after all).
            if allowCRF, let sampled, let estimate = OutputSize.estimatedBytes(plan: plan, source: source.info, videoBitrate: sampled),
               Double(estimate) <= 0.6 * Double(limit) {
                sizeNote = "size limit \(limit) bytes: the preset's own encode is estimated at \(estimate) bytes; checked when done"
                return
            }
            switch OutputSize.budget(limit: limit, plan: plan, source: source.info, ceiling: sampled ?? request.preset.video?.bitrate.map(Double.init), scale: scale) {
            case .failure(let refusal): throw ExportError.sizeLimitExceeded(path: t.finalPath, limit: limit, reason: refusal.reason)
            case .success(let chosen):
                budget = chosen
                sizeNote = chosen.note
                plan = try ExportPlanner.plan(source: source.info, preset: OutputSize.apply(chosen, to: request.preset), route: route,
                                              container: container, edits: edits, range: request.timeRange, tracks: request.tracks)
            }
        }
        try fit(scale: 1, allowCRF: true)
        if let sizeNote { notes.append(sizeNote) }
        let measured = budget == nil ? sampled : nil
        let estimate = OutputSize.estimatedBytes(plan: plan, source: source.info, videoBitrate: measured)
        let method = estimate == nil ? nil : OutputSize.estimateMethod(plan: plan, source: source.info, videoBitrate: measured)
        let expected = plan.timeline.expectedDuration
        emit(.started(.init(input: request.input, output: t.finalPath, preset: request.preset.name,
                            container: container?.rawValue ?? "", duration: expected, timeRange: request.timeRange,
                            streams: plan.streamPlans, notes: notes, version: report, estimatedBytes: estimate, estimateMethod: method, maxFileSize: limit)))
        var lastReport = Date.distantPast
        let began = run.began, interval = progressInterval
        /// Progress of one run of the pipeline, as the share `weight` of the whole after `base` (a first pass is a part).
        func reporter(base: Double, weight: Double, written: @escaping () -> Int64?) -> (Double, Int, Bool) -> Void {
            { outputTime, frames, final in
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
                self.state.withLock { $0.progress = fraction }
                let bytes = written()
                self.emit(.progress(.init(fraction: fraction, outputTime: outputTime, speed: elapsed > 0 ? outputTime / elapsed : 0,
                                          fps: elapsed > 0 ? Double(frames) / elapsed : 0, elapsed: elapsed, eta: eta, bytesWritten: bytes,
                                          projectedBytes: bytes.flatMap { OutputSize.projectedBytes(written: $0, fraction: part) })))
            }
        }
        var current = t
        var outcome: Transcoder.Outcome
        var retried = false
        while true {
            do {
                outcome = try encode(plan: plan, source: source, target: current, tags: output.tags, route: route, run: run,
                                     limit: limit, reporter: reporter)
                break
            } catch let over as OverSizeLimit {
                // Once more, aimed lower by what the first try overshot; then the limit is a failure.
                guard let limit, retryable, !retried else {
                    throw ExportError.sizeLimitExceeded(path: current.finalPath, limit: limit ?? 0,
                                                        reason: "the output came to \(over.bytes) bytes" + (retried ? " after a second try at a lower bit rate" : ""))
                }
                retried = true
                current.discard()
                try fit(scale: budget == nil ? 1 : min(0.95, Double(limit) / Double(over.bytes) * 0.97), allowCRF: false)
                notes.append("the first try came to \(over.bytes) bytes, over the limit: encoded again (\(sizeNote ?? ""))")
                current = try makeTarget(request.output, selection: selection)
                target = current
            }
        }
        try current.commit()
        // What the executor decided while running (frames the decoder flagged interlaced) joins the plan's notes.
        let ranNotes = notes + outcome.notes.filter { !notes.contains($0) }
        var completed = describe(output: current.finalPath, muxed: true, began: began, skipped: outcome.skippedPackets, notes: ranNotes, report: report)
        completed.timestampRepairs = outcome.timestampRepairs
        completed.droppedFrames = outcome.droppedFrames
        completed.verification = outcome.verification
        completed.warnings = Accounting.warnings(plan: plan, skippedPackets: outcome.skippedPackets, droppedFrames: outcome.droppedFrames,
                                                 timestampRepairs: outcome.timestampRepairs, audioGaps: outcome.audioGaps,
                                                 lostFrames: outcome.lostFrames,
                                                 version: report) + outcome.shortfalls
        return completed
    }

    /// Runs `plan` into `target`: a two-pass plan first runs its video alone into FFmpeg's `null` muxer (the encoder's
    /// statistics go to a private folder), then the whole plan. Before the output is committed the input is checked
    /// unchanged and, under a size limit, the file's size (`OverSizeLimit`).
    private func encode(plan: ExportPlan, source: ProbedSource, target: OutputTarget, tags: [String: String], route: ExportRoute, run: Run,
                        limit: Int64?, reporter: (Double, Double, @escaping () -> Int64?) -> (Double, Int, Bool) -> Void) throws -> Transcoder.Outcome {
        let twoPass = plan.streams.contains { if case .transcodeVideo(let v) = $0.action { return v.settings.twoPass }; return false }
        let pipelined = request.pipeline.isOn(cores: Cores.available)
        var log: PassLog?
        var base = 0.0
        if twoPass {
            let passLog = try PassLog(path: target.finalPath)
            log = passLog
            var first = plan
            for i in first.streams.indices {
                if case .transcodeVideo = first.streams[i].action { continue }
                first.streams[i].action = .drop(reason: "first pass: video only")
            }
            first.defaultAudio = nil
            // Its encoder and decoder are freed before the second pass starts (a lookahead is most of an export's memory).
            func firstPass() throws {
                let pass1 = try Transcoder(source: source, plan: first, target: nil, cancel: token, errors: request.errors, tags: tags,
                                           pass: .first(log: passLog.file), pipelined: pipelined, codecs: CodecRun(request))
                // x264's fast first pass takes about a third of the second's time.
                _ = try pass1.run(progress: reporter(0, 0.3, { nil }))
            }
            try firstPass()
            base = 0.3
        }
        let transcoder = try Transcoder(source: source, plan: plan, target: target, cancel: token, errors: request.errors, tags: tags,
                                        pass: log.map { .second(log: $0.file) }, pipelined: pipelined, codecs: CodecRun(request))
        transcoder.debugStallAtOutputTime = route == .transcode && !request.preset.passthrough ? debugStallAtOutputTime : nil
        transcoder.debugLoseStreamKind = route == .transcode ? debugLoseStreamKind : nil
        var checkedSize: Int64?
        var outcome = try transcoder.run(beforeCommit: {
            try run.snapshot.verify()
            guard let limit, let size = FileSystem.size(target.temporaryPath) else { return }
            if size > limit { throw OverSizeLimit(bytes: size) }
            checkedSize = size
        }, progress: reporter(base, 1 - base, { FileSystem.size(target.temporaryPath) }))
        if let limit, let size = checkedSize {
            outcome.verification.checks.append(.init(name: "file size", expected: "at most \(limit) bytes", measured: "\(size) bytes", outcome: .passed))
        }
        withExtendedLifetime(log) {}
        return outcome
    }

    /// The last route: the resource's bytes under the requested name with the resource's own extension.
    private func byteCopy(run: Run, report: VersionReport, target: inout OutputTarget?) throws -> ExportEvent.Completed {
        let source = run.selection.report.resource
        let base = PathName.deletingExtension(request.output)
        let ext = PathName.pathExtension(source).lowercased()
        let t = try makeTarget(ext.isEmpty ? base : base + "." + ext, selection: run.selection, anyExtension: true)
        target = t
        if let limit = request.sizeLimit, run.snapshot.size > limit {
            throw ExportError.sizeLimitExceeded(path: t.finalPath, limit: limit, reason: "a byte copy of the \(run.snapshot.size)-byte source cannot be made smaller")
        }
        emit(.started(.init(input: request.input, output: t.finalPath, preset: request.preset.name, container: ext,
                            duration: nil, timeRange: nil, streams: [], notes: ["byte copy of \(source)"], version: report)))
        let watchdog = run.watchdog
        let sha = try ByteCopy.copy(source: source, to: t, cancel: token, activity: { watchdog.touch() })
        try run.snapshot.verify()
        // ByteCopy read the copy back and compared its hash (`copyMismatch` otherwise); the rest is a header look.
        let sourceInfo = try? run.source(cancel: token).info
        let verifyBegan = Date()
        // The header alone first; formats whose streams only show in their packets (MPEG-PS) are read as any input is.
        func check(decoding: Bool) -> Verification {
            let facts = try? t.withReadablePath { try OutputInspector.facts(path: $0, cancel: token, scanPackets: false, decodeFirstFrames: decoding) }
            return OutputVerifier.verifyCopy(source: sourceInfo, sourceSize: run.snapshot.size, sourceSHA256: sha, outputSHA256: sha,
                                             facts: facts ?? OutputFacts(formatName: "", streams: [], size: FileSystem.size(t.temporaryPath) ?? -1))
        }
        var verification = check(decoding: false)
        if !verification.passed { verification = check(decoding: true) }
        verification.seconds = Date().timeIntervalSince(verifyBegan)
        if !verification.passed { throw ExportError.verificationFailed(path: t.finalPath, checks: verification.failureSummary) }
        try t.commit()
        var completed = describe(output: t.finalPath, muxed: false, began: run.began, skipped: 0,
                                 notes: request.timeRange != nil ? ["time range not applied by a byte copy"] : [], report: report)
        completed.sha256 = sha
        completed.verification = verification
        var warnings = ["delivered as a byte copy of \(PathName.lastComponent(source)): no stream was transcoded or remuxed"]
        if request.timeRange != nil { warnings.append("time range not applied by a byte copy") }
        if let line = Accounting.versionWarning(report) { warnings.append(line) }
        completed.warnings = warnings
        return completed
    }

    private func makeTarget(_ output: String, selection: VersionSelection, anyExtension: Bool = false) throws -> OutputTarget {
        try OutputTarget(output: output, inputs: [request.input, selection.report.resource], overwrite: request.overwrite,
                         sandbox: request.sandbox, defaultExtension: request.preset.defaultExtension, anyExtension: anyExtension)
    }

    /// The `completed` record for a file in place, with what a probe of it says. A file we `muxed` is read from its
    /// header alone (it holds everything the record shows; decoding its first frames again cost a remux of a 1080p
    /// file as much as probing its input); a byte copy is any format, read as any input is.
    private func describe(output: String, muxed: Bool, began: Date, skipped: Int, notes: [String], report: VersionReport) -> ExportEvent.Completed {
        let info = try? (muxed ? MediaProbe.probeHeader(path: output) : MediaProbe.probe(path: output, frameMetadata: false))
        let size = FileSystem.size(output) ?? 0
        let video = info?.streams.first { $0.type == "video" && !$0.isAttachedPicture }
        return .init(output: output, bytes: size, duration: info?.duration ?? 0,
                     codecs: info?.streams.filter { $0.isChapterTrack != true }.map(\.codec) ?? [], width: video?.width, height: video?.height,
                     wallTime: Date().timeIntervalSince(began), skippedPackets: skipped, notes: notes, version: report)
    }

    private func emit(_ event: ExportEvent) {
        // After the final event the handler is dropped: a handler that captures its own session (to cancel it,
        // say) would otherwise keep both alive forever.
        let handler = state.withLock { state in
            defer { if event.isFinal { state.onEvent = nil } }
            return state.onEvent
        }
        handler?(event)
        continuation.yield(event)
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
            guard plan.blockers.allSatisfy({ $0.hasPrefix("no decoder") }) else { return .noUsableStreams(path: path, reason: reason) }
            return .ffmpeg(stage: .decode, path: path, code: FFmpegCodes.decoderNotFound,
                           message: plan.blockers.joined(separator: "; ") + " in this FFmpeg build")
        }
        return .ffmpeg(stage: .mux, path: path, code: -1, message: reason)
    }
}

/// Stops an export that makes no progress: if `touch()` is not called for `timeout` seconds, it marks the
/// session's cancel flag `stalled` (only while it is running: a user's cancellation is never overwritten),
/// which FFmpeg's interrupt callback and the pipeline loop both see.
///
/// Idle time is wall time in which the process ran: a tick of its own timer that comes far too late (past
/// `lateTick(interval:)`) means the whole process was not running — stopped (SIGSTOP, Ctrl-Z), in a frozen
/// cgroup, a paused VM, or starved of CPU — and restarts the idle clock. A CPU-time clock would not do: a real
/// hang blocked in a read burns no CPU and would never be caught. A late tick can only postpone a stall, never
/// make one.
final class StallWatchdog {
    /// The time of the last progress and of the last tick (uptime nanoseconds); shared with the timer's handler (no
    /// reference back to the watchdog).
    private final class Clocks: Sendable {
        let progress = Atomic<UInt64>(DispatchTime.now().uptimeNanoseconds)
        let tick = Atomic<UInt64>(DispatchTime.now().uptimeNanoseconds)
    }
    private let last = Clocks()
    private let timer: DispatchSourceTimer

    /// `token` is held strongly by the timer's handler: it outlives any late firing.
    init(timeout: Double, token: CancelToken) {
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue.global(qos: .utility))
        let interval = max(0.05, min(1.0, timeout / 4))
        timer.schedule(deadline: .now() + interval, repeating: interval)
        let last = self.last
        timer.setEventHandler {
            guard timeout > 0 else { return }
            // The last progress is read before the clock: a `touch()` in between would otherwise put it after
            // "now" (this subtraction once trapped on unsigned underflow in the middle of an export).
            let then = DispatchTime(uptimeNanoseconds: last.progress.load(ordering: .acquiring))
            let now = DispatchTime.now()
            let previous = DispatchTime(uptimeNanoseconds: last.tick.exchange(now.uptimeNanoseconds, ordering: .relaxed))
            if StallWatchdog.idleSeconds(now: now, since: previous) > StallWatchdog.lateTick(interval: interval) {
                last.progress.store(now.uptimeNanoseconds, ordering: .releasing)
            } else if StallWatchdog.idleSeconds(now: now, since: then) >= timeout {
                token.markStalled()
            }
        }
        timer.resume()
    }

    /// The longest gap between two ticks of a process that was running: two intervals and a quarter second for a
    /// busy machine's scheduling. A longer gap restarts the idle clock.
    static func lateTick(interval: Double) -> Double { 2 * interval + 0.25 }

    /// Seconds from `since` to `now`; 0 when `since` is later (never traps).
    static func idleSeconds(now: DispatchTime, since: DispatchTime) -> Double {
        let a = now.uptimeNanoseconds, b = since.uptimeNanoseconds
        return a > b ? Double(a - b) / 1e9 : 0
    }

    /// Progress happened.
    func touch() { last.progress.store(DispatchTime.now().uptimeNanoseconds, ordering: .releasing) }

    /// Ends the watchdog; its handler never runs again.
    func stop() {
        timer.setEventHandler(handler: nil)
        timer.cancel()
    }
}
