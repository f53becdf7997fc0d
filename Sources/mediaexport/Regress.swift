import ArgumentParser
import MediaExportFFmpeg
import MediaExportCore
import Foundation
import MediaExport

struct Regress: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Export sample videos and fail when the results drift from a committed baseline.",
        discussion: """
        Each sample (file or folder) is exported with each preset into a temporary sandbox, then measured: \
        container, codecs, profile, size, pixel format, colour (HDR kind, transfer, primaries, matrix, range, bit \
        depth, field order, HDR10 metadata), frames, duration, audio, rotation, creation time, A/V start offset, \
        timestamp order, file size, the route taken, luma PSNR/SSIM against the source (transcodes) or \
        packet checksums against the source (stream copies). Tolerances: duration ± 1 frame, size ± 10 %, PSNR \
        −0.5 dB, SSIM −0.005, everything else exact; overridable here and per sample in the baseline.

        --html writes one self-contained page (no network, nothing beside it): each case's status and every \
        property against the baseline, and for transcoded video the source and the output at the worst frame \
        (lowest PSNR) with per-frame PSNR and SSIM plots.

        Examples:
          mediaexport regress samples/ --preset 1280x720 --preset passthrough --baseline regress.json
          mediaexport regress samples/ --preset 1280x720 --baseline regress.json --update-baseline
          mediaexport regress samples/ --preset low --baseline regress.json --junit regress.xml
          mediaexport regress samples/ --preset low --baseline regress.json --html regress.html
        """
    )

    @Argument(help: "Sample files and folders.", completion: .file())
    var samples: [String]

    @Option(name: .shortAndLong, help: "Preset (repeatable).")
    var preset: [String] = []

    @Option(help: "The baseline JSON file.")
    var baseline: String

    @Flag(name: .customLong("update-baseline"), help: "Write or refresh the baseline instead of failing, and say what changed.")
    var updateBaseline = false

    @Option(help: "Write JUnit XML here.")
    var junit: String?

    @Option(help: "Write a self-contained HTML report here (worst frames, per-frame PSNR/SSIM).", completion: .file())
    var html: String?

    @Option(name: .customLong("asset-version"), help: "current or original.")
    var assetVersion: AssetVersion = .current

    @Option(name: .customLong("duration-frames"), help: "Override: duration tolerance in frames.")
    var durationFrames: Double?

    @Option(name: .customLong("size-ratio"), help: "Override: size tolerance as a fraction.")
    var sizeRatio: Double?

    @Option(name: .customLong("psnr-drop"), help: "Override: allowed PSNR drop in dB.")
    var psnrDrop: Double?

    @Option(name: .customLong("ssim-drop"), help: "Override: allowed SSIM drop.")
    var ssimDrop: Double?

    @Flag(help: "Print one JSON record per case and a final summary record.")
    var json = false

    func run() throws {
        FFmpegLog.setVerbose(false)
        let signals = SignalCancellation()  // no cooperative cancel here: a signal ends the run, removing temporary files
        defer { signals.stop() }
        do {
            let catalog = try PresetCatalog.builtIn()
            let presets = try (preset.isEmpty ? ["highest"] : preset).map { try catalog.resolve($0) }
            let base = try Baseline.load(baseline)
            if !json && base.ffmpeg != FFmpegVersions.lines && !base.entries.isEmpty {
                printError("note: the baseline was made with \(base.ffmpeg.joined(separator: ", ")); running \(FFmpegVersions.lines.joined(separator: ", "))")
            }
            let runner = RegressRunner(samples: samples, presets: presets)
            runner.version = assetVersion
            runner.collectFrames = html != nil
            runner.tolerances = Tolerances(durationFrames: durationFrames, sizeRatio: sizeRatio, psnrDrop: psnrDrop, ssimDrop: ssimDrop)
            if json { runner.onCase = { c in printLine(RegressRecord(kind: "case", payload: c).line) } }
            let (cases, measured) = try runner.run(baseline: base)
            if let junit {
                do { try RegressRunner.junit(cases).write(toFile: junit, atomically: true, encoding: .utf8) } catch {
                    throw ExportError.outputUnwritable(path: junit, reason: error.localizedDescription)
                }
            }
            if let html { try RegressHTML.write(cases: cases, baseline: base, to: html) }
            let failed = cases.filter { $0.status != .pass }
            if updateBaseline {
                var merged = measured
                for (k, v) in base.entries where merged.entries[k] == nil { merged.entries[k] = v }
                let changes = RegressRunner.changes(from: base, to: merged)
                try merged.save(baseline)
                if !json {
                    printLine(changes.isEmpty ? "baseline \(baseline): unchanged" : "baseline \(baseline) updated:\n  " + changes.joined(separator: "\n  "))
                }
                return
            }
            if json {
                printLine(RegressRecord(kind: "regressFinished", payload: ["cases": cases.count, "failed": failed.count]).line)
            } else {
                printLine(RegressTable.render(cases))
                if let estimates = RegressRunner.estimateSummary(cases) { printLine(estimates) }
                printLine("\(cases.count - failed.count) passed, \(failed.count) failed")
            }
            if !failed.isEmpty { throw ExitCode(ExitStatus.regression) }
        } catch let error as ExportError {
            printError(error.description)
            throw ExitCode(error.exitCode)
        }
    }
}

/// A JSON Lines record of `regress --json`.
struct RegressRecord<P: Encodable>: Encodable {
    var version = 1
    var kind: String
    var payload: P
    var line: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(self)) ?? Data(), as: UTF8.self)
    }
}
