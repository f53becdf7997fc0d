import ArgumentParser
import Dispatch
import Foundation
import Logging
import MediaExport

extension BatchOptions.MediaFilter: ExpressibleByArgument {}
extension BatchOptions.SortOrder: ExpressibleByArgument {}
extension DuplicateOutput: ExpressibleByArgument {}
extension BatchOptions.FallbackContainer: ExpressibleByArgument {}
extension Container: ExpressibleByArgument {}

struct Batch: ToolCommand {
    static let cancelledMessage: String? = "cancelled; nothing exported"

    static let configuration = CommandConfiguration(
        abstract: "Export many files: scan, plan, export in parallel, resume, report.",
        discussion: """
        Folders are walked recursively (hidden files, our temporary files and the output folder are skipped); \
        a file is media when FFmpeg opens it, whatever its extension. Files that form one asset by Apple's naming \
        (original, IMG_E rendered edit, .AAE, .edit.json, Live Photo still) are exported once, and so is a file \
        reached twice (given twice, or through a symlink); files that merely share a base name are separate \
        assets. Every file left out is counted with its reason (a note, and the report's "ignored" list). \
        Symlinks to files are followed, symlinks to folders are skipped with a note. Outputs mirror each asset's \
        path under --out with the preset's extension or --container's (demo.mkv beside demo.mp4 becomes demo.mkv.mp4); \
        --name '{stem}_web.{ext}' names them by a template (two assets given one name: the second gets -2, said in its \
        row). A byte copy in another container (a .ts that only a copy delivers) goes to fallback/ beside its output, \
        said in its row (--fallback-container keep: beside the others; fail: the asset fails). A database in --out (.mediaexport.sqlite) makes a rerun export only what is new or changed. \
        Byte-identical inputs are exported once (the others get a copy of its output, see --duplicates; status "duplicate"). A file in \
        --out that the batch did not write is never replaced, --force or not (that asset fails), unless --overwrite; \
        an output changed since the batch wrote it is kept as it is (status "edited"). \
        The report (--report) is the state of --out: every asset exported, unchanged, duplicate or failed (in this run \
        or an earlier one); every asset failed now is named and makes the exit code 1, --dry-run too. \
        An asset delivered by a fallback or partial (a salvage) makes the exit code 3, in the run that delivered it \
        and in every rerun that leaves its output in place (named in the summary). --dry-run reads no data; with \
        --check-data it decodes a sample of each upload and plans a damaged one as a salvage (the reason says the damage). \
        One batch at a time per --out (a lock, .mediaexport.lock): another exits 73, or waits with --wait. \
        With --shard K/N the shards share one --out: each keeps its own database and lock \
        (.mediaexport.shard-K-of-N.sqlite, .lock); a plain run and shards, or shards of another N, in one --out exit 73.

        Examples:
          mediaexport batch uploads/ --out ready/ --preset 1280x720
          mediaexport batch uploads/ --out ready/ --preset 1280x720 --dry-run
          mediaexport batch uploads/ --out ready/ --dry-run --check-data
          mediaexport batch up/ --out web/ --container webm --name '{stem}_web.{ext}'
          mediaexport batch a.mov b.mov --out ready/ --jobs 1 --report report.csv
          mediaexport batch uploads/ --out ready/ --shard $JOB_COMPLETION_INDEX/4
          mediaexport batch uploads/ --out ready/ --preset 1280x720 --shard auto
        """
    )

    @Argument(help: "Files and folders.", completion: .file())
    var inputs: [String]

    @Option(help: "The output folder (created if missing).", completion: .directory)
    var out: String

    @Option(help: "Exports at once.")
    var jobs: Int = BatchOptions.defaultJobs

    @Option(help: "Write a report: FILE.json or FILE.csv.")
    var report: String?

    @Flag(name: .customLong("dry-run"), help: "Print the plan (transcode/remux/copy/skip, reason, estimated size); export nothing.")
    var dryRun = false

    @Flag(name: .customLong("check-data"), help: "With --dry-run: decode a sample of each upload (the first and last seconds and 3 points between, about 1 s each) and plan one whose sample shows damage as a damaged input (salvage); the summary says what the check cost.")
    var checkData = false

    @Option(help: "video, audio or all.")
    var media: BatchOptions.MediaFilter = .all

    @Option(name: .customLong("min-duration"), help: "Skip assets shorter than this (seconds).")
    var minDuration: Double?

    @Option(name: .customLong("max-duration"), help: "Skip assets longer than this (seconds).")
    var maxDuration: Double?

    @Option(help: "Only assets whose relative path or name matches this glob (repeatable).")
    var include: [String] = []

    @Option(help: "Leave out assets whose relative path or name matches this glob (repeatable).")
    var exclude: [String] = []

    @Option(help: "Order of the work: name, or created (the metadata's creation time, else the file's modification time).")
    var sort: BatchOptions.SortOrder = .name

