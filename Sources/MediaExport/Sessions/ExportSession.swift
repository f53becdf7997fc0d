import Foundation
import Logging
import MediaExportCore
import MediaExportFFmpeg

/// Exports one input with a preset, like `AVAssetExportSession`: a status that moves
/// `waiting → exporting → completed | failed | cancelled`, progress 0…1, a typed error, `cancel()`,
/// a stream of `Codable` events (`started`, `progress`…, then exactly one final event), and a stream of states for
/// each observer that asks (`states(updateInterval:)`).
///
/// The pipeline runs on the thread that calls `run()` (FFmpeg calls block); `export()` runs it on a
/// dedicated thread for async callers. `cancel()` may be called from any thread or a signal handler's queue.
/// A session exports once: a second `run()` or `export()` throws `ExportError.usage`.
public final class ExportSession: Sendable {
    /// Where an export stands.
    public enum Status: String, Codable, Sendable {
        case waiting, exporting, completed, failed, cancelled
    }

    /// What an observer of `states(updateInterval:)` sees: the status and the progress at one moment.
    public struct State: Sendable, Equatable {
        /// Where the export stands.
        public var status: Status
        /// Progress of the export, 0…1.
        public var progress: Double
        /// Whether the export is over (`completed`, `failed` or `cancelled`): the last state of every sequence.
        public var isFinal: Bool { status != .waiting && status != .exporting }
    }

    /// The job.
    public let request: ExportRequest
    /// Where the session logs what a server needs to see (see `MediaExportLogging`).
    public let logger: Logger

