import Foundation
import Logging
import MediaExportCore
import MediaExportFFmpeg

/// Events of a batch: the plan, every job's export events tagged with its job id, and one final record.
public enum BatchEvent: Sendable {
    /// One per asset, before any work.
    case planned(BatchItem)
    /// A job changed state (`waiting`, `exporting`, `completed`, `failed`, `cancelled`). `key` is the asset's key
    /// as shown to people (`FileName.display`), as in every event of a job.
    case job(id: Int, key: String, status: ExportSession.Status)
    /// An export event of a job.
    case export(id: Int, key: String, event: ExportEvent)
    /// The batch is over.
    case finished(BatchFinished)

    /// The final record's payload.
    public struct BatchFinished: Codable, Sendable, Equatable {
        public var counts: BatchCounts
        /// How the batch ended as a whole; the CLI adds its exit code to the record.
        public var outcome: BatchOutcome
        public var dryRun: Bool
        public var database: String?
        public var report: String?
        public var wallTime: Double
        /// What a person should know about the inputs (see `BatchPlan.notes`), and "no media found".
        public var notes: [String] = []
        /// Every file under the inputs that is not exported as an asset of its own, with the reason.
        public var ignored: [IgnoredFile] = []
    }
}

/// How a batch ended as a whole, worst first.
public enum BatchOutcome: String, Codable, Sendable {
    /// Cancelled (`cancel()` or the task).
    case cancelled
    /// The inputs hold no media at all.
    case noMedia
    /// An asset failed, was cancelled, or was skipped as failed in an earlier run.
    case failed
    /// Every asset was delivered, some by a fallback (remux or byte copy).
    case completedWithFallback
    /// Every asset completed (or was already done).
    case completed
}

/// The outcome of a batch.
public struct BatchResult: Sendable {
    public var rows: [BatchReportRow]
    public var counts: BatchCounts
    /// How it ended (the CLI's exit code: 0 completed, 3 with fallbacks, 1 failed, 66 no media, 130 cancelled).
    public var outcome: BatchOutcome
    /// What a person should know about the inputs (see `BatchPlan.notes`), and "no media found".
    public var notes: [String] = []
    /// Every file under the inputs that is not exported as an asset of its own, with the reason (`BatchPlan.ignored`).
    public var ignored: [IgnoredFile] = []
}

/// Runs a batch: plans, then exports with a bounded number of jobs at once; one failure never stops the others.
/// Every finished job is recorded in the export database before the next starts, so an interrupted batch
/// resumes where it stopped. A run that writes holds the output folder's `BatchLock` throughout; a dry run
/// writes nothing (not even the output folder or the database), so it takes no lock.
public final class BatchRunner: Sendable {
    public let options: BatchOptions

    /// Everything that changes while a batch runs, behind one lock.
    private struct State {
        var running: [Int: ExportSession] = [:]
        var cancelled = false
        var reportPath: String?
    }
    /// The event handlers; calls are made while it is held, so handlers see one event at a time.
    private struct Handlers {
        var onEvent: (@Sendable (BatchEvent) -> Void)?
        var onNote: (@Sendable (String) -> Void)?
    }
    private let state = LockedBox(State())
    private let handlers = LockedBox(Handlers())

    /// Receives every event (from several threads, one at a time); released when `run()` returns.
    public var onEvent: (@Sendable (BatchEvent) -> Void)? {
        get { handlers.withLock { $0.onEvent } }
        set { handlers.withLock { $0.onEvent = newValue } }
    }
    /// Receives each note as it is made (waiting for another batch's lock, inputs left out): the same texts as
    /// `BatchResult.notes`. Released when `run()` returns.
    public var onNote: (@Sendable (String) -> Void)? {
        get { handlers.withLock { $0.onNote } }
        set { handlers.withLock { $0.onNote = newValue } }
    }
    /// Where the report goes, if anywhere.
    public var reportPath: String? {
        get { state.withLock { $0.reportPath } }
        set { state.withLock { $0.reportPath = newValue } }
    }

    /// Creates a runner.
    /// Where every job's session logs (see `MediaExportLogging`; each job's input and output are its metadata).
    public let logger: Logger

    /// Creates a runner; its jobs log to `logger` (default: nothing).
    public init(options: BatchOptions, logger: Logger = MediaExportLogging.silent) { self.options = options; self.logger = logger }

