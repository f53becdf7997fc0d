import Foundation
import MediaExportCore
import MediaExportFFmpeg

/// The outcome of one sample × preset.
public struct RegressCase: Codable, Sendable, Equatable {
    /// Whether the case passed, differed from the baseline, had no baseline entry, or could not be exported or measured.
    public enum Status: String, Codable, Sendable { case pass, fail, missing, error }
    /// `SAMPLE|PRESET`.
    public var key: String
    /// The sample asset's key: its path relative to the runner's `keyFolder`.
    public var sample: String
    /// The preset's name.
    public var preset: String
    /// The verdict: `pass`, `fail` (differs beyond tolerance), `missing` (no baseline entry) or `error`.
    public var status: Status
    /// Every difference beyond tolerance (the first is the headline).
    public var differences: [Difference]
    /// What the export measured; nil when it failed.
    public var measurement: MediaExportCore.Measurement?
    /// Why the export or measurement failed (`error`), or that the baseline has no entry (`missing`).
    public var message: String?
    /// Seconds the case took.
    public var seconds: Double
    /// For a failing case: the first thing its baseline entry was made from that is different here (the sample, the
    /// preset, the libraries, the CPU), named before the differences; nil when nothing recorded differs.
    public var cause: RegressCause? = nil
    /// Where `--keep-failed` kept this failing case's output.
    public var keptOutput: String? = nil
    /// For a stream copy whose packet checksums differ from the baseline's: per output stream, how many of its
    /// packets differ from the source's and from when.
    public var packets: [PacketStreamSummary]? = nil

    /// One line on why the case did not pass: its cause, then its first difference (or its message).
    public var headline: String {
        let detail = status == .fail ? differences.first?.description ?? message : message
        return [cause?.description, detail].compactMap { $0 }.joined(separator: "; ")
    }
    /// Per-frame PSNR/SSIM and the worst frame's pictures, for a transcoded video when the runner `collectFrames`
    /// (`--html`); its pictures are left out of JSON.
    public var quality: QualityDetail?
}

/// `mediaexport regress`: exports samples with presets into a temporary sandbox, measures the results, and
/// compares them with a committed baseline.
public final class RegressRunner {
    /// The sample files and folders to export.
    public var samples: [String]
    /// The presets every sample is exported with.
    public var presets: [Preset]
    /// Which version of each asset is exported (default: the current one).
    public var version: AssetVersion = .current
    /// Per-run tolerance overrides (over the baseline's file-wide and per-entry ones... per-entry win).
    public var tolerances = Tolerances()
    /// The folder sample keys are relative to: the baseline file's (default: the current folder).
    public var keyFolder = FileManager.default.currentDirectoryPath
    /// Keeps the output of every failing case here (`--keep-failed`), named after its key; nil: none is kept.
    public var keepFailed: String?
    /// Exports with `ExportRequest.deterministic`, and records and compares every output's SHA-256.
    public var deterministic = false
    /// Called after each case.
    public var onCase: (@Sendable (RegressCase) -> Void)?
    /// Keep each transcode's per-frame scores and worst frame in `RegressCase.quality` (for `--html`).
    public var collectFrames = false

    /// Creates a runner for these samples and presets.
    public init(samples: [String], presets: [Preset]) {
        self.samples = samples
        self.presets = presets
    }

    /// The assets to run, one per asset of every sample file and folder (walked), keyed by their path relative to
    /// `keyFolder`, sorted by key. Two with one key (a file given twice, or also inside a folder given) are an error.
    func assets() throws -> [(key: String, path: String, given: String)] {
        let folder = SampleKey.resolvedFolder(keyFolder)
        var found: [(key: String, path: String, given: String)] = []
        for sample in samples {
            found += try Self.mainFiles(sample).map { (SampleKey.relative($0, to: folder), $0, sample) }
        }
        var seen: [String: String] = [:]
        for asset in found {
            if let other = seen[asset.key] {
                throw ExportError.usage(reason: "two samples have the key \(asset.key): \(other) and \(asset.given)")
            }
            seen[asset.key] = asset.given
        }
        return found.sorted { $0.key < $1.key }
    }

    /// The main resource of each asset in `sample`, a file or a folder (walked from its real path).
    static func mainFiles(_ sample: String) throws -> [String] {
        guard FileSystem.exists(sample) else { throw ExportError.inputUnreadable(path: sample, reason: "no such file or folder") }
        var files = [SampleKey.resolved(sample)]
        if FileSystem.isDirectory(sample) {
            var scan = BatchScan()
            files = scan.walk(SampleKey.resolvedFolder(sample), outRoot: "/nonexistent")
        }
        return BatchPlanner.group(files).compactMap { ($0.original ?? $0.renderedEdit)?.path }
    }

