import Foundation
import MediaExportCore
import MediaExportFFmpeg

/// The outcome of one sample × preset.
public struct RegressCase: Codable, Sendable, Equatable {
    public enum Status: String, Codable, Sendable { case pass, fail, missing, error }
    /// `SAMPLE|PRESET`.
    public var key: String
    public var sample: String
    public var preset: String
    public var status: Status
    /// Every difference beyond tolerance (the first is the headline).
    public var differences: [Difference]
    public var measurement: MediaExportCore.Measurement?
    /// Why the export or measurement failed (`error`), or that the baseline has no entry (`missing`).
    public var message: String?
    public var seconds: Double
    /// Per-frame PSNR/SSIM and the worst frame's pictures, for a transcoded video when the runner `collectFrames`
    /// (`--html`); its pictures are left out of JSON.
    public var quality: QualityDetail?
}

/// `mediaexport regress`: exports samples with presets into a temporary sandbox, measures the results, and
/// compares them with a committed baseline.
public final class RegressRunner {
    public var samples: [String]
    public var presets: [Preset]
    public var version: AssetVersion = .current
    /// Per-run tolerance overrides (over the baseline's file-wide and per-entry ones... per-entry win).
    public var tolerances = Tolerances()
    /// Called after each case.
    public var onCase: (@Sendable (RegressCase) -> Void)?
    /// Keep each transcode's per-frame scores and worst frame in `RegressCase.quality` (for `--html`).
    public var collectFrames = false

    public init(samples: [String], presets: [Preset]) {
        self.samples = samples
        self.presets = presets
    }

    /// The assets to run: sample files and folders (walked), one per asset, keyed by a path relative to the sample.
    func assets() throws -> [(key: String, path: String)] {
        var result: [(String, String)] = []
        for sample in samples {
            guard FileSystem.exists(sample) else { throw ExportError.inputUnreadable(path: sample, reason: "no such file or folder") }
            let files: [String]
            let folder: String?
            if FileSystem.isDirectory(sample) {
                // Walked from its real path, and keys made relative to that same path (a sample folder given
                // through a symlink keys its files as the folder itself would).
                let real = FileSystem.realPath(sample) ?? sample
                var scan = BatchScan()
                files = scan.walk(real, outRoot: "/nonexistent")
                folder = real
            } else {
                files = [URL(fileURLWithPath: sample).standardizedFileURL.path]
                folder = nil
            }
            for asset in BatchPlanner.group(files) {
                guard let main = asset.original ?? asset.renderedEdit else { continue }
                let key = folder.map { BatchPlanner.relativePath(main.path, to: $0) } ?? (files[0] as NSString).lastPathComponent
                result.append((key, main.path))
            }
        }
        return result.sorted { $0.0 < $1.0 }
    }

