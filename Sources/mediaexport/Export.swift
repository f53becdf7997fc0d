import ArgumentParser
import Dispatch
import Foundation
import Logging
import MediaExport

struct Export: ToolCommand {
    static let cancelledMessage: String? = "cancelled; no output written"

    static let configuration = CommandConfiguration(
        abstract: "Export a file with a preset (the default subcommand).",
        discussion: """
        The output's extension picks the container: .mp4, .mov, .m4v, .m4a, .mkv or .webm (AV1 + Opus; none: the preset's). \
        The output is written to a hidden temporary file beside it and renamed when complete; an existing \
        output is kept unless --overwrite; Ctrl-C (SIGINT), SIGTERM, SIGHUP or a closed stdout cancels and \
        leaves nothing behind (exit 130, 143, 129, 141).

        Examples:
          mediaexport --preset highest in.mov out.mp4
          mediaexport export --preset AVAssetExportPreset1280x720 in.mov out.mp4
          mediaexport --preset passthrough --start 2 --end 8 in.mov cut.mov
          mediaexport --preset 1280x720 --start 2 --duration 6 in.mov cut.mp4
          mediaexport --preset 1280x720 --crf 28 --audio-bitrate 96k in.mov out.mp4
          mediaexport --preset ./mine.json --json in.mov out.mp4 > events.jsonl
          mediaexport --original IMG_1234.MOV original.mp4
          mediaexport --edits trim.edit.json IMG_1234.MOV edited.mp4
        """
    )

    @Argument(help: "The input media file.", completion: .file())
    var input: String

    @Argument(help: "The output file.", completion: .file())
    var output: String

    @Option(parsing: .unconditional, help: "Start of the exported range: seconds (2.5) or [HH:]MM:SS[.mmm] (1:02.5).")
    var start: TimeArgument?

    @Option(parsing: .unconditional, help: "End of the exported range: seconds or [HH:]MM:SS[.mmm].")
    var end: TimeArgument?

    @Option(parsing: .unconditional, help: ArgumentHelp("Length of the exported range from --start (or the beginning): seconds or [HH:]MM:SS[.mmm]; not with --end.", valueName: "S"))
    var duration: TimeArgument?

    @Flag(name: [.customShort("y"), .long], help: "Replace an existing output file.")
    var overwrite = false

    @Flag(name: [.customShort("n"), .customLong("no-overwrite")], help: "Never replace an existing output file (the default; as ffmpeg's -n).")
    var noOverwrite = false

    @Option(help: "The output must resolve inside this folder (default: the output's own folder).", completion: .directory)
    var sandbox: String?

    @Option(help: "A JSON edit sidecar to apply to the original (instead of one found beside the input).", completion: .file(extensions: ["json"]))
    var edits: String?

    @OptionGroup var exportOptions: ExportOptions

    @Flag(help: "Print JSON Lines events on stdout (schema: docs/json-events.md).")
    var json = false

    @Flag(name: .shortAndLong, help: "Print nothing on success (no progress, plan, summary or notes); warnings and errors still go to stderr.")
    var quiet = false

    @Flag(name: .long, help: "Log on stderr what the library logs (fallbacks, failures, each warning) and FFmpeg's own warnings and errors.")
    var verbose = false

    func validate() throws {
        if let s = start?.seconds, s < 0 { throw ValidationError("--start must be 0 or more, got \(s.formatted())") }
        if let e = end?.seconds, e < 0 { throw ValidationError("--end must be 0 or more, got \(e.formatted())") }
        if let s = start?.seconds, let e = end?.seconds, e <= s { throw ValidationError("--end must be after --start") }
        if duration != nil && end != nil { throw ValidationError("--duration and --end contradict each other: give one") }
        if let d = duration?.seconds, d <= 0 { throw ValidationError("--duration must be more than 0, got \(d.formatted())") }
        if overwrite && noOverwrite { throw ValidationError("--overwrite and --no-overwrite contradict each other") }
    }

    func perform() throws {
        let logFile = try LogFile.opened(exportOptions.log)
        CLILogging.bootstrap(verbose: verbose, file: logFile)
        let emit: @Sendable (ExportEvent) -> Void = { event in
            if json { printLine(event.jsonLine()) }
            logFile?.write(event.jsonLine())
        }
        let request: ExportRequest
        do {
            let catalog = try PresetCatalog.builtIn()
            if !json && !quiet { for note in catalog.notes + exportOptions.notes { printError("note: " + note) } }
            request = try self.request(catalog: catalog)
        } catch let error as ExportError {
            emit(.failed(.init(error)))  // no session started: `--json`'s final record is ours
            throw error
        }
        let session = ExportSession(request: request, logger: Logger(label: "mediaexport"))
        let renderer = ProgressRenderer(mode: ProgressRenderer.mode(quiet: quiet || json))
        let planNotes = LockedBox<Set<String>>([])  // said with the plan: not again at the end
        let planLines = LockedBox<Set<String>>([])  // a fallback's plan says only the lines not said yet
        session.onEvent = { event in
            emit(event)
            if case .started(let s) = event { planNotes.withLock { $0.formUnion(s.notes) } }
            renderer.handle(event)
            render(event, said: planLines)
        }
        session.onStuck = { [request] in Export.abandon(stalled: request, emit: emit) }
        let signals = SignalCancellation { session.cancel() }
        defer { signals.stop() }
        let outcome = Result { try session.run() }
        // The work is over (the output committed, or nothing left behind): a late signal changes nothing now.
        signals.finish()
        let completed = try outcome.get()
        if !json { renderCompleted(completed, said: planNotes.withLock { $0 }) }
        if !completed.fallbacks.isEmpty || completed.partial != nil { throw ExitCode(ExitStatus.completedWithFallback) }
    }