    /// Runs every case against `baseline`; returns the cases and the measured baseline (for `--update-baseline`).
    public func run(baseline: Baseline) throws -> (cases: [RegressCase], measured: Baseline) {
        let assets = try assets()
        let names = presets.map(\.name)
        if let twice = names.first(where: { name in names.filter { $0 == name }.count > 1 }) {
            throw ExportError.usage(reason: "two presets are named \(twice): a case's key is SAMPLE|PRESET, so each preset needs a name of its own")
        }
        let records = try presets.map { try PresetRecord($0) }
        if let keepFailed { try BatchPlanner.makeDirectories(keepFailed) }
        let sandbox = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("mediaexport-regress-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: sandbox, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: sandbox) }
        let here = RegressEnvironment.current(deterministic: deterministic)
        let finder = CauseFinder(baseline: baseline, here: here, libav: FFmpegVersions.lines)
        var measured = Baseline(ffmpeg: FFmpegVersions.lines, tolerances: baseline.tolerances)
        measured.environment = here
        var cases: [RegressCase] = []
        for (n, asset) in assets.enumerated() {
            let sampleSHA256 = try? SHA256Hasher.file(asset.path)
            for (p, preset) in presets.enumerated() {
                let folder = sandbox.appendingPathComponent("\(n)-\(p)")
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                var (c, entry) = runCase(asset, preset, records[p], sampleSHA256: sampleSHA256, in: folder.path, baseline: baseline)
                if c.status == .pass, let old = baseline.entries[c.key], Self.sampleMoved(old, sampleSHA256) {
                    c.status = .fail
                }
                if c.status == .fail || c.status == .error {
                    if let old = baseline.entries[c.key] { c.cause = finder.cause(entry: old, sampleSHA256: sampleSHA256, preset: records[p]) }
                    if let keepFailed, let output = Self.output(in: folder.path) { c.keptOutput = try Self.keep(output, key: c.key, in: keepFailed) }
                }
                try? FileManager.default.removeItem(at: folder)
                measured.entries[c.key] = entry
                cases.append(c)
                onCase?(c)
            }
        }
        return (cases, measured)
    }

    /// Exports one case into `folder` and judges it; the entry records the measurement and what it was made from.
    private func runCase(_ asset: (key: String, path: String, given: String), _ preset: Preset, _ record: PresetRecord,
                         sampleSHA256: String?, in folder: String, baseline: Baseline) -> (RegressCase, Baseline.Entry) {
        let key = "\(asset.key)|\(preset.name)"
        let began = Date()
        let old = baseline.entries[key]
        var c = RegressCase(key: key, sample: asset.key, preset: preset.name, status: .error, differences: [], measurement: nil,
                            message: nil, seconds: 0)
        var entry = Baseline.Entry(tolerances: old?.tolerances, sampleSHA256: sampleSHA256, preset: record)
        entry.followsSample = old?.followsSample
        do {
            let output = PathName.join(folder, "output.\(preset.defaultExtension)")
            let (m, quality, source) = try measure(asset.path, preset: preset, output: output, sandbox: folder)
            c.measurement = m
            c.quality = quality
            entry.measurement = m
            judge(&c, m, against: old, fileWide: baseline.tolerances)
            if c.differences.contains(where: { $0.property.hasPrefix("packet") }) {
                c.packets = try? PacketStreamSummary.compare(output: output, source: source)
            }
        } catch {
            let e = (error as? ExportError) ?? .ffmpeg(stage: .write, path: asset.path, code: -1, message: "\(error)")
            let failure = "\(e.stage.rawValue)/\(e.kind.rawValue)"
            entry.failure = failure
            c.message = e.description
            Self.judge(&c, failure: failure, against: old)
        }
        c.seconds = Date().timeIntervalSince(began)
        return (c, entry)
    }

    /// Judges an export that succeeded with measurement `m`.
    private func judge(_ c: inout RegressCase, _ m: MediaExportCore.Measurement, against old: Baseline.Entry?, fileWide: Tolerances?) {
        if let expected = old?.failure {
            c.status = .fail
            c.differences = [Difference(property: "failure", expected: .string(expected), measured: .string("exported"))]
        } else if let old, let base = old.measurement {
            let t = tolerances.over(old.tolerances ?? Tolerances()).over(fileWide ?? Tolerances()).over(.defaults)
            c.differences = BaselineComparison.differences(m, base, t)
            c.status = c.differences.isEmpty ? .pass : .fail
        } else {
            c.status = .missing
            c.message = "not in the baseline (run with --update-baseline to add it)"
        }
    }

    /// Judges an export that failed with `failure` (`STAGE/KIND`); the case stays an error when nothing was expected.
    private static func judge(_ c: inout RegressCase, failure: String, against old: Baseline.Entry?) {
        if let expected = old?.failure {
            c.status = expected == failure ? .pass : .fail
            if expected != failure { c.differences = [Difference(property: "failure", expected: .string(expected), measured: .string(failure))] }
        } else if old?.measurement != nil {
            c.status = .fail
            c.differences = [Difference(property: "failure", expected: .string("exported"), measured: .string("\(failure): \(c.message ?? "")"))]
        }
    }

    /// True when the entry records a sample other than the one hashed `sha256` and does not follow its sample.
    static func sampleMoved(_ entry: Baseline.Entry, _ sha256: String?) -> Bool {
        guard let old = entry.sampleSHA256, let sha256, entry.followsSample != true else { return false }
        return old != sha256
    }

    /// The output a case left in its folder (`output.EXT`; a byte copy keeps the source's extension), if any; never
    /// a hidden temporary file.
    private static func output(in folder: String) -> String? {
        (FileSystem.contents(ofDirectory: folder) ?? []).filter { $0.hasPrefix("output") }.sorted()
            .map { PathName.join(folder, $0) }.first { FileSystem.isRegularFile($0) }
    }

    /// Moves `file` into `folder` as `KEY.EXT` (`hdr-pq.mp4_low.mp4`), or `KEY-2.EXT`… when that name is taken:
    /// never over a file that is already there. Returns where it went.
    static func keep(_ file: String, key: String, in folder: String) throws -> String {
        let ext = PathName.pathExtension(file)
        let stem = SampleKey.fileName(key)
        var n = 1
        while true {
            let name = (n == 1 ? stem : "\(stem)-\(n)") + (ext.isEmpty ? "" : ".\(ext)")
            let target = PathName.join(folder, name)
            n += 1
            if FileSystem.exists(target) { continue }
            do {
                try FileManager.default.moveItem(atPath: file, toPath: target)
                return target
            } catch where FileSystem.exists(target) {
                continue
            } catch {
                throw ExportError.outputUnwritable(path: target, reason: error.localizedDescription)
            }
        }
    }

    /// The baseline's entries this run did not check, sorted.
    public static func unchecked(_ baseline: Baseline, _ cases: [RegressCase]) -> [String] {
        let checked = Set(cases.map(\.key))
        return baseline.entries.keys.filter { !checked.contains($0) }.sorted()
    }

    /// Exports one sample and measures the result (and, when `collectFrames`, a transcode's per-frame quality);
    /// returns them and the file it was measured against.
    func measure(_ input: String, preset: Preset, output: String, sandbox: String) throws -> (MediaExportCore.Measurement, QualityDetail?, String) {
        var request = ExportRequest(input: input, output: output, preset: preset, overwrite: true, sandbox: sandbox, version: version)
        request.deterministic = deterministic
        // The estimate's error is one of the things measured: the sampled one, as `--estimate samples` gives.
        request.estimate = .samples
        let session = ExportSession(request: request)
        let estimate = LockedBox<Int64?>(nil)
        session.onEvent = { event in if case .started(let s) = event { estimate.withLock { $0 = s.estimatedBytes } } }
        // The output stays for the caller (`--keep-failed`), who removes it.
        let done = try session.run()
        let source = done.version?.resource ?? input
        var m = try Measurer.measure(output: done.output, source: source, route: done.route.rawValue)
        if !done.fallbacks.isEmpty { m.fallback = true }
        m.quality = done.quality.map { var q = $0; q.search = nil; return q }  // its CPU seconds would churn the baseline
        if deterministic { m.outputSHA256 = try SHA256Hasher.file(done.output) }
        if let estimated = estimate.withLock({ $0 }), m.size > 0 {
            m.estimatedBytes = estimated
            m.estimateError = Double(estimated) / Double(m.size) - 1
        }
        let delivered = session.delivered
        let edits = delivered?.edits
        let trimmed = edits?.trim != nil
        var quality: QualityDetail?
        if done.route == .transcode && preset.video != nil && m.width != nil && edits?.crop == nil {
            if let (score, detail) = try QualityMeter.compare(output: done.output, source: source, timeline: delivered?.plan.timeline,
                                                               keepFrames: collectFrames) {
                m.psnr = score.psnr
                m.ssim = score.ssim
                quality = detail
            }
        } else if (done.route == .remux || preset.passthrough) && !trimmed {
            let outSums = try Measurer.packetChecksums(done.output)
            let sourceSums = Set(try Measurer.packetChecksums(source))
            m.packetChecksums = outSums
            m.packetsMatchSource = outSums.allSatisfy { sourceSums.contains($0) }
        }
        return (m, quality, source)
    }

    /// One line on the size estimates of `cases` (the `started` records' `estimatedBytes` against the real sizes):
    /// how many, the median and the worst error, and which case that was; nil when none had an estimate.
    public static func estimateSummary(_ cases: [RegressCase]) -> String? {
        let errors = cases.compactMap { c in c.measurement?.estimateError.map { (c.key, $0) } }.sorted { abs($0.1) < abs($1.1) }
        guard let worst = errors.last else { return nil }
        let median = abs(errors[errors.count / 2].1)
        return String(format: "size estimates: %d exports, median error %.0f %%, worst %+.0f %% (%@)", errors.count, median * 100, worst.1 * 100, worst.0)
    }

    /// Changes between two baselines, one line each (for `--update-baseline`).
    public static func changes(from old: Baseline, to new: Baseline) -> [String] {
        var lines: [String] = []
        for (key, after) in new.entries.sorted(by: { $0.key < $1.key }) {
            guard let before = old.entries[key] else { lines.append("added \(key)"); continue }
            let notes = changes(from: before, to: after)
            if !notes.isEmpty { lines.append("changed \(key): " + notes.joined(separator: "; ")) }
        }
        for key in old.entries.keys.sorted() where new.entries[key] == nil { lines.append("kept \(key) (not run)") }
        if old.ffmpeg != new.ffmpeg { lines.append("FFmpeg: \(old.ffmpeg.joined(separator: ", ")) → \(new.ffmpeg.joined(separator: ", "))") }
        let hashed = old.entries.filter { key, entry in entry.sampleSHA256 == nil && new.entries[key]?.sampleSHA256 != nil }.count
        if hashed > 0 { lines.append("now recorded: the sample's and the preset's hashes of \(hashed) entries") }
        if old.environment == nil, let after = new.environment {
            lines.append("now recorded: the environment (FFmpeg \(after.ffmpeg ?? "?"); \((after.libraries ?? []).joined(separator: ", ")); "
                         + "CPU \((after.cpu ?? []).joined(separator: " ")); \(after.cores ?? 0) cores; deterministic \(after.deterministic ?? false))")
        }
        if let before = old.environment, let after = new.environment {
            let moved = CauseFinder.moved(before.libraries ?? [], after.libraries ?? [])
            if before.libraries != nil && !moved.isEmpty { lines.append("libraries: " + moved.joined(separator: ", ")) }
            if let cpu = before.cpu, cpu != after.cpu { lines.append("CPU: \(cpu.joined(separator: " ")) → \((after.cpu ?? []).joined(separator: " "))") }
            if let d = before.deterministic, d != after.deterministic { lines.append("deterministic: \(d) → \(after.deterministic ?? false)") }
        }
        return lines
    }

    /// What changed in one entry: its sample, its preset, its failure, or the properties measured.
    private static func changes(from before: Baseline.Entry, to after: Baseline.Entry) -> [String] {
        var notes: [String] = []
        if let a = before.sampleSHA256, a != after.sampleSHA256 { notes.append("sample changed") }
        if let a = before.presetSHA256, a != after.presetSHA256 {
            let settings = before.presetSettings.flatMap { b in after.presetSettings.map { SettingsChanges.between(b, $0) } } ?? []
            notes.append(settings.isEmpty ? "preset changed" : "preset changed (\(settings.joined(separator: ", ")))")
        }
        if before.failure != after.failure { return notes + ["failure \(before.failure ?? "none") → \(after.failure ?? "none")"] }
        guard let a = after.measurement, let b = before.measurement else { return notes }
        let diffs = BaselineComparison.differences(a, b, Tolerances(durationFrames: 0, sizeRatio: 0, psnrDrop: 0, ssimDrop: 0))
        notes += diffs.map { "\($0.property) \($0.expected.shown) → \($0.measured.shown)" + ($0.unit.map { " \($0.rawValue)" } ?? "") }
        // Values an older baseline did not record are not differences, but the file now has them: say so.
        if a.color != b.color && !diffs.contains(where: { $0.property.hasPrefix("color.") }) { notes.append("colour now recorded") }
        return notes
    }
}
