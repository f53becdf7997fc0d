import Foundation
import Logging
import MediaExportCore
import MediaExportFFmpeg

/// Runs a batch: plans, then exports with a bounded number of jobs at once; one failure never stops the others.
/// Every finished job is recorded in the export database before the next starts, so an interrupted batch
/// resumes where it stopped. A run that writes holds the output folder's `BatchLock` throughout (a shard: its own,
/// beside the other shards', with its own database: `BatchStateFiles`); a dry run writes nothing (not even the
/// output folder or the database), so it takes no lock.
public final class BatchRunner: Sendable {
    /// What the batch does.
    public let options: BatchOptions

    /// What an observer of `states(updateInterval:)` sees: where the batch stands and how far its jobs are.
    public struct State: Sendable, Equatable {
        /// Where a batch stands: `waiting` for `run()`, `running` (planning, then exporting), `finished`.
        public enum Status: String, Codable, Sendable {
            case waiting, running, finished
        }
        /// Where the batch stands.
        public var status: Status = .waiting
        /// The exports the batch runs (the planned assets that need work); 0 until planned, and in a dry run.
        public var jobs = 0
        /// The jobs that have ended (completed, failed or cancelled).
        public var jobsEnded = 0
        /// Progress of the whole batch, 0…1: the ended jobs and the running ones' progress, over all jobs.
        public var progress: Double = 0
        /// How the batch ended, in the `finished` state; nil there when `run()` threw.
        public var outcome: BatchOutcome?
    }

    /// Everything that changes while a batch runs, behind one lock.
    private struct Mutable {
        var running: [Int: ExportSession] = [:]
        var cancelled = false
        var reportPath: String?
        var observed = State()
        /// The progress of the jobs ended and running, over all jobs.
        var progress: Double {
            guard observed.jobs > 0 else { return observed.status == .finished ? 1 : 0 }
            let current = running.values.reduce(0.0) { $0 + $1.progress }
            return min(1, (Double(observed.jobsEnded) + current) / Double(observed.jobs))
        }
    }
    /// The event handlers; calls are made while it is held, so handlers see one event at a time.
    private struct Handlers {
        var onEvent: (@Sendable (BatchEvent) -> Void)?
        var onNote: (@Sendable (String) -> Void)?
    }
    private let state = LockedBox(Mutable())
    private let handlers = LockedBox(Handlers())
    private let feed = StateFeed(State())

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

    /// Where every job's session logs (see `MediaExportLogging`; each job's input and output are its metadata).
    public let logger: Logger

    /// Creates a runner; its jobs log to `logger` (default: nothing).
    public init(options: BatchOptions, logger: Logger = MediaExportLogging.silent) { self.options = options; self.logger = logger }

    deinit { feed.end(with: nil) }

    /// A fresh sequence of the batch's state for one observer (each call its own; several may observe at once), like
    /// `ExportSession.states(updateInterval:)`: the state when called, every change of status, and progress at most
    /// every `updateInterval` seconds in between. It finishes after the `finished` state.
    public func states(updateInterval: Double) -> AsyncStream<State> {
        feed.observe(updateInterval: updateInterval)
    }

    /// Stops the batch: running jobs are cancelled (no partial files), waiting ones are not started.
    public func cancel() {
        let sessions: [ExportSession] = state.withLock { $0.cancelled = true; return Array($0.running.values) }
        for s in sessions { s.cancel() }
    }

    var isCancelled: Bool { state.withLock { $0.cancelled } }
    func emit(_ e: BatchEvent) { handlers.withLock { $0.onEvent?(e) } }
    func note(_ text: String) { handlers.withLock { $0.onNote?(text) } }

    /// Changes the observed state and shows it to the observers (all of them when the status changed). Under the
    /// state's lock, so observers see the batch's progress in order although jobs run on several threads.
    private func observe(_ change: (inout Mutable) -> Void = { _ in }) {
        state.withLock { state in
            let status = state.observed.status
            change(&state)
            state.observed.progress = max(state.observed.progress, state.progress)
            feed.publish(state.observed, force: state.observed.status != status)
        }
    }