    /// The stall watchdog stopped the export and its thread is stuck in a library call: the failure said (the `--json`
    /// record from another thread, given a moment: stdout may be what blocks), the temporary files removed, exit 1.
    private static func abandon(stalled request: ExportRequest, emit: @escaping @Sendable (ExportEvent) -> Void) -> Never {
        let error = ExportError.stalled(path: request.input, seconds: request.errors.stallTimeout)
        DispatchQueue.global().async { emit(.failed(.init(error))) }
        printError(error.description + "; the export is stuck in a call that does not return: abandoned, its temporary files removed")
        usleep(200_000)
        ToolProcess.removeTemporaryFiles()
        _exit(error.exitCode)
    }

    /// The request these options make: the shared ones', with this file's range, overwrite, sandbox and edits.
    func request(catalog: PresetCatalog) throws -> ExportRequest {
        var request = try exportOptions.request(input: input, output: output, catalog: catalog)
        // --duration is the end counted from --start.
        let endSeconds = end?.seconds ?? duration.map { (start?.seconds ?? 0) + $0.seconds }
        request.timeRange = (start != nil || endSeconds != nil) ? TimeRange(start: start?.seconds, end: endSeconds) : nil
        (request.overwrite, request.sandbox, request.editsPath) = (overwrite, sandbox, edits)
        return request
    }

    /// The end of a human run: the result on stdout (none with `-q`), each warning on stderr (also with `-q`), the
    /// notes on stderr (none with `-q`: a quiet successful export prints nothing).
    private func renderCompleted(_ completed: ExportEvent.Completed, said: Set<String>) {
        let versionWarns = completed.version?.warns ?? false
        // The version line: in the plan when it says something, here only as the warning that another was delivered.
        if !quiet { printLine(HumanSummary.completed(completed)) }
        if !quiet, let loudness = completed.loudness { printError("loudness: " + loudness.summary) }
        for warning in HumanSummary.warnings(completed) { printError(warning) }
        if versionWarns, let v = completed.version { writeAll(2, "mediaexport: " + HumanSummary.version(v) + "\n") }
        if !quiet { for note in completed.notes where !said.contains(note) { printError("note: \(note)") } }
    }

    /// The lines for people an event brings on stderr: the plan when the export starts, each fallback. A route a
    /// fallback takes says of its plan only what the first did not (each line once: a salvage's plan is the same).
    private func render(_ event: ExportEvent, said: LockedBox<Set<String>>) {
        if !json && !quiet, case .started(let s) = event {
            let head = "\(FileName.displayPath(s.input)) → \(FileName.displayPath(s.output)) [\(s.preset)]"
            let new = said.withLock { said in ([head] + HumanSummary.plan(s)).filter { said.insert($0).inserted } }
            if !new.isEmpty { writeAll(2, TerminalText.lines(new) + "\n") }
        }
        if !json, case .fallback(let f) = event { printError(HumanSummary.fallback(f)) }
    }
}

/// Turns SIGINT, SIGTERM and SIGHUP (a closed terminal or ssh session) into a cancellation, and so does a
/// closed stdout or stderr (EPIPE, reported by `writeAll`; SIGPIPE itself is ignored). A second signal, or work
/// still running `grace` seconds after the first (a library call that never returns), removes the temporary
/// files in flight and exits at once, abandoning the work's threads. The exit status is 128 + the signal: 130
/// for SIGINT, 143 for SIGTERM, 129 for SIGHUP, 141 for a closed pipe. Once the work is over (`finish()`, also
/// done by `stop()`), signals are ignored to the end of the process: a signal arriving as an export commits
/// never turns a delivered output into an exit status of 130.
final class SignalCancellation: @unchecked Sendable {
    /// The signals that cancel.
    static let signals: [Int32] = [SIGINT, SIGTERM, SIGHUP]
    /// Seconds the cancelled work has to end before the process ends without it.
    static let grace = 2.5

