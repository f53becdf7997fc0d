import ArgumentParser
import Foundation
import MediaExport

struct Regress: ToolCommand {
    static let configuration = CommandConfiguration(
        abstract: "Export sample videos and fail when the results drift from a committed baseline.",
        discussion: """
        Each sample (file or folder) is exported with each preset into a temporary sandbox, then measured: \
        container, codecs, profile, size, pixel format, colour (HDR kind, transfer, primaries, matrix, range, bit \
        depth, field order, HDR10 metadata), frames, duration, audio, rotation, creation time, A/V start offset, \
        timestamp order, file size, the route taken, luma PSNR/SSIM against the source (transcodes) or \
        packet checksums against the source (stream copies). Tolerances: duration ± 1 frame, size ± 10 %, PSNR \
        −0.5 dB, SSIM −0.005, everything else exact; overridable here and per sample in the baseline.

        A sample's key is its path relative to the baseline file's folder, however it was given. Baseline entries \
        the run does not check fail it (exit 4) unless --subset. Each entry records the SHA-256 of its sample and of its \
        preset, and the baseline the environment (FFmpeg, x264/x265/zimg, CPU features, cores), so a failing case \
        names its first cause: sample changed (a failure even within tolerance, unless the entry has \
        "followsSample": true), preset changed (the settings that change the output first), libraries changed, CPU \
        differs (not for a --deterministic baseline), then the properties that moved, quality before size. The \
        table, JUnit, the HTML page and the final JSON record all start with it. --keep-failed DIR keeps failing \
        outputs, never over an existing file (JUnit attaches them). See docs/regress.md.

        --junit writes JUnit XML as CI systems read it: classname regress.PRESET, name the sample, the cause's kind \
        as the failure's type, the environment in <properties>, entries not checked as <skipped>. --html writes one \
        self-contained page (no network, nothing beside it): the environment and the failures with their causes \
        at the top, each failure in full (for transcoded video the source and the output at the worst frame with \
        per-frame PSNR and SSIM plots), the passing cases collapsed.

        Examples:
          mediaexport regress clips/ -p low --baseline base.json --update-baseline
          mediaexport regress clips/ -p low -p passthrough --baseline base.json
          mediaexport regress clips/ -p low --baseline base.json --junit junit.xml
          mediaexport regress clips/a.mov -p low --baseline base.json --subset
          mediaexport regress clips/ -p low --baseline base.json --keep-failed kept/
          mediaexport regress clips/ -p low --baseline base.json --html report.html
        """
    )

    @Argument(help: "Sample files and folders.", completion: .file())
    var samples: [String]

    @Option(name: .shortAndLong, help: "Preset (repeatable).", completion: PresetCompletion.kind)
    var preset: [String] = []

    @Option(help: "The baseline JSON file.")
    var baseline: String

    @Flag(name: .customLong("update-baseline"), help: "Write or refresh the baseline instead of failing, and say what changed.")
    var updateBaseline = false

    @Option(help: "Write JUnit XML here.")
    var junit: String?

    @Option(help: "Write a self-contained HTML report here (worst frames, per-frame PSNR/SSIM).", completion: .file())
    var html: String?

    @OptionGroup var version: AssetVersionOption

    @Option(name: .customLong("duration-frames"), help: "Override: duration tolerance in frames.")
    var durationFrames: Double?

    @Option(name: .customLong("size-ratio"), help: "Override: size tolerance as a fraction.")
    var sizeRatio: Double?

    @Option(name: .customLong("psnr-drop"), help: "Override: allowed PSNR drop in dB.")
    var psnrDrop: Double?

    @Option(name: .customLong("ssim-drop"), help: "Override: allowed SSIM drop.")
    var ssimDrop: Double?

    @Option(help: ArgumentHelp("Encode each case to a measured quality (ssim:0.97, psnr:42) instead of its preset's CRF: such a case is judged by the quality it reaches, not by its size.", valueName: "METRIC:TARGET"))
    var quality: String?