    /// Plans and runs the batch: at most `options.jobs` exports at once, as a bounded task group whose parent
    /// alone collects the rows (each export's blocking FFmpeg work runs on its own thread), each export's codecs
    /// on `options.threads` threads or their share of the cores (`BatchOptions.threadsPerJob`). Cancelling the
    /// calling task cancels the batch like `cancel()`. A runner runs once: a second call throws `ExportError.usage`.
    public func run() async throws -> BatchResult {
        let first = state.withLock { state -> Bool in
            guard state.observed.status == .waiting else { return false }
            state.observed.status = .running
            return true
        }
        guard first else { throw ExportError.usage(reason: "this batch runner has already run; make a new BatchRunner for another batch") }
        observe()
        // Like ExportSession: the handler is dropped when the batch ends, so one that captures the runner leaks nothing.
        defer { handlers.withLock { $0 = Handlers() } }
        do {
            let result = try await withTaskCancellationHandler { try await runBatch() } onCancel: { cancel() }
            end(result.outcome)
            return result
        } catch {
            end(nil)
            throw error
        }
    }

    /// The `finished` state, the last of every observer's sequence.
    private func end(_ outcome: BatchOutcome?) {
        let final = state.withLock { state in
            state.observed.status = .finished
            state.observed.outcome = outcome
            state.observed.progress = max(state.observed.progress, state.progress)
            return state.observed
        }
        feed.end(with: final)
    }

    private func runBatch() async throws -> BatchResult {
        let began = Date()
        try options.shard?.check()
        // A batch that ends before any work (a missing input, no media) leaves no folder or state file it made.
        var unused = !options.dryRun && FileSystem.lstat(options.outputDirectory) == nil
        defer { if unused { BatchStateFiles.removeUnused(options.outputDirectory, shard: options.shard) } }
        let outRoot = try BatchPlanner.outputRoot(options.outputDirectory, create: !options.dryRun)
        try BatchStateFiles.checkLayout(outRoot, shard: options.shard)  // before the lock: a refused run leaves no file
        if let reportPath, !options.dryRun { _ = try BatchReport.replaceable(reportPath, overwrite: options.overwrite) }  // before any work
        let (folderLock, waitNotes) = try lockFolder(outRoot)
        defer { folderLock?.release() }
        // Under the lock: what killed runs left in the output root goes (a shard's sweep: see `maySweep`).
        // (Subfolders are swept by each export into them.)
        if folderLock != nil, BatchStateFiles.maySweep(outRoot, shard: options.shard) { TemporaryFiles.sweep(directory: outRoot) }
        let database = try BatchStateFiles.openDatabase(in: outRoot, options: options)
        // Closed before the lock is released (defers run last first): the next batch finds it checkpointed.
        defer { database?.close() }
        let previous = try database?.rows() ?? [:]
        var hashes: [String: String] = [:]
        for row in previous.values {
            for s in row.sources { hashes["\(s.path)|\(s.size)|\(s.modified)"] = s.sha256 }
        }
        var plan = try BatchPlanner.makePlan(options, database: previous, settings: try database?.settings() ?? [:], hashes: &hashes)
        EstimateStore.share(&plan.items, options: options)
        if !options.dryRun { try database?.recordSettings(options.settingsHash, json: BatchPlanner.settingsJSON(options)) }
        unused = unused && !plan.items.contains { $0.route != nil } && options.accept.isEmpty
        var notes = waitNotes + announce(plan)
        let accepted = try acceptances(plan.items, database: database, notes: &notes)
        // A skipped asset's row is what the database records of it: its output, or its earlier failure.
        var rows = plan.items.map { item in
            BatchReportRow(item: item, versionRequested: options.version.rawValue,
                           status: BatchReportRow.initialStatus(of: item, record: previous[item.key], dryRun: options.dryRun),
                           record: item.route == nil ? previous[item.key] : nil)
        }
        if !options.dryRun, let database {
            let cache = HashCache(hashes)
            var duplicates = BatchDuplicates.find(plan.items, previous: previous, options: options, hashes: cache)
            var work = plan.items.indices.filter { plan.items[$0].route != nil && duplicates[$0] == nil }, firstID = 1
            // An original refused by its own output path hands its group to another member, exported in its place.
            while !work.isEmpty {
                let refused: Set<Int>
                (rows, refused) = await runJobs(plan.items, work: work, firstID: firstID, rows: rows, database: database, previous: previous, hashes: cache)
                firstID += work.count
                work = isCancelled ? [] : BatchDuplicates.promote(&duplicates, refused: refused, items: plan.items)
            }
            deliverDuplicates(duplicates, items: plan.items, rows: &rows, database: database, previous: previous, hashes: cache, firstID: firstID)
            rows = rows.map { row in
                var r = row
                if r.status == BatchRowStatus.waiting { r.status = BatchRowStatus.cancelled; r.error = "batch interrupted before this asset started" }
                return r
            }
        } else {
            rows = dryRunOutcomes(plan.items, rows: rows, previous: previous, hashes: HashCache(hashes))
        }
        rows = Self.marking(rows, accepted: accepted).map { $0.stamped(shard: options.shard, metadata: options.preset.metadataLevel) }
        return try finish(plan: plan, rows: rows, notes: notes, database: database, began: began)
    }