    @Flag(name: .customLong("retry-failed"), help: "Retry assets that failed in an earlier run.")
    var retryFailed = false

    @Flag(help: "Redo every asset, changed or not (replacing only the outputs this batch wrote).")
    var force = false

    @Flag(name: [.customShort("y"), .long], help: "Replace a file at an output path even when this batch did not write it.")
    var overwrite = false

    @Option(help: "Take shard K of N (0-based K, e.g. $JOB_COMPLETION_INDEX/4): a stable share by a hash of each asset's path. auto: K from JOB_COMPLETION_INDEX, Slurm's SLURM_ARRAY_TASK_ID (less _MIN, over _STEP) or AWS_BATCH_JOB_ARRAY_INDEX, N from --shard-count or SLURM_ARRAY_TASK_COUNT.")
    var shard: String?

    @Option(name: .customLong("shard-count"), help: "With --shard auto: how many shards (the Indexed Job's completions, the array's size).")
    var shardCount: Int?

    @OptionGroup var exportOptions: ExportOptions

    @Option(name: .customLong("accept"), help: ArgumentHelp("Acknowledge a failed or rejected upload (its key or file; repeatable): this run and later ones report it as accepted and do not fail for it.", valueName: "FILE|KEY"))
    var accept: [String] = []

    @Option(help: "What a byte-identical upload gets: copy (a file of its own: a reflink clone where the file system has them, else a copy), link (a hard link to the first one's output), skip (nothing written; the report names the first).")
    var duplicates: DuplicateOutput = .copy

    @Flag(help: "Write a poster frame (NAME.jpg) next to each output and list it in the report.")
    var thumbnails = false

    @Flag(help: "JSON Lines on stdout: every job's events with its job id, then a batchFinished record.")
    var json = false

    @Flag(name: .shortAndLong, help: "No progress display.")
    var quiet = false

    @Flag(name: .long, help: "Log on stderr what the library logs for every job (fallbacks, failures, each warning) and FFmpeg's own warnings and errors.")
    var verbose = false

    @Flag(help: "When another batch is exporting into --out, wait for it to finish instead of exiting 73.")
    var wait = false

    @Option(help: "The outputs' container; default: the preset's extension.")
    var container: Container?

    @Option(help: ArgumentHelp("The outputs' names: {stem} {preset} {key} (the path under the input, no extension) {folder} {sha8} (of the main file's SHA-256) {ext}, ending in .{ext}; with /, {key} or {folder} the whole path under --out. Default: the main file's name.", valueName: "TEMPLATE"))
    var name: String?

    @Option(name: .customLong("fallback-container"), help: "Where a byte copy in another container than the outputs' goes (a .ts only a copy delivers): folder (fallback/ beside its output), keep (beside the others), fail (the asset fails).")
    var fallbackContainer: BatchOptions.FallbackContainer = .folder

    func validate() throws {
        try NumberRange.check("--jobs", jobs, 1...1024)
        try NumberRange.check("--min-duration", minDuration, 0...1e9)
        try NumberRange.check("--max-duration", maxDuration, 0...1e9)
        if let shard, shard != "auto", BatchOptions.Shard(shard) == nil {
            throw ValidationError("--shard must be K/N with 0 ≤ K < N ≤ \(BatchOptions.Shard.maxCount), e.g. 0/4, or auto")
        }
        try NumberRange.check("--shard-count", shardCount, 1...BatchOptions.Shard.maxCount)
        if shardCount != nil, shard != "auto" { throw ValidationError("--shard-count goes with --shard auto") }
        if checkData, !dryRun { throw ValidationError("--check-data goes with --dry-run") }
        do { _ = try name.map(BatchNameTemplate.init) } catch { throw ValidationError((error as? ExportError)?.description ?? "\(error)") }
        _ = try resolvedShard()
    }

    /// The shard of `--shard K/N`, or of `--shard auto` from the engine's variables (a usage error when they are missing).
    private func resolvedShard() throws -> BatchOptions.Shard? {
        guard shard == "auto" else { return shard.flatMap(BatchOptions.Shard.init) }
        do { return try BatchOptions.Shard.fromEnvironment(ProcessInfo.processInfo.environment, count: shardCount) }
        catch let error as BatchOptions.Shard.EnvironmentError { throw ValidationError(error.description) }
    }