    /// Stops the batch: running jobs are cancelled (no partial files), waiting ones are not started.
    public func cancel() {
        let sessions: [ExportSession] = state.withLock { $0.cancelled = true; return Array($0.running.values) }
        for s in sessions { s.cancel() }
    }

    private var isCancelled: Bool { state.withLock { $0.cancelled } }
    private func emit(_ e: BatchEvent) { handlers.withLock { $0.onEvent?(e) } }
    private func note(_ text: String) { handlers.withLock { $0.onNote?(text) } }

    /// Plans and runs the batch: at most `options.jobs` exports at once, as a bounded task group whose parent
    /// alone collects the rows (each export's blocking FFmpeg work runs on its own thread), each export's codecs
    /// on `options.threads` threads or their share of the cores (`BatchOptions.threadsPerJob`). Cancelling the
    /// calling task cancels the batch like `cancel()`.
    public func run() async throws -> BatchResult {
        // Like ExportSession: the handler is dropped when the batch ends, so one that captures the runner leaks nothing.
        defer { handlers.withLock { $0 = Handlers() } }
        return try await withTaskCancellationHandler { try await runBatch() } onCancel: { cancel() }
    }

    private func runBatch() async throws -> BatchResult {
        let began = Date()
        let waitNotes = LockedBox<[String]>([])
        let outRoot = try BatchPlanner.outputRoot(options.outputDirectory, create: !options.dryRun)
        // Taken before the database is read: a second batch on this folder waits or stops here, before any work.
        let folderLock = options.dryRun ? nil : try BatchLock.acquire(
            directory: outRoot, wait: options.wait, isCancelled: { self.isCancelled },
            onWait: { holder in
                let text = BatchError.locked(directory: outRoot, holder: holder).description
                    .replacingOccurrences(of: "; use --wait to wait for it", with: "; waiting for it")
                waitNotes.withLock { $0.append(text) }
                note(text)
            })
        defer { folderLock?.release() }
        var notes = waitNotes.withLock { $0 }
        // Under the lock, so no other batch is writing here: what killed runs left in the output root goes.
        // (Subfolders are swept by each export into them.)
        if folderLock != nil { TemporaryFiles.sweep(directory: outRoot) }
        let dbPath = PathName.join(outRoot, ExportDatabase.fileName)
        let database: ExportDatabase? = options.dryRun
            ? (FileSystem.exists(dbPath) ? try ExportDatabase(path: dbPath, readOnly: true) : nil)
            : try ExportDatabase(path: dbPath)
        // Closed before the lock is released (defers run last first): the next batch finds it checkpointed.
        defer { database?.close() }
        let previous = try database?.rows() ?? [:]
        var hashes: [String: String] = [:]
        for row in previous.values {
            for s in row.sources { hashes["\(s.path)|\(s.size)|\(s.modified)"] = s.sha256 }
        }
        let plan = try BatchPlanner.makePlan(options, database: previous, hashes: &hashes)
        let items = plan.items
        var planNotes = plan.notes
        if plan.assetsFound == 0 {
            planNotes.append("no media found in " + options.inputs.map(FileName.display).joined(separator: ", "))
        } else if items.isEmpty {
            planNotes.append("\(plan.assetsFound) asset\(plan.assetsFound == 1 ? "" : "s") found, none selected"
                             + (options.shard.map { " for shard \($0)" } ?? "") + " by the filters")
        }
        for text in planNotes { note(text) }
        notes += planNotes
        for item in items { emit(.planned(item)) }

        var rows = items.map { item in
            BatchReportRow(key: item.key, input: item.input, action: item.action, reason: item.reason,
                           status: options.dryRun ? "planned" : (item.action == .skip ? "skipped" : "waiting"),
                           route: nil, fallbacks: 0, versionRequested: options.version.rawValue, versionDelivered: nil,
                           output: item.output, bytesIn: item.sourceBytes, bytesOut: nil, estimatedBytes: item.estimatedBytes,
                           outputSHA256: nil, error: item.reason.hasPrefix("failed in the last run") ? previous[item.key]?.error : nil,
                           wallTime: nil)
        }
        if !options.dryRun, let database {
            let work = items.indices.filter { items[$0].action != .skip }
            let hashCache = HashCache(hashes)
            for (position, index) in work.enumerated() { emit(.job(id: position + 1, key: FileName.display(items[index].key), status: .waiting)) }
            let jobs = work.enumerated().map { (id: $0.offset + 1, index: $0.element) }
            // The cores shared out among the exports that run at once (fewer than --jobs when fewer assets need work);
            // a fixed count when the bytes must not depend on the cores.
            let threads = options.threads ?? (options.deterministic ? ExportRequest.deterministicThreads
                : BatchOptions.threadsPerJob(cores: BatchOptions.availableCores, jobs: min(options.jobs, jobs.count)))
            let snapshot = rows
            rows = await withTaskGroup(of: (Int, BatchReportRow).self) { group in
                var collected = snapshot
                var next = 0
                func start(_ group: inout TaskGroup<(Int, BatchReportRow)>) {
                    guard next < jobs.count, !isCancelled else { return }
                    let job = jobs[next]
                    next += 1
                    let item = items[job.index], earlier = previous[item.key]
                    group.addTask { (job.index, await self.runJobOnThread(id: job.id, item: item, database: database, previous: earlier, hashes: hashCache, threads: threads)) }
                }
                for _ in 0..<min(options.jobs, jobs.count) { start(&group) }
                while let (index, row) = await group.next() {
                    collected[index] = row
                    start(&group)
                }
                return collected
            }
            rows = rows.map { row in
                var r = row
                if r.status == "waiting" { r.status = "cancelled"; r.error = "batch interrupted before this asset started" }
                return r
            }
        }
        if let reportPath { try BatchReport.write(rows, ignored: plan.ignored, to: reportPath) }
        let counts = BatchCounts(rows)
        let wasCancelled = isCancelled
        let skippedFailures = rows.contains { $0.status == "skipped" && $0.error != nil }
        let outcome: BatchOutcome = wasCancelled ? .cancelled
            : plan.assetsFound == 0 ? .noMedia
            : (counts.failed > 0 || counts.cancelled > 0 || skippedFailures) ? .failed
            : counts.fellBack > 0 ? .completedWithFallback : .completed
        emit(.finished(.init(counts: counts, outcome: outcome, dryRun: options.dryRun, database: database.map { FileName.display($0.path) },
                             report: reportPath.map(FileName.display), wallTime: Date().timeIntervalSince(began), notes: notes,
                             ignored: plan.ignored.map(\.displayed))))
        return BatchResult(rows: rows, counts: counts, outcome: outcome, notes: notes, ignored: plan.ignored)
    }

