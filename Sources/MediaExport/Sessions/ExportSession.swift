import Foundation

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
    /// Called synchronously for every event, on the exporting thread. Set it before `run()`.
    public var onEvent: (@Sendable (ExportEvent) -> Void)?
    /// How often `progress` events are emitted at most, in seconds.
    public var progressInterval: Double = 0.25

    private let lock = NSLock()
    private var _status: Status = .waiting
    private var _progress: Double = 0
    private var _error: ExportError?
    private let cancelFlag: UnsafeMutablePointer<Int32>
    private let continuation: AsyncStream<ExportEvent>.Continuation
    /// Every event of this session, ending after the final one. Buffers the newest 1000 if nobody reads.
    public let events: AsyncStream<ExportEvent>

    /// Creates a session in the `waiting` state.
    public init(request: ExportRequest) {
        self.request = request
        cancelFlag = UnsafeMutablePointer<Int32>.allocate(capacity: 1)
        cancelFlag.initialize(to: 0)
        (events, continuation) = AsyncStream.makeStream(of: ExportEvent.self, bufferingPolicy: .bufferingNewest(1000))
    }

    deinit {
        continuation.finish()
        cancelFlag.deallocate()
    }

    /// The current status.
    public var status: Status { lock.withLock { _status } }
    /// Progress of the export, 0…1.
    public var progress: Double { lock.withLock { _progress } }
    /// Why the export failed or was cancelled.
    public var error: ExportError? { lock.withLock { _error } }

    /// Asks the export to stop. It ends as `cancelled`, leaving no output and no temporary file.
    public func cancel() {
        cancelFlag.pointee = 1
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
    @discardableResult
    public func run() throws -> ExportEvent.Completed {
        let began = Date()
        lock.withLock { _status = .exporting }
        var target: OutputTarget?
        do {
            if cancelFlag.pointee != 0 { throw ExportError.cancelled }
            let selection = try VersionResolver.select(input: request.input, version: request.version,
                                                       editsPath: request.editsPath, requireCurrent: request.requireCurrent)
            let t = try OutputTarget(output: request.output, inputs: [request.input, selection.report.resource], overwrite: request.overwrite,
                                     sandbox: request.sandbox, defaultExtension: request.preset.defaultExtension)
            target = t
            let completed = try runPipeline(target: t, selection: selection, began: began)
            lock.withLock { _status = .completed; _progress = 1 }
            emit(.completed(completed))
            continuation.finish()
            return completed
        } catch {
            target?.discard()
            let exportError = (error as? ExportError) ?? .ffmpeg(stage: .write, path: request.output, code: -1, message: "\(error)")
            let elapsed = Date().timeIntervalSince(began)
            if case .cancelled = exportError {
                lock.withLock { _status = .cancelled; _error = exportError }
                emit(.cancelled(.init(output: request.output, elapsed: elapsed)))
            } else {
                lock.withLock { _status = .failed; _error = exportError }
                emit(.failed(.init(stage: exportError.stage, message: exportError.description, path: exportError.path,
                                   exitCode: exportError.exitCode)))
            }
            continuation.finish()
            throw exportError
        }
    }

    private func runPipeline(target: OutputTarget, selection: VersionSelection, began: Date) throws -> ExportEvent.Completed {
        let source = selection.report.resource
        if let edits = selection.edits, let sidecar = selection.report.sidecar {
            try edits.validate(against: try MediaProbe.probe(path: source), path: sidecar)
            if request.preset.passthrough && !edits.needsTranscode.isEmpty {
                throw ExportError.editNeedsTranscode(path: sidecar, edits: edits.needsTranscode)
            }
        }
        let transcoder = try Transcoder(source: source, preset: request.preset, range: request.sourceRange(edits: selection.edits),
                                        edits: selection.edits, target: target, cancelFlag: cancelFlag)
        let expected = transcoder.expectedDuration
        emit(.started(.init(input: request.input, output: target.finalPath, preset: request.preset.name,
                            container: target.container.rawValue, duration: expected, timeRange: request.timeRange,
                            streams: transcoder.plan.streams, notes: transcoder.notes, version: selection.report)))
        var lastReport = Date.distantPast
        let outcome = try transcoder.run { outputTime, frames, final in
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
        let info = try? MediaProbe.probe(path: target.finalPath)
        let size = (try? FileManager.default.attributesOfItem(atPath: target.finalPath)[.size] as? NSNumber)?.int64Value ?? 0
        let video = info?.streams.first { $0.type == "video" }
        return .init(output: target.finalPath, bytes: size, duration: info?.duration ?? 0,
                     codecs: info?.streams.map(\.codec) ?? [], width: video?.width, height: video?.height,
                     wallTime: Date().timeIntervalSince(began), skippedPackets: outcome.skippedPackets, notes: outcome.notes,
                     version: selection.report)
    }

    private func emit(_ event: ExportEvent) {
        onEvent?(event)
        continuation.yield(event)
    }
}

