import Foundation
import MediaExportCore
import MediaExportFFmpeg

/// Exports one input with a preset, like `AVAssetExportSession`: a status that moves
/// `waiting → exporting → completed | failed | cancelled`, progress 0…1, a typed error, `cancel()`,
/// and a stream of `Codable` events (`started`, `progress`…, then exactly one final event).
///
/// The pipeline runs on the thread that calls `run()` (FFmpeg calls block); `export()` runs it on a
/// dedicated thread for async callers. `cancel()` may be called from any thread or a signal handler's queue.
public final class ExportSession: @unchecked Sendable {
    /// Where an export stands.
    public enum Status: String, Codable, Sendable {
        case waiting, exporting, completed, failed, cancelled
    }

    /// The job.
    public let request: ExportRequest
    /// Called synchronously for every event, on the exporting thread. Set it before `run()`; it is released
    /// after the final event.
    public var onEvent: (@Sendable (ExportEvent) -> Void)?
    /// How often `progress` events are emitted at most, in seconds.
    public var progressInterval: Double = 0.25

    private let lock = NSLock()
    private var _status: Status = .waiting
    private var _progress: Double = 0
    private var _error: ExportError?
    private let flag = CancelFlag()
    private var cancelFlag: UnsafeMutablePointer<Int32> { flag.pointer }
    private let continuation: AsyncStream<ExportEvent>.Continuation
    /// Every event of this session, ending after the final one. Buffers the newest 1000 if nobody reads.
    public let events: AsyncStream<ExportEvent>

    /// Creates a session in the `waiting` state.
    public init(request: ExportRequest) {
        self.request = request
        (events, continuation) = AsyncStream.makeStream(of: ExportEvent.self, bufferingPolicy: .bufferingNewest(1000))
    }

    deinit {
        continuation.finish()
    }

    /// The current status.
    public var status: Status { lock.withLock { _status } }
    /// Progress of the export, 0…1.
    public var progress: Double { lock.withLock { _progress } }
    /// Why the export failed or was cancelled.
    public var error: ExportError? { lock.withLock { _error } }

    /// Asks the export to stop. It ends as `cancelled`, leaving no output and no temporary file.
    public func cancel() {
        flag.cancel()
    }

    /// Runs the export on a dedicated thread and returns its final event.
    public func export() async throws -> ExportEvent.Completed {
        try await withCheckedThrowingContinuation { (cont: CheckedContinuation<ExportEvent.Completed, Error>) in
            let thread = Thread { cont.resume(with: Result { try self.run() }) }
            thread.stackSize = 8 << 20
            thread.start()
        }
    }

    /// Runs the export on the calling thread. Throws `ExportError` on failure or cancellation.
    ///
    /// When the input cannot be transcoded (no decoder, the decoder rejects it, too many corrupt packets, a stall)
    /// the fallback chain of `request.fallback` runs: remux, then byte copy, each announced by a `fallback` event.
    @discardableResult
    public func run() throws -> ExportEvent.Completed {
        let began = Date()
        lock.withLock { _status = .exporting }
        let watchdog = StallWatchdog(timeout: request.errors.stallTimeout, flag: flag)
        activity = { watchdog.touch() }
        defer { watchdog.stop() }
        do {
            if flag.isSet { throw ExportError.cancelled }
            let selection = try VersionResolver.select(input: request.input, version: request.version,
                                                       editsPath: request.editsPath, requireCurrent: request.requireCurrent)
            let snapshot = try InputSnapshot(path: selection.report.resource)
            self.snapshot = snapshot
            let first: ExportRoute = request.startRoute ?? (request.preset.passthrough ? .remux : .transcode)
            let chain = request.fallback.chain(startingWith: first)
            var fallbacks: [ExportEvent.Fallback] = []
            for (step, route) in chain.enumerated() {
                var target: OutputTarget?
                do {
                    var completed = try attempt(route, selection: selection, began: began, target: &target)
                    completed.route = route
                    completed.fallbacks = fallbacks
                    lock.withLock { _status = .completed; _progress = 1 }
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
                    flag.clearStall()
                    watchdog.touch()
                    fallbacks.append(fallback)
                    emit(.fallback(fallback))
                }
            }
            throw ExportError.cancelled  // not reached: the last route either returns or throws
        } catch {
            let exportError = translate(error)
            let elapsed = Date().timeIntervalSince(began)
            if case .cancelled = exportError {
                lock.withLock { _status = .cancelled; _error = exportError }
                emit(.cancelled(.init(output: request.output, elapsed: elapsed)))
            } else {
                lock.withLock { _status = .failed; _error = exportError }
                emit(.failed(.init(exportError)))
            }
            continuation.finish()
            throw exportError
        }
    }