    /// The output folder's lock, taken before the database is read: a second batch on this folder waits or stops
    /// here, before any work. None for a dry run. The notes are the waits for another batch's lock.
    private func lockFolder(_ outRoot: String) throws -> (BatchLock?, [String]) {
        let waitNotes = LockedBox<[String]>([])
        let folderLock = options.dryRun ? nil : try BatchLock.acquire(
            directory: outRoot, fileName: BatchStateFiles.name(options.shard, ".lock"), wait: options.wait, isCancelled: { self.isCancelled },
            onWait: { holder in
                let text = BatchError.locked(directory: outRoot, holder: holder).description
                    .replacingOccurrences(of: "; use --wait to wait for it", with: "; waiting for it")
                waitNotes.withLock { $0.append(text) }
                self.note(text)
            })
        return (folderLock, waitNotes.withLock { $0 })
    }

    /// The plan's notes (and "no media found", or none selected) as notes, and every item as a `planned` event.
    private func announce(_ plan: BatchPlan) -> [String] {
        var planNotes = plan.notes
        if plan.assetsFound == 0 {
            planNotes.append("no media found in " + options.inputs.map(FileName.displayPath).joined(separator: ", "))
        } else if plan.items.isEmpty {
            planNotes.append("\(plan.assetsFound) asset\(plan.assetsFound == 1 ? "" : "s") found, none selected"
                             + (options.shard.map { " for shard \($0)" } ?? "") + " by the filters")
        }
        for text in planNotes { note(text) }
        for item in plan.items { emit(.planned(item)) }
        return planNotes
    }

    /// Runs the items `work` (indices), at most `options.jobs` at once, with job ids from `firstID`; the rows of jobs
    /// never started stay `waiting`. The rows, and the items whose own output path refused their output.
    private func runJobs(_ items: [BatchItem], work: [Int], firstID: Int, rows: [BatchReportRow], database: ExportDatabase,
                         previous: [String: ExportDatabase.Row], hashes: HashCache) async -> ([BatchReportRow], refused: Set<Int>) {
        for (position, index) in work.enumerated() { emit(.job(id: firstID + position, key: FileName.display(items[index].key), status: .waiting)) }
        observe { $0.observed.jobs += work.count }
        let jobs = work.enumerated().map { (id: firstID + $0.offset, index: $0.element) }
        // The cores shared out among the exports that run at once (fewer than --jobs when fewer assets need work);
        // a fixed count when the bytes must not depend on the cores.
        let threads = options.threads ?? (options.deterministic ? ExportRequest.deterministicThreads
            : BatchOptions.threadsPerJob(cores: BatchOptions.availableCores, jobs: min(options.jobs, jobs.count)))
        return await withTaskGroup(of: (Int, Job).self) { group in
            var (collected, refused) = (rows, Set<Int>())
            var next = 0
            func start(_ group: inout TaskGroup<(Int, Job)>) {
                guard next < jobs.count, !isCancelled else { return }
                let job = jobs[next]
                next += 1
                let item = items[job.index], earlier = previous[item.key]
                group.addTask { (job.index, await self.runJobOnThread(id: job.id, item: item, database: database, previous: earlier, hashes: hashes, threads: threads)) }
            }
            for _ in 0..<min(options.jobs, jobs.count) { start(&group) }
            while let (index, job) = await group.next() {
                collected[index] = job.row
                if job.outputRefused { refused.insert(index) }
                start(&group)
            }
            return (collected, refused)
        }
    }