    /// Runs every case against `baseline`; returns the cases and the measured baseline (for `--update-baseline`).
    public func run(baseline: Baseline) throws -> (cases: [RegressCase], measured: Baseline) {
        let sandbox = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("mediaexport-regress-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: sandbox, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: sandbox) }
        var measured = Baseline(ffmpeg: FFmpegVersions.lines, tolerances: baseline.tolerances)
        var cases: [RegressCase] = []
        for (n, asset) in try assets().enumerated() {
            for preset in presets {
                let key = "\(asset.key)|\(preset.name)"
                let began = Date()
                var c = RegressCase(key: key, sample: asset.key, preset: preset.name, status: .error, differences: [], measurement: nil,
                                    message: nil, seconds: 0)
                do {
                    let out = sandbox.appendingPathComponent("\(n)-\(preset.name).\(preset.defaultExtension)").path
                    let (m, quality) = try measure(asset.path, preset: preset, output: out, sandbox: sandbox.path)
                    c.measurement = m
                    c.quality = quality
                    measured.entries[key] = Baseline.Entry(measurement: m, tolerances: baseline.entries[key]?.tolerances)
                    if let entry = baseline.entries[key], let expected = entry.failure {
                        c.status = .fail
                        c.differences = [Difference(property: "failure", baseline: expected, actual: "exported")]
                    } else if let entry = baseline.entries[key], let base = entry.measurement {
                        let t = tolerances.over(entry.tolerances ?? Tolerances()).over(baseline.tolerances ?? Tolerances()).over(.defaults)
                        c.differences = BaselineComparison.differences(m, base, t)
                        c.status = c.differences.isEmpty ? .pass : .fail
                    } else {
                        c.status = .missing
                        c.message = "not in the baseline (run with --update-baseline to add it)"
                    }
                } catch {
                    let e = (error as? ExportError) ?? .ffmpeg(stage: .write, path: asset.path, code: -1, message: "\(error)")
                    let failure = "\(e.stage.rawValue)/\(e.kind.rawValue)"
                    c.message = e.description
                    measured.entries[key] = Baseline.Entry(measurement: nil, tolerances: baseline.entries[key]?.tolerances, failure: failure)
                    if let expected = baseline.entries[key]?.failure {
                        c.status = expected == failure ? .pass : .fail
                        if expected != failure { c.differences = [Difference(property: "failure", baseline: expected, actual: failure)] }
                    } else if baseline.entries[key]?.measurement != nil {
                        c.status = .fail
                        c.differences = [Difference(property: "failure", baseline: "exported", actual: "\(failure): \(e.description)")]
                    }
                }
                c.seconds = Date().timeIntervalSince(began)
                cases.append(c)
                onCase?(c)
            }
        }
        return (cases, measured)
    }

    /// Exports one sample and measures the result (and, when `collectFrames`, a transcode's per-frame quality).
    func measure(_ input: String, preset: Preset, output: String, sandbox: String) throws -> (MediaExportCore.Measurement, QualityDetail?) {
        var request = ExportRequest(input: input, output: output, preset: preset, overwrite: true, sandbox: sandbox, version: version)
        // The estimate's error is one of the things measured: the sampled one, as `--estimate samples` gives.
        request.estimate = .samples
        let session = ExportSession(request: request)
        let estimate = LockedBox<Int64?>(nil)
        session.onEvent = { event in if case .started(let s) = event { estimate.withLock { $0 = s.estimatedBytes } } }
        let done = try session.run()
        defer { try? FileManager.default.removeItem(atPath: done.output) }
        let source = done.version?.resource ?? input
        let route = done.fallbacks.isEmpty ? done.route.rawValue : "fallback:\(done.route.rawValue)"
        var m = try Measurer.measure(output: done.output, source: source, route: route)
        if let estimated = estimate.withLock({ $0 }), m.size > 0 {
            m.estimatedBytes = estimated
            m.estimateError = Double(estimated) / Double(m.size) - 1
        }
        let edits = try done.version?.sidecar.map { try EditSidecar.load(path: $0) }
        let trimmed = edits?.trim != nil
        var quality: QualityDetail?
        if done.route == .transcode && !preset.passthrough && preset.video != nil && m.width != nil && edits?.crop == nil {
            if let (score, detail) = try QualityMeter.compare(output: done.output, source: source, origin: edits?.trim?.start ?? 0,
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
        return (m, quality)
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
        for key in new.entries.keys.sorted() {
            guard let before = old.entries[key] else { lines.append("added \(key)"); continue }
            let after = new.entries[key]!
            if before.failure != after.failure {
                lines.append("changed \(key): failure \(before.failure ?? "none") → \(after.failure ?? "none")")
                continue
            }
            guard let a = after.measurement, let b = before.measurement else { continue }
            let diffs = BaselineComparison.differences(a, b, Tolerances(durationFrames: 0, sizeRatio: 0, psnrDrop: 0, ssimDrop: 0))
            var notes = diffs.map { "\($0.property) \($0.baseline) → \($0.actual)" }
            // Values the old baseline did not record are not differences, but the file now has them: say so.
            if a.color != b.color && !diffs.contains(where: { $0.property.hasPrefix("color.") }) { notes.append("colour now recorded") }
            if notes.isEmpty { continue }
            lines.append("changed \(key): " + notes.joined(separator: "; "))
        }
        for key in old.entries.keys.sorted() where new.entries[key] == nil { lines.append("kept \(key) (not run)") }
        if old.ffmpeg != new.ffmpeg { lines.append("FFmpeg: \(old.ffmpeg.joined(separator: ", ")) → \(new.ffmpeg.joined(separator: ", "))") }
        return lines
    }

    /// JUnit XML: one test suite, one test case per sample × preset.
    public static func junit(_ cases: [RegressCase]) -> String {
        let esc = Markup.escape
        let failures = cases.filter { $0.status == .fail || $0.status == .missing }.count
        let errors = cases.filter { $0.status == .error }.count
        let time = cases.reduce(0) { $0 + $1.seconds }
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        xml += "<testsuites tests=\"\(cases.count)\" failures=\"\(failures)\" errors=\"\(errors)\" time=\"\(String(format: "%.3f", time))\">\n"
        xml += "  <testsuite name=\"mediaexport regress\" tests=\"\(cases.count)\" failures=\"\(failures)\" errors=\"\(errors)\" time=\"\(String(format: "%.3f", time))\">\n"
        for c in cases {
            xml += "    <testcase classname=\"\(esc(c.sample))\" name=\"\(esc(c.preset))\" time=\"\(String(format: "%.3f", c.seconds))\""
            switch c.status {
            case .pass: xml += "/>\n"
            case .fail:
                let first = c.differences.first?.description ?? "differs"
                xml += ">\n      <failure message=\"\(esc(first))\">\(esc(c.differences.map(\.description).joined(separator: "\n")))</failure>\n    </testcase>\n"
            case .missing:
                xml += ">\n      <failure message=\"\(esc(c.message ?? "missing"))\"/>\n    </testcase>\n"
            case .error:
                xml += ">\n      <error message=\"\(esc(c.message ?? "error"))\"/>\n    </testcase>\n"
            }
        }
        xml += "  </testsuite>\n</testsuites>\n"
        return xml
    }
}