    /// Test hook: the transcode route pretends to hang once output reaches this many seconds.
    var debugStallAtOutputTime: Double?
    private var activity: () -> Void = {}
    private var snapshot: InputSnapshot?

    /// A stalled flag is the watchdog's: the route stalled.
    private func translate(_ error: Error) -> ExportError {
        if let skipped = error as? RouteSkipped {
            return .ffmpeg(stage: .mux, path: request.input, code: -1, message: skipped.reason)
        }
        let e = (error as? ExportError) ?? .ffmpeg(stage: .write, path: request.output, code: -1, message: "\(error)")
        if case .cancelled = e, flag.value == CancelFlag.stalled {
            return .stalled(path: request.input, seconds: request.errors.stallTimeout)
        }
        return e
    }

    /// The edits a fallback route cannot apply, if the version delivered would then not be the current one.
    private func editsLost(by route: ExportRoute, selection: VersionSelection) -> String? {
        guard selection.report.delivered == .current, route != .transcode else { return nil }
        var lost: [String] = []
        if let edits = selection.edits, !edits.isEmpty {
            lost = route == .copy ? ["the edits of \((selection.report.sidecar as NSString?)?.lastPathComponent ?? "the sidecar")"] : edits.needsTranscode
        }
        if route == .copy && request.timeRange != nil { lost.append("the time range") }
        return lost.isEmpty ? nil : lost.joined(separator: ", ")
    }

    private func attempt(_ route: ExportRoute, selection: VersionSelection, began: Date, target: inout OutputTarget?) throws -> ExportEvent.Completed {
        var report = selection.report
        if let lost = editsLost(by: route, selection: selection), !(route == .remux && request.preset.passthrough) {
            report.delivered = .original
            report.reason += "; the \(route.rawValue) fallback does not apply \(lost)"
        }
        switch route {
        case .transcode:
            let t = try makeTarget(request.output, selection: selection)
            target = t
            return try runPipeline(preset: request.preset, edits: selection.edits, target: t, selection: selection, report: report, began: began)
        case .remux:
            let t = try makeTarget(request.output, selection: selection)
            target = t
            let remux = request.preset.passthrough ? request.preset : Preset(name: "\(request.preset.name) (remux)", defaultExtension: request.preset.defaultExtension,
                                                                               passthrough: true, video: request.preset.video, audio: request.preset.audio)
            var edits = selection.edits
            if !request.preset.passthrough {
                edits?.crop = nil
                edits?.volume = nil
            }
            return try runPipeline(preset: remux, edits: edits, target: t, selection: selection, report: report, began: began)
        case .copy:
            let source = selection.report.resource
            let base = (request.output as NSString).deletingPathExtension
            let ext = (source as NSString).pathExtension.lowercased()
            let t = try makeTarget(ext.isEmpty ? base : base + "." + ext, selection: selection, anyExtension: true)
            target = t
            emit(.started(.init(input: request.input, output: t.finalPath, preset: request.preset.name, container: ext,
                                duration: nil, timeRange: nil, streams: [], notes: ["byte copy of \(source)"], version: report)))
            let sha = try ByteCopy.copy(source: source, to: t, cancel: cancelFlag, activity: activity)
            try snapshot?.verify()
            try t.commit()
            var completed = describe(output: t.finalPath, began: began, skipped: 0,
                                     notes: request.timeRange != nil ? ["time range not applied by a byte copy"] : [], report: report)
            completed.sha256 = sha
            return completed
        }
    }

    private func makeTarget(_ output: String, selection: VersionSelection, anyExtension: Bool = false) throws -> OutputTarget {
        try OutputTarget(output: output, inputs: [request.input, selection.report.resource], overwrite: request.overwrite,
                         sandbox: request.sandbox, defaultExtension: request.preset.defaultExtension, anyExtension: anyExtension)
    }