    @Flag(help: "Print one JSON record per case and a final summary record.")
    var json = false

    @Flag(help: "Check only some of the baseline's entries: the ones this run does not check are a note, not a failure.")
    var subset = false

    @Option(name: .customLong("keep-failed"), help: ArgumentHelp("Keep the output of every failing case in this folder.", valueName: "dir"),
            completion: .directory)
    var keepFailed: String?

    @Flag(help: "Export deterministically (the same bytes on any x86-64 CPU and core count), and record and compare every output's SHA-256.")
    var deterministic = false

    func validate() throws {
        try NumberRange.check("--duration-frames", durationFrames, 0...1_000_000)
        try NumberRange.check("--size-ratio", sizeRatio, 0...1_000)
        try NumberRange.check("--psnr-drop", psnrDrop, 0...1_000)
        try NumberRange.check("--ssim-drop", ssimDrop, 0...1)
        if let text = quality {
            do { _ = try QualityTarget(parsing: text) } catch { throw ValidationError("--quality: \(error.reason)") }
        }
    }

    func perform() throws {
        ToolProcess.quietFFmpegLog()
        let signals = SignalCancellation()  // no cooperative cancel here: a signal ends the run, removing temporary files
        defer { signals.stop() }
        let base = try Baseline.load(baseline)
        if !json && base.ffmpeg != ToolProcess.ffmpegVersionLines && !base.entries.isEmpty {
            printError("note: the baseline was made with \(base.ffmpeg.joined(separator: ", ")); running \(ToolProcess.ffmpegVersionLines.joined(separator: ", "))")
        }
        let (cases, measured) = try makeRunner().run(baseline: base)
        let unchecked = RegressRunner.unchecked(base, cases)
        let context = RegressContext(tool: "mediaexport \(MediaExportVersion.string)", baseline: baseline, libav: measured.ffmpeg,
                                     environment: measured.environment ?? RegressEnvironment(),
                                     commandLine: ["mediaexport"] + CommandLine.arguments.dropFirst().map(Self.quoted))
        if let junit {
            let xml = RegressJUnit.render(cases, notChecked: unchecked, subset: subset || updateBaseline, context: context)
            do { try xml.write(toFile: junit, atomically: true, encoding: .utf8) } catch {
                throw ExportError.outputUnwritable(path: junit, reason: error.localizedDescription)
            }
        }
        if let html {
            let page = RegressHTML.Page(cases: cases, baseline: base, notChecked: unchecked, context: context, date: Date())
            try RegressHTML.write(page, to: html)
        }
        if updateBaseline { return try update(base, measured, cases: cases) }
        try report(cases, unchecked: unchecked)
    }