    /// Everything that changes, behind one lock: read from any thread, written by the exporting one.
    private struct Mutable {
        var status: Status = .waiting
        var progress: Double = 0
        var error: ExportError?
        var onEvent: (@Sendable (ExportEvent) -> Void)?
        var onStuck: (@Sendable () -> Void)?
        var progressInterval: Double = 0.25
        var debugStallAtOutputTime: Double?
        var debugLoseStreamKind: SourceStream.Kind?
        var delivered: Delivered?
        var searchedCRF: Int?
        var debugQualityOffset = 0
        var observed: State { State(status: status, progress: progress) }
    }
    private let state = LockedBox(Mutable())
    let token = CancelToken()
    private let continuation: AsyncStream<ExportEvent>.Continuation
    private let feed = StateFeed(State(status: .waiting, progress: 0))
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
        feed.end(with: nil)
    }

    /// Called synchronously for every event, on the exporting thread. Set it before `run()`; it is released
    /// after the final event.
    public var onEvent: (@Sendable (ExportEvent) -> Void)? {
        get { state.withLock { $0.onEvent } }
        set { state.withLock { $0.onEvent = newValue } }
    }
    /// Called once, on a timer's thread, when the stall watchdog stopped a route and the exporting thread has not come
    /// back the stall timeout again (at least 5 s) later: it is inside a library call that does not return, which the
    /// session cannot end. A tool removes its temporary files (`ToolProcess.removeTemporaryFiles()`) and exits; a server
    /// gives up the thread and the session. Set it before `run()`.
    public var onStuck: (@Sendable () -> Void)? {
        get { state.withLock { $0.onStuck } }
        set { state.withLock { $0.onStuck = newValue } }
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

    /// What the delivering route ran: its plan (whose timeline maps the output's time to the source's) and the
    /// version's edits it was planned with.
    package struct Delivered: Sendable {
        /// The plan as run.
        package var plan: ExportPlan
        /// The edits applied (an `.AAE`'s or a sidecar's, as read), nil when none.
        package var edits: EditSidecar?
    }

    /// What the delivering route ran; nil before a route delivers, and for a byte copy.
    package internal(set) var delivered: Delivered? {
        get { state.withLock { $0.delivered } }
        set { state.withLock { $0.delivered = newValue } }
    }

    /// The CRF a quality target's search chose (`--quality`), which the records' settings give; nil without one.
    var searchedCRF: Int? {
        get { state.withLock { $0.searchedCRF } }
        set { state.withLock { $0.searchedCRF = newValue } }
    }

    /// Test hook: added to the CRF a quality search chooses (a first encode that misses its target).
    package var debugQualityOffset: Int {
        get { state.withLock { $0.debugQualityOffset } }
        set { state.withLock { $0.debugQualityOffset = newValue } }
    }

    /// The encoding settings of the records: the preset's, with a quality search's CRF.
    private var settings: EncodingSettings? {
        var settings = EncodingSettings(request.preset)
        if let crf = searchedCRF, settings?.videoBitrate == nil { settings?.crf = crf }
        return settings
    }

    /// The current status.
    public var status: Status { state.withLock { $0.status } }
    /// Progress of the export, 0…1.
    public var progress: Double { state.withLock { $0.progress } }
    /// Why the export failed or was cancelled.
    public var error: ExportError? { state.withLock { $0.error } }

    /// A fresh sequence of this session's state for one observer (each call its own; several may observe at once),
    /// like `AVAssetExportSession.states(updateInterval:)`: the state when called, every change of status, and
    /// progress at most every `updateInterval` seconds in between. It finishes after the final state
    /// (`completed`, `failed` or `cancelled`); called after the end, it yields that final state alone.
    public func states(updateInterval: Double) -> AsyncStream<State> {
        feed.observe(updateInterval: updateInterval)
    }

    /// Asks the export to stop. It ends as `cancelled`, leaving no output and no temporary file.
    public func cancel() {
        token.cancel()
    }

    /// Runs the export on a dedicated thread (FFmpeg calls block; the cooperative pool is left alone) and returns
    /// its final event. Cancelling the calling task cancels the export. Throws `ExportError.usage` if the session
    /// has run before.
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

    /// Runs the export on the calling thread. Throws `ExportError` on failure or cancellation, and
    /// `ExportError.usage` without running if the session has run (or is running) already: a session exports once.
    ///
    /// When the input cannot be transcoded (no decoder, the decoder rejects it, too many corrupt packets, a stall)
    /// the fallback chain of `request.fallback` runs: remux, then byte copy, each announced by a `fallback` event.
    @discardableResult
    public func run() throws -> ExportEvent.Completed {
        let began = Date()
        try begin()
        let watchdog = StallWatchdog(timeout: request.errors.stallTimeout, token: token) { [weak self] in self?.onStuck?() }
        defer { watchdog.stop() }
        do {
            let completed = try runChain(began: began, watchdog: watchdog)
            finish(completed)
            return completed
        } catch {
            throw finish(failure: error, began: began)
        }
    }

    /// `waiting → exporting`, once: a session that has left `waiting` does not run again.
    private func begin() throws {
        let first = state.withLock { state -> Bool in
            guard state.status == .waiting else { return false }
            state.status = .exporting
            return true
        }
        guard first else {
            throw ExportError.usage(reason: "this export session has already run; make a new ExportSession for another export")
        }
        publish(statusChanged: true)
    }

    /// The checks before any route, then the routes of the fallback chain until one delivers.
    private func runChain(began: Date, watchdog: StallWatchdog) throws -> ExportEvent.Completed {
        if token.isSet { throw ExportError.cancelled }
        if request.deterministic && !CodecRun.pinCPUPaths() {
            throw ExportError.usage(reason: "--deterministic needs an x86-64-v2 CPU (SSE4.2), and this one has \(CPUFeatures.vector.last ?? "none") at most")
        }
        if let refusal = request.qualityRefusal { throw refusal }
        let selection = try VersionResolver.select(input: request.input, version: request.version,
                                                   editsPath: request.editsPath, requireCurrent: request.requireCurrent)
        let snapshot = try InputSnapshot(path: selection.report.resource)
        let run = Run(selection: selection, began: began, snapshot: snapshot, watchdog: watchdog)
        var route = startRoute(run)
        var fallbacks: [ExportEvent.Fallback] = []
        while true {
            switch ExportAttempt(session: self, run: run, route: route, isStart: fallbacks.isEmpty).outcome() {
            case .delivered(var completed):
                completed.route = route
                // Encoding settings only for a route that encoded (a remux or byte copy encodes nothing).
                if route == .transcode || route == .salvage { completed.settings = settings }
                completed.fallbacks = fallbacks
                return completed
            case .failed(let error, let failure, let reason):
                // An input that changed under us is a failure, never a reason to deliver it some other way.
                try run.snapshot.verify()
                if failure == .damaged, run.damage == nil { run.damage = reason }
                guard let next = request.fallback.next(after: route, failure: failure, damageSeen: run.damage != nil,
                                                       damaged: request.errors.damaged) else { throw error }
                fallbacks.append(try announceFallback(from: route, to: next, error: error, failure: failure, reason: reason, run: run))
                route = next
            }
        }
    }

    /// The route the chain starts from (`ExportPlanner.start`): under `needed`, a source that already fits is
    /// remuxed or copied. A source that does not open starts at the transcode, which reports why.
    private func startRoute(_ run: Run) -> ExportRoute {
        if let decided = ExportPlanner.start(preset: request.preset, policy: request.policy) { return decided.route }
        guard let source = try? run.source(cancel: token) else { return .transcode }
        return ExportPlanner.start(run.selection.startQuestion(request, source: source.info), truncation: { source.measuredTruncation() }).route
    }

    /// The fallback from `route` to `next`, announced; refused when `--require-current` forbids what `next` loses.
    private func announceFallback(from route: ExportRoute, to next: ExportRoute, error: ExportError, failure: RouteFailure,
                                  reason: String, run: Run) throws -> ExportEvent.Fallback {
        if request.requireCurrent, let lost = editsLost(by: next, selection: run.selection) {
            throw ExportError.versionUnavailable(path: request.input, version: .current,
                                                 reason: "\(error.description); a \(next.rawValue) fallback would not apply \(lost) (--require-current)")
        }
        let fallback = ExportEvent.Fallback(from: route, to: next, reason: reason, stage: failure == .skipped ? nil : error.stage,
                                            planMismatch: error.kind == .planMismatch ? true : nil)
        // A stall ends this route only; a cancellation stands.
        token.clearStall()
        run.watchdog.touch()
        logger.warning("\(route.rawValue) failed, falling back to \(next.rawValue): \(fallback.reason)")
        emit(.fallback(fallback))
        return fallback
    }

    /// The end of a delivered export: logged, `completed`, the final event.
    private func finish(_ completed: ExportEvent.Completed) {
        logger.info("exported \(completed.bytes) bytes by \(completed.route.rawValue)",
                    metadata: ["verification": "\(completed.verification.map { $0.passed ? "passed" : "failed" } ?? "none")"])
        for warning in completed.warnings { logger.notice("\(warning)") }
        state.withLock { $0.status = .completed; $0.progress = 1 }
        emit(.completed(completed))
        continuation.finish()
        feed.end(with: state.withLock { $0.observed })
    }

    /// The end of an export that failed or was cancelled: logged, the status, the final event; returns the error to throw.
    private func finish(failure error: Error, began: Date) -> ExportError {
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
        feed.end(with: state.withLock { $0.observed })
        return exportError
    }

    /// What one run of the chain shares between its routes: the version, one probe of the resource (opened on
    /// first use: a byte copy needs none), the input's identity, the watchdog.
    final class Run {
        let selection: VersionSelection
        let began: Date
        let snapshot: InputSnapshot
        let watchdog: StallWatchdog
        /// Why the input's data is damaged, once a route found it (the reason its fallback names).
        var damage: String?
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
    func translate(_ error: Error) -> ExportError {
        if let skipped = error as? RouteSkipped { return skipped.failure }
        let e = (error as? ExportError) ?? .ffmpeg(stage: .write, path: request.output, code: -1, message: "\(error)")
        if case .cancelled = e, token.isStalled {
            return .stalled(path: request.input, seconds: request.errors.stallTimeout)
        }
        return e
    }

    /// The edits a fallback route cannot apply, if the version delivered would then not be the current one (a
    /// salvage applies what its plan's route does).
    func editsLost(by route: ExportRoute, selection: VersionSelection) -> String? {
        ExportPlanner.editsLost(by: ExportPlanner.plannedRoute(route, preset: request.preset), edits: selection.edits, sidecarName: selection.editsFile.map(PathName.lastComponent),
                                timeRangeGiven: request.timeRange != nil, deliversCurrent: selection.report.delivered == .current)
    }

    /// The output target for `output`: it refuses a bad output before any work.
    func makeTarget(_ output: String, selection: VersionSelection, anyExtension: Bool = false) throws -> OutputTarget {
        try OutputTarget(output: output, inputs: [request.input, selection.report.resource], overwrite: request.overwrite,
                         replaceable: request.replaceable, sandbox: request.sandbox, defaultExtension: request.preset.defaultExtension, anyExtension: anyExtension)
    }

    /// The export's progress, 0…1, for `progress` and every observer.
    func setProgress(_ fraction: Double) {
        state.withLock { $0.progress = fraction }
        publish(statusChanged: false)
    }

    /// The current state to every observer of `states(updateInterval:)`.
    private func publish(statusChanged: Bool) {
        feed.publish(state.withLock { $0.observed }, force: statusChanged)
    }

    func emit(_ event: ExportEvent) {
        var event = event
        // The encoding settings, when a stream is encoded (a remux or byte copy encodes nothing).
        if case .started(var s) = event, s.streams.contains(where: { $0.action == .transcode }) {
            s.settings = settings
            event = .started(s)
        }
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

extension ProbedSource {
    /// Scans the packets; why the file is cut short, if it is (nil too when the scan fails).
    func measuredTruncation() -> String? {
        guard (try? measureDataEnd()) != nil else { return nil }
        return info.truncation
    }
}