    private func runPipeline(preset: Preset, edits: EditSidecar?, target: OutputTarget, selection: VersionSelection,
                             report: VersionReport, began: Date) throws -> ExportEvent.Completed {
        let source = selection.report.resource
        if let edits, let sidecar = selection.report.sidecar {
            try edits.validate(against: try MediaProbe.probe(path: source), path: sidecar)
            if preset.passthrough && !edits.needsTranscode.isEmpty && request.preset.passthrough {
                throw ExportError.editNeedsTranscode(path: sidecar, edits: edits.needsTranscode)
            }
        }
        let transcoder = try Transcoder(source: source, preset: preset, range: request.sourceRange(edits: edits),
                                        edits: edits, target: target, cancelFlag: cancelFlag, errors: request.errors)
        if preset.passthrough && !request.preset.passthrough, !transcoder.plan.remuxBlockers.isEmpty {
            throw RouteSkipped(reason: "remux skipped: \(transcoder.plan.remuxBlockers.joined(separator: "; "))")
        }
        transcoder.debugStallAtOutputTime = preset.passthrough ? nil : debugStallAtOutputTime
        let expected = transcoder.expectedDuration
        emit(.started(.init(input: request.input, output: target.finalPath, preset: request.preset.name,
                            container: target.container?.rawValue ?? "", duration: expected, timeRange: request.timeRange,
                            streams: transcoder.plan.streams, notes: transcoder.notes, version: report)))
        var lastReport = Date.distantPast
        let outcome = try transcoder.run(beforeCommit: { try self.snapshot?.verify() }) { outputTime, frames, final in
            self.activity()
            let now = Date()
            guard final || now.timeIntervalSince(lastReport) >= self.progressInterval else { return }
            lastReport = now
            let elapsed = now.timeIntervalSince(began)
            let fraction = final ? 1 : expected.map { $0 > 0 ? min(1, max(0, outputTime / $0)) : 0 } ?? 0
            let speed = elapsed > 0 ? outputTime / elapsed : 0
            let eta: Double? = final ? 0 : (expected != nil && speed > 0) ? max(0, (expected! - outputTime) / speed) : nil
            self.lock.withLock { self._progress = fraction }
            self.emit(.progress(.init(fraction: fraction, outputTime: outputTime, speed: speed,
                                      fps: elapsed > 0 ? Double(frames) / elapsed : 0, elapsed: elapsed, eta: eta)))
        }
        try target.commit()
        return describe(output: target.finalPath, began: began, skipped: outcome.skippedPackets, notes: outcome.notes, report: report)
    }

    /// The `completed` record for a file in place, with what a probe of it says.
    private func describe(output: String, began: Date, skipped: Int, notes: [String], report: VersionReport) -> ExportEvent.Completed {
        let info = try? MediaProbe.probe(path: output)
        let size = FileSystem.size(output) ?? 0
        let video = info?.streams.first { $0.type == "video" }
        return .init(output: output, bytes: size, duration: info?.duration ?? 0,
                     codecs: info?.streams.map(\.codec) ?? [], width: video?.width, height: video?.height,
                     wallTime: Date().timeIntervalSince(began), skippedPackets: skipped, notes: notes, version: report)
    }

    private func emit(_ event: ExportEvent) {
        onEvent?(event)
        continuation.yield(event)
        // After the final event the handler is dropped: a handler that captures its own session (to cancel it,
        // say) would otherwise keep both alive forever.
        if event.isFinal { onEvent = nil }
    }
}


/// A route that cannot even start (e.g. remux when the container cannot hold a stream): go to the next one.
struct RouteSkipped: Error {
    var reason: String
}

/// Stops an export that makes no progress: if `touch()` is not called for `timeout` seconds, it marks the
/// session's cancel flag `stalled` (only while it is running: a user's cancellation is never overwritten),
/// which FFmpeg's interrupt callback and the pipeline loop both see.
final class StallWatchdog: @unchecked Sendable {
    /// The time of the last progress; shared with the timer's handler (no reference back to the watchdog).
    private final class LastProgress: @unchecked Sendable {
        let lock = NSLock()
        var time = DispatchTime.now()
    }

    private let last = LastProgress()
    private let timer: DispatchSourceTimer

    /// `flag` is held strongly by the timer's handler: it outlives any late firing.
    init(timeout: Double, flag: CancelFlag) {
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue.global(qos: .utility))
        let interval = max(0.05, min(1.0, timeout / 4))
        timer.schedule(deadline: .now() + interval, repeating: interval)
        let last = self.last
        timer.setEventHandler {
            guard timeout > 0 else { return }
            // The last progress is read before the clock: a `touch()` in between would otherwise put it after
            // "now" (this subtraction once trapped on unsigned underflow in the middle of an export).
            let then = last.lock.withLock { last.time }
            if StallWatchdog.idleSeconds(now: DispatchTime.now(), since: then) >= timeout { flag.markStalled() }
        }
        timer.resume()
    }

    /// Seconds from `since` to `now`; 0 when `since` is later (never traps).
    static func idleSeconds(now: DispatchTime, since: DispatchTime) -> Double {
        let a = now.uptimeNanoseconds, b = since.uptimeNanoseconds
        return a > b ? Double(a - b) / 1e9 : 0
    }

    /// Progress happened.
    func touch() { last.lock.withLock { last.time = DispatchTime.now() } }

    /// Ends the watchdog; its handler never runs again.
    func stop() {
        timer.setEventHandler(handler: nil)
        timer.cancel()
    }
}