    private let queue = DispatchQueue(label: "mediaexport.signals")
    private var sources: [DispatchSourceRead] = []
    private let lock = NSLock()
    private var _received: Int32 = 0
    private var _finished = false
    private let cancel: (@Sendable () -> Void)?
    /// The first signal received (SIGPIPE for a closed output), or 0.
    var received: Int32 { lock.withLock { _received } }
    /// The exit status for the signal received: 128 + its number (nil when none was).
    var exitStatus: Int32? { let r = received; return r == 0 ? nil : 128 + r }

    /// The exit status for work that ended with `status`: a cancellation (130, whatever stopped it) caused by a
    /// signal is reported as that signal (143 for SIGTERM…); any other status stands.
    func exitCode(for status: Int32) -> Int32 {
        status == ExitStatus.cancelledByInterrupt ? (exitStatus ?? status) : status
    }

    /// `cancel` is called once, on the first signal; nil makes the first signal end the process at once
    /// (after removing temporary files), for commands that cannot stop half-way.
    init(cancel: (@Sendable () -> Void)? = nil) {
        self.cancel = cancel
        // A handler that writes to a pipe, read here: a dispatch signal source (SIG_IGN + signalfd on Linux) lost a
        // SIGINT delivered to a thread that did not block it.
        let fd = ToolProcess.installSignalPipe(SignalCancellation.signals)
        if fd >= 0 {
            let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
            source.setEventHandler { [weak self] in
                var bytes = [UInt8](repeating: 0, count: 16)
                while true {
                    let n = read(fd, &bytes, bytes.count)
                    guard n > 0 else { break }
                    for b in bytes[0..<n] { self?.deliver(Int32(b), escalate: true) }
                }
            }
            source.resume()
            sources.append(source)
        } else {
            for sig in SignalCancellation.signals { signal(sig, SIG_IGN) }
        }
        SignalCancellation.lock.withLock { SignalCancellation.active = self }
    }

    /// `exitCode(for:)` for whichever cancellation of the process received a signal (the error funnel's view,
    /// `ToolCommand.reportFailure`).
    static func exitCode(for status: Int32) -> Int32 {
        let first = lock.withLock { firstSignal }
        return status == ExitStatus.cancelledByInterrupt && first != 0 ? 128 + first : status
    }

    /// The first delivery cancels; a later real signal (not a second closed pipe) exits at once. After
    /// `finish()` nothing happens: the outcome is the work's own.
    private func deliver(_ sig: Int32, escalate: Bool) {
        enum Delivery { case ignored, first, again }
        let delivery = lock.withLock { () -> Delivery in
            if _finished { return .ignored }
            guard _received == 0 else { return .again }
            _received = sig
            SignalCancellation.lock.withLock { if SignalCancellation.firstSignal == 0 { SignalCancellation.firstSignal = sig } }
            return .first
        }
        if delivery == .ignored { return }
        if delivery == .first, let cancel {
            cancel()
            queue.asyncAfter(deadline: .now() + SignalCancellation.grace) { [weak self] in self?.abandon(sig) }
        } else if delivery == .first || escalate {
            ToolProcess.removeTemporaryFiles()
            _exit(128 + sig)
        }
    }

    /// The grace after the first signal is over and the work has not ended (a library call that does not return):
    /// its temporary files are removed and the process exits as the signal, leaving the work's threads where they are.
    private func abandon(_ sig: Int32) {
        guard !lock.withLock({ _finished }) else { return }
        printError("the work did not stop within \(SignalCancellation.grace.formatted()) s of the signal: abandoned, its temporary files removed")
        ToolProcess.removeTemporaryFiles()
        _exit(128 + sig)
    }

    /// stdout or stderr lost its reader: cancel the work in progress as if by SIGPIPE, or, when nothing can be
    /// cancelled, end the process as SIGPIPE would have (status 141). Once the work is over, nothing more is
    /// written to that stream and the work's own status stands.
    static func outputClosed() {
        if let current = lock.withLock({ active }) {
            current.deliver(SIGPIPE, escalate: false)
        } else {
            ToolProcess.removeTemporaryFiles()
            _exit(128 + SIGPIPE)
        }
    }

    /// The work is over, committed or not: from now on SIGINT, SIGTERM and SIGHUP are ignored (never reset to
    /// their default action, which would kill the process with 128 + signal after a finished export), and a
    /// signal already queued is dropped. What was received before stays in `received`.
    func finish() {
        lock.withLock { _finished = true }
        for sig in SignalCancellation.signals { signal(sig, SIG_IGN) }
    }

    /// `finish()`, and the signal sources are released. The signals stay ignored until the process exits.
    func stop() {
        finish()
        for s in sources { s.cancel() }
        sources.removeAll()
        SignalCancellation.lock.withLock { if SignalCancellation.active === self { SignalCancellation.active = nil } }
    }

    private static let lock = NSLock()
    nonisolated(unsafe) private static weak var active: SignalCancellation?
    nonisolated(unsafe) private static var firstSignal: Int32 = 0
}