    func perform() async throws {
        let logFile = try LogFile.opened(exportOptions.log)
        CLILogging.bootstrap(verbose: verbose, file: logFile)
        let logged = verbose || logFile != nil
        let runner = BatchRunner(options: try batchOptions(), logger: logged ? Logger(label: "mediaexport") : MediaExportLogging.silent)
        runner.reportPath = report
        // Notes are never silent: on stderr as they come, --json or not (they are also in batchFinished).
        runner.onNote = { text in printError("note: " + text) }
        for note in exportOptions.notes { printError("note: " + note) }
        let renderer = BatchRenderer(mode: ProgressRenderer.mode(quiet: quiet || json || dryRun))
        let json = self.json
        runner.onEvent = { event in
            if json { printLine(event.jsonLine()) }
            logFile?.write(event.jsonLine())
            renderer.handle(event)
        }
        let signals = SignalCancellation { runner.cancel() }
        defer { signals.stop() }
        let outcome: Result<BatchResult, any Error>
        do { outcome = .success(try await runner.run()) } catch { outcome = .failure(error) }
        // The batch is over (every output committed or removed): a late signal changes nothing now.
        // A cancellation (a signal while waiting for another batch's lock, or before any job) exits 128 + signal.
        signals.finish()
        let result = try outcome.get()
        // -q: nothing on success; what went wrong still.
        if !json && !(quiet && result.exitCode == 0) { render(result) }
        let status = signals.exitCode(for: result.exitCode)
        if status != 0 { throw ExitCode(status) }
    }

    /// The batch options these arguments make: the shared export options as every job's request.
    func batchOptions() throws -> BatchOptions {
        let template = try exportOptions.request(input: "", output: "", catalog: PresetCatalog.builtIn())
        var options = BatchOptions(inputs: inputs, outputDirectory: out, preset: template.preset, jobs: jobs, dryRun: dryRun)
        options.request = template
        (options.policy, options.media, options.minDuration, options.maxDuration) = (exportOptions.policy ?? .needed, media, minDuration, maxDuration)
        (options.include, options.exclude, options.sort, options.shard) = (include, exclude, sort, try resolvedShard())
        (options.retryFailed, options.force, options.thumbnails, options.wait, options.overwrite) = (retryFailed, force, thumbnails, wait, overwrite)
        (options.checkData, options.duplicates, options.accept) = (checkData, duplicates, accept)
        (options.container, options.name, options.fallbackContainer) = (container, try name.map(BatchNameTemplate.init), fallbackContainer)
        return options
    }

    /// The closing lines for people: the plan (`--dry-run`), each failure, fallback and warning, the summary.
    private func render(_ result: BatchResult) {
        let shown = result.rows.map(\.displayed)
        if dryRun { printLine(BatchRenderer.planTable(shown)) }
        for row in shown where row.status == "failed" && row.accepted == nil { printError("\(row.key): \(row.error ?? "failed")") }
        for row in shown where row.status == "rejected" && row.accepted == nil { printError("\(row.key): rejected: \(row.error ?? "not media")") }
        for row in shown { if let line = BatchRenderer.fallbackLine(row) { printError(line) } }
        // Everything this run's exports dropped or changed, per asset: never only in the report; warnings on stderr
        // (an earlier run's output left in place said its warnings when it was made; the report keeps them).
        for row in shown where [BatchRowStatus.exported, BatchRowStatus.duplicate].contains(row.status) {
            for warning in row.account?.warnings ?? [] { printError("WARNING: \(row.key): \(warning)") }
        }
        printLine(dryRun ? BatchRenderer.planSummary(shown) : BatchRenderer.summary(result.counts, wallTime: result.wallTime))
        if !dryRun, let line = BatchRenderer.qualityLine(shown) { printLine(line) }
    }
}

struct Report: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Work with batch reports.",
        discussion: """
        Examples:
          mediaexport report merge s0/report.json s1/report.json --out report.json
        """,
        subcommands: [Merge.self]
    )

    struct Merge: ToolCommand {
        static let configuration = CommandConfiguration(
            abstract: "Combine the reports of several shards into one.",
            discussion: """
            The JSON reports of a sharded run (--shard) are checked first: all of one scan and shard count, every \
            shard present once, no asset in two reports. Else nothing is written and the command exits 1 with one \
            line naming the missing shards (and how many assets they hold), the shards given twice, the reports of \
            other scans and the assets in two reports. Reports with no shard fields (unsharded, CSV) merge as given.

            Examples:
              mediaexport report merge shard-*/report.json --out report.json
              mediaexport report merge a.csv b.csv --out all.csv
            """
        )

        @Argument(help: "Reports (.json or .csv).", completion: .file())
        var reports: [String]

        @Option(help: "The merged report (.json or .csv).")
        var out: String

        func perform() throws {
            let merged: BatchReportDocument
            do { merged = try BatchReport.checkedMerge(try reports.map { ($0, try BatchReport.readDocument($0)) }) } catch let error as ReportMergeError {
                printError(error.description)
                throw ExitCode(ReportMergeError.exitCode)
            }
            try BatchReport.write(merged.rows, ignored: merged.ignored, to: out)
            printLine(BatchRenderer.summary(BatchCounts(merged.rows)))
            if let ignored = IgnoredFile.summary(merged.ignored) { printHuman(ignored) }
        }
    }
}