    /// Runs one job on a thread of its own (FFmpeg calls block), off the cooperative pool.
    private func runJobOnThread(id: Int, item: BatchItem, database: ExportDatabase, previous: ExportDatabase.Row?, hashes: HashCache,
                                threads: Int) async -> BatchReportRow {
        await withCheckedContinuation { continuation in
            let thread = Thread {
                let row = self.runJob(id: id, item: item, database: database, previous: previous, hashes: hashes, threads: threads)
                FreedMemory.release()  // the export's buffers: the batch holds the jobs in flight, not every job done
                continuation.resume(returning: row)
            }
            thread.stackSize = 8 << 20
            thread.start()
        }
    }

    private func runJob(id: Int, item: BatchItem, database: ExportDatabase, previous: ExportDatabase.Row?, hashes: HashCache,
                        threads: Int) -> BatchReportRow {
        let began = Date()
        var row = BatchReportRow(key: item.key, input: item.input, action: item.action, reason: item.reason, status: "failed", route: nil,
                                 fallbacks: 0, versionRequested: options.version.rawValue, versionDelivered: nil, output: item.output,
                                 bytesIn: item.sourceBytes, bytesOut: nil, estimatedBytes: item.estimatedBytes, outputSHA256: nil,
                                 error: nil, wallTime: nil)
        var dbRow = ExportDatabase.Row(assetKey: item.key, sources: [], sourceFingerprint: "", presetName: options.preset.name,
                                       presetHash: BatchPlanner.presetHash(options.preset, tracks: options.tracks, maxFileSize: options.maxFileSize, deterministic: options.deterministic), versionRequested: options.version.rawValue,
                                       versionDelivered: nil, action: item.action.rawValue, route: nil, fallbacks: 0, outputPath: item.output,
                                       outputSize: nil, outputSHA256: nil, status: "running", error: nil,
                                       startedAt: began.timeIntervalSince1970, finishedAt: nil, wallTime: nil,
                                       ffmpegVersions: FFmpegVersions.lines.joined(separator: ", "))
        do {
            dbRow.sources = try BatchPlanner.sources(of: item, cached: hashes.hash(_:), store: hashes.store(_:_:))
            dbRow.sourceFingerprint = BatchPlanner.fingerprint(of: dbRow.sources)
            try database.upsert(dbRow)
            // Our own earlier output may be replaced; any other file at that path is left alone.
            let ours = previous?.outputPath == item.output
            try BatchPlanner.makeDirectories(PathName.directory(item.output))
            var request = ExportRequest(input: item.input, output: item.output, preset: options.preset, overwrite: ours,
                                        sandbox: options.outputDirectory, version: options.version, fallback: options.fallback, errors: options.errors)
            request.tracks = options.tracks
            request.maxFileSize = options.maxFileSize
            request.estimate = options.estimate
            request.threads = threads
            request.deterministic = options.deterministic
            switch item.action {
            case .remux: request.startRoute = .remux
            case .copy: request.startRoute = .copy
            default: break
            }
            let session = ExportSession(request: request, logger: logger)
            let shownKey = FileName.display(item.key)
            session.onEvent = { event in self.emit(.export(id: id, key: shownKey, event: event)) }  // no cycle: the session is dropped after the job
            let proceed = state.withLock { state -> Bool in
                if state.cancelled { return false }
                state.running[id] = session
                return true
            }
            guard proceed else { throw ExportError.cancelled }
            emit(.job(id: id, key: shownKey, status: .exporting))
            defer { state.withLock { _ = $0.running.removeValue(forKey: id) } }
            let done = try session.run()
            row.status = "completed"
            row.route = done.route.rawValue
            row.fallbacks = done.fallbacks.count
            row.versionDelivered = done.version?.delivered.rawValue
            row.output = done.output
            row.bytesOut = done.bytes
            row.outputSHA256 = try done.sha256 ?? SHA256Hasher.file(done.output)
            dbRow.status = "completed"
            dbRow.route = done.fallbacks.isEmpty ? done.route.rawValue : "fallback:\(done.route.rawValue)"
            dbRow.fallbacks = done.fallbacks.count
            dbRow.versionDelivered = row.versionDelivered
            dbRow.outputPath = done.output
            dbRow.outputSize = done.bytes
            dbRow.outputSHA256 = row.outputSHA256
            row.account = ExportAccount(done)
            dbRow.account = row.account
            if options.thumbnails { row.thumbnail = poster(for: item, output: done.output) }
            emit(.job(id: id, key: shownKey, status: .completed))
        } catch {
            let e = (error as? ExportError) ?? .ffmpeg(stage: .write, path: item.input, code: -1, message: "\(error)")
            if case .cancelled = e { row.status = "cancelled"; dbRow.status = "cancelled" } else { row.status = "failed"; dbRow.status = "failed" }
            row.error = e.description
            dbRow.error = e.description
            emit(.job(id: id, key: FileName.display(item.key), status: row.status == "cancelled" ? .cancelled : .failed))
        }
        row.wallTime = Date().timeIntervalSince(began)
        dbRow.finishedAt = Date().timeIntervalSince1970
        dbRow.wallTime = row.wallTime
        try? database.upsert(dbRow)
        return row
    }
}

extension BatchRunner {
    /// A poster frame next to the output (`clip.mp4` → `clip.jpg`); nil for assets without video. A poster that
    /// cannot be made never fails the job.
    func poster(for item: BatchItem, output: String) -> String? {
        let path = PathName.deletingExtension(output) + ".jpg"
        let request = ThumbnailRequest(input: item.input, output: path, version: options.version, overwrite: true,
                                       sandbox: options.outputDirectory)
        return (try? Thumbnailer.make(request))?.output
    }
}

/// Content hashes shared by the jobs (a file hashed once per run), keyed by `path|size|mtime`. A job looks up and
/// stores its own files' hashes one by one: no job copies the whole cache.
final class HashCache: Sendable {
    private let values: LockedBox<[String: String]>
    init(_ values: [String: String]) { self.values = LockedBox(values) }
    func hash(_ key: String) -> String? { values.withLock { $0[key] } }
    /// Keeps a hash already there (the first job to hash a file wins).
    func store(_ key: String, _ sha: String) { values.withLock { if $0[key] == nil { $0[key] = sha } } }
}