    /// An argument as a shell reads it back: as it is when it holds only safe characters, else in single quotes.
    static func quoted(_ argument: String) -> String {
        let safe = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%")
        guard argument.isEmpty || !argument.allSatisfy(safe.contains) else { return argument }
        return "'" + argument.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// The runner for these options: sample keys relative to the baseline file's folder.
    private func makeRunner() throws -> RegressRunner {
        let catalog = try PresetCatalog.builtIn()
        let presets = try (preset.isEmpty ? ["highest"] : preset).map { name in
            var resolved = try catalog.resolve(name)
            if let target = quality.flatMap({ try? QualityTarget(parsing: $0) }) { resolved = try resolved.applying(PresetOverrides(quality: target)) }
            if let note = catalog.shadowNote(for: name, resolved: resolved) { printError("note: " + note) }
            return resolved
        }
        let runner = RegressRunner(samples: samples, presets: presets)
        runner.version = version.assetVersion
        runner.tolerances = Tolerances(durationFrames: durationFrames, sizeRatio: sizeRatio, psnrDrop: psnrDrop, ssimDrop: ssimDrop)
        // URL's parent, not NSString's deletingLastPathComponent, which traps on a one-letter path (`--baseline b`).
        runner.keyFolder = URL(fileURLWithPath: baseline).deletingLastPathComponent().path
        runner.keepFailed = keepFailed
        runner.deterministic = deterministic
        runner.collectFrames = html != nil
        if json { runner.onCase = { c in printLine(JSONLine.shown("case", c)) } }
        return runner
    }

    /// `--update-baseline`: the run's entries, and the baseline's that were not run, written back; with `--json` a
    /// `regressFinished` record naming what changed ends the output.
    private func update(_ base: Baseline, _ measured: Baseline, cases: [RegressCase]) throws {
        var merged = measured
        for key in base.entries.keys.sorted() where merged.entries[key] == nil { merged.entries[key] = base.entries[key] }
        let changes = RegressRunner.changes(from: base, to: merged)
        try merged.save(baseline)
        if json {
            let failed = cases.filter { $0.status == .error }
            printLine(JSONLine.shown("regressFinished", RegressSummary(exitCode: 0, cases: cases, failed: failed, notChecked: [],
                                                                                    subset: subset, baselineUpdated: changes)))
        } else {
            printLine(TerminalText.lines(changes.isEmpty ? ["baseline \(baseline): unchanged"] : ["baseline \(baseline) updated:"] + changes.map { "  " + $0 }))
        }
    }

    /// The table (or the summary record), and exit 4 on a case that did not pass or, without `--subset`, an entry
    /// not checked.
    private func report(_ cases: [RegressCase], unchecked: [String]) throws {
        let failed = cases.filter { $0.status != .pass }
        let fails = !failed.isEmpty || (!unchecked.isEmpty && !subset)
        if json {
            printLine(JSONLine.shown("regressFinished", RegressSummary(exitCode: fails ? ExitStatus.regression : 0, cases: cases,
                                                                                    failed: failed, notChecked: unchecked, subset: subset)))
        } else {
            printLine(RegressTable.render(cases))
            if !unchecked.isEmpty && subset { printError("note: not checked (--subset): " + unchecked.joined(separator: ", ")) }
            if !unchecked.isEmpty && !subset { printHuman("not checked: " + unchecked.joined(separator: ", ")) }
            if let estimates = RegressRunner.estimateSummary(cases) { printHuman(estimates) }
            printLine("\(cases.count - failed.count) passed, \(failed.count) failed" + (unchecked.isEmpty ? "" : ", \(unchecked.count) not checked"))
        }
        if fails { throw ExitCode(ExitStatus.regression) }
    }
}

/// The final record of `regress --json`.
struct RegressSummary: Encodable {
    /// The process's exit code: 0, or 4 (a case did not pass, or an entry was not checked without `--subset`).
    var exitCode: Int32
    var cases: Int
    var passed: Int
    var failed: Int
    /// The baseline's entries the run did not check (a failure unless `subset`).
    var notChecked: [String]
    var subset: Bool
    /// Each case that did not pass, its first cause first.
    var failures: [Failure]
    /// With `--update-baseline`: what changed in the baseline (empty: nothing).
    var baselineUpdated: [String]?

    /// A case that did not pass: its key and status, the line the table shows, the cause and the first difference.
    struct Failure: Encodable {
        var key: String
        var status: RegressCase.Status
        var headline: String
        var cause: RegressCause?
        var difference: Difference?
    }

    init(exitCode: Int32, cases: [RegressCase], failed: [RegressCase], notChecked: [String], subset: Bool, baselineUpdated: [String]? = nil) {
        self.exitCode = exitCode; self.cases = cases.count; passed = cases.count - failed.count; self.failed = failed.count
        self.notChecked = notChecked; self.subset = subset; self.baselineUpdated = baselineUpdated
        failures = failed.map { Failure(key: $0.key, status: $0.status, headline: $0.headline, cause: $0.cause, difference: $0.differences.first) }
    }
}