    /// A job's end: its row, and whether its own output path refused the output (a file there that is not the batch's).
    private struct Job: Sendable {
        var row: BatchReportRow
        var outputRefused = false
    }

    /// The batch's end: the report, the counts and outcome, the `finished` event.
    private func finish(plan: BatchPlan, rows: [BatchReportRow], notes: [String], database: ExportDatabase?, began: Date) throws -> BatchResult {
        if let reportPath { try BatchReport.write(rows, ignored: plan.ignored, shard: plan.shardScan, to: reportPath, overwrite: options.overwrite) }
        let counts = BatchCounts(rows)
        let wasCancelled = isCancelled
        // Every asset failed now counts, whichever run failed it; a dry run ends as the run would (as far as known).
        let outcome: BatchOutcome = wasCancelled ? .cancelled
            : plan.assetsFound == 0 ? .noMedia
            : (counts.failed > 0 || counts.cancelled > 0 || (options.errors.strict && counts.rejected > 0)) ? .failed
            : counts.fellBack > 0 ? .completedWithFallback : .completed
        let wallTime = Date().timeIntervalSince(began)
        emit(.finished(.init(counts: counts, outcome: outcome, dryRun: options.dryRun, database: database.map { FileName.display($0.path) },
                             report: reportPath.map(FileName.display), wallTime: wallTime, notes: notes,
                             ignored: plan.ignored.map(\.displayed))))
        return BatchResult(rows: rows, counts: counts, outcome: outcome, notes: notes, ignored: plan.ignored, wallTime: wallTime)
    }

    /// Runs one job on a thread of its own (FFmpeg calls block), off the cooperative pool.
    private func runJobOnThread(id: Int, item: BatchItem, database: ExportDatabase, previous: ExportDatabase.Row?, hashes: HashCache,
                                threads: Int) async -> Job {
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

    /// One job: its sources recorded as running in the database, the export, the outcome in its row and the database.
    private func runJob(id: Int, item: BatchItem, database: ExportDatabase, previous: ExportDatabase.Row?, hashes: HashCache,
                        threads: Int) -> Job {
        let began = Date()
        var refused = false
        var poster: Poster?
        var dbRow = databaseRow(for: item, began: began)
        // What this batch wrote there stays recorded until replaced, so a failed redo does not forget that it is ours.
        if let previous, previous.outputPath == item.output {
            (dbRow.outputSize, dbRow.outputSHA256, dbRow.thumbnailSHA256) = (previous.outputSize, previous.outputSHA256, previous.thumbnailSHA256)
        }
        do {
            dbRow.sources = try BatchPlanner.sources(of: item, cached: hashes.hash(_:), store: hashes.store(_:_:))
            dbRow.sourceFingerprint = BatchPlanner.fingerprint(of: dbRow.sources)
            try database.upsert(dbRow)
            try BatchPlanner.makeDirectories(PathName.directory(item.output))
            // Our own earlier output may be replaced; any other file at that path is left alone (unless --overwrite).
            let owned = try BatchOutputs.replaceable(item.output, previous: previous, overwrite: options.overwrite)
            let done = try export(item, id: id, request: request(for: item, replaceable: owned, threads: threads))
            try record(done, in: &dbRow)
            if options.thumbnails { poster = self.poster(for: item, output: done.output, previous: previous, record: &dbRow) }
            emit(.job(id: id, key: FileName.display(item.key), status: .completed))
        } catch {
            let e = (error as? ExportError) ?? .ffmpeg(stage: .write, path: item.input, code: -1, message: "\(error)")
            if case .cancelled = e { dbRow.status = "cancelled" } else { dbRow.status = "failed" }
            refused = [.outputNotOwned, .outputExists, .outputUnwritable].contains(e.kind)
            dbRow.error = (error as? BatchError)?.description ?? e.description
            emit(.job(id: id, key: FileName.display(item.key), status: dbRow.status == "cancelled" ? .cancelled : .failed))
        }
        observe { $0.running.removeValue(forKey: id); $0.observed.jobsEnded += 1 }
        dbRow.wallTime = Date().timeIntervalSince(began)
        dbRow.finishedAt = Date().timeIntervalSince1970
        try? database.upsert(dbRow)
        let status = dbRow.status == "completed" ? BatchRowStatus.exported : dbRow.status
        var row = BatchReportRow(item: item, versionRequested: options.version.rawValue, status: status, record: dbRow)
        poster?.warning.map { row.account?.warnings.append($0) }
        return Job(row: row, outputRefused: refused)
    }

    /// A job's export request: the batch's `request` with the item's input and output, the output folder as its
    /// sandbox, the files it may replace and the job's threads (its session decides the first route as the plan did).
    func request(for item: BatchItem, replaceable: [OwnedFile], threads: Int) -> ExportRequest {
        var request = options.request(input: item.input, output: item.output)
        (request.overwrite, request.replaceable) = (options.overwrite, replaceable)
        (request.sandbox, request.threads) = (options.outputDirectory, threads)
        request.copyPlacement = options.fallbackContainer.placement
        // The dry run's measured figure, kept for this asset and these settings: the job's record says the same.
        if item.estimateMethod == OutputSize.EstimateMethod.samples.rawValue { request.measuredEstimate = item.estimatedBytes }
        return request
    }

    /// Runs a job's session, known to `cancel()` while it runs (none starts once the batch is cancelled), its events
    /// tagged with the job.
    private func export(_ item: BatchItem, id: Int, request: ExportRequest) throws -> ExportEvent.Completed {
        let session = ExportSession(request: request, logger: logger)
        let shownKey = FileName.display(item.key)
        session.onEvent = { event in  // no cycle: the session is dropped after the job
            self.emit(.export(id: id, key: shownKey, event: event))
            if case .progress = event { self.observe() }
        }
        let proceed = state.withLock { state -> Bool in
            if state.cancelled { return false }
            state.running[id] = session
            return true
        }
        guard proceed else { throw ExportError.cancelled }
        emit(.job(id: id, key: shownKey, status: .exporting))
        return try session.run()
    }

    /// A delivered export in the job's database row (the report row is made from it).
    private func record(_ done: ExportEvent.Completed, in dbRow: inout ExportDatabase.Row) throws {
        dbRow.status = "completed"
        dbRow.route = done.route.rawValue
        dbRow.fallbacks = done.fallbacks.count
        dbRow.versionDelivered = done.version?.delivered.rawValue
        dbRow.outputPath = done.output
        dbRow.outputSize = done.bytes
        dbRow.outputSHA256 = try done.sha256 ?? SHA256Hasher.file(done.output)
        dbRow.account = ExportAccount(done)
        dbRow.error = nil
    }

    /// An item's database row as its job starts (`running`).
    func databaseRow(for item: BatchItem, began: Date) -> ExportDatabase.Row {
        ExportDatabase.Row(assetKey: item.key, sources: [], sourceFingerprint: "", presetName: options.preset.name,
                           presetHash: options.settingsHash,
                           versionRequested: options.version.rawValue, versionDelivered: nil, action: item.action, route: nil,
                           fallbacks: 0, outputPath: item.output, outputSize: nil, outputSHA256: nil, status: "running", error: nil,
                           startedAt: began.timeIntervalSince1970, finishedAt: nil, wallTime: nil,
                           ffmpegVersions: FFmpegVersions.lines.joined(separator: ", "))
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
