import Foundation
import MediaExport

/// Draws a batch for people on stderr: on a terminal an overall bar (assets done / total, bytes, ETA) and a line
/// per running job, redrawn a few times a second; elsewhere one line per finished job.
final class BatchRenderer: Sendable {
    /// What is on the screen, behind one lock: events come from several job threads.
    private let canvas: LockedBox<Canvas>

    /// Creates a renderer in `mode` (see `ProgressRenderer.mode`).
    init(mode: ProgressRenderer.Mode) { canvas = LockedBox(Canvas(mode: mode)) }

    /// Renders one batch event.
    func handle(_ event: BatchEvent) { canvas.withLock { $0.handle(event) } }

    /// The closing summary: counts and bytes, and every asset failed now (in this run or an earlier one) or whose
    /// output came by a fallback or is partial (whichever run delivered it) by name.
    static func summary(_ counts: BatchCounts, wallTime: Double? = nil) -> String {
        "\(counts.total) assets: \(counts.transcoded) transcoded, \(counts.remuxed) remuxed, \(counts.copied) copied, "
            + (counts.salvaged > 0 ? "\(counts.salvaged) salvaged (partial), " : "")
            + (counts.duplicates > 0 ? "\(counts.duplicates) duplicate\(counts.duplicates == 1 ? "" : "s"), " : "")
            + "\(fellBack(counts)), \(counts.unchanged) unchanged, "
            + (counts.edited > 0 ? "\(counts.edited) changed since written, kept\(named(counts.editedAssets)), " : "")
            + (counts.rejected > 0 ? "\(counts.rejected) rejected\(named(counts.rejectedAssets)), " : "")
            + (counts.accepted > 0 ? "\(counts.accepted) accepted\(named(counts.acceptedAssets)), " : "") + failed(counts)
            + (counts.cancelled > 0 ? ", \(counts.cancelled) cancelled" : "")
            + "; \(HumanSummary.bytes(counts.bytesIn)) in, \(HumanSummary.bytes(counts.bytesOut)) out" + (wallTime.map { throughput(counts, $0) } ?? "")
    }

    /// `; in 12.4 s (14.5 assets/min, 7.8 MB/s)`: the batch's wall time, and the assets this run delivered (exported or
    /// given a duplicate's output) and the source bytes it read per unit of it.
    static func throughput(_ counts: BatchCounts, _ seconds: Double) -> String {
        let delivered = counts.transcoded + counts.remuxed + counts.copied + counts.salvaged + counts.duplicates
        guard seconds > 0.001, delivered > 0 else { return String(format: "; in %.1f s", seconds) }
        return String(format: "; in %.1f s (%.1f assets/min, %@/s)", seconds, Double(delivered) * 60 / seconds,
                      HumanSummary.bytes(Int64(Double(counts.bytesIn) / seconds)))
    }

    /// With a quality target, what this run's encodes reached and chose: `quality ssim:0.97: 12 met (CRF 18–35),
    /// 1 short (a.mov); 1.2 GB saved against CRF 18 (predicted)`; nil when no exported row has a measure.
    static func qualityLine(_ rows: [BatchReportRow]) -> String? {
        let measured = rows.filter { $0.status == BatchRowStatus.exported }.compactMap { row in row.account?.quality.map { (row.key, $0) } }
        guard let first = measured.first?.1 else { return nil }
        let crfs = measured.compactMap(\.1.crf)
        let short = measured.filter { $0.1.met == false }.map(\.0)
        let saved = measured.compactMap(\.1.savedBytes).reduce(0, +)
        return "quality \(QualityTarget(metric: first.metric, target: first.target).text): \(measured.count - short.count) met"
            + (crfs.isEmpty ? "" : " (CRF \(crfs.min()!)" + (crfs.min() == crfs.max() ? "" : "–\(crfs.max()!)") + ")")
            + (short.isEmpty ? "" : ", \(short.count) short" + named(short))
            + "; \(saved < 0 ? HumanSummary.bytes(-saved) + " more" : HumanSummary.bytes(saved) + " saved") than at CRF \(first.presetCRF) (predicted)"
    }

    /// `2 failed (a.mov, b/c.mov)`, or `0 failed`.
    static func failed(_ counts: BatchCounts) -> String {
        "\(counts.failed) failed" + named(counts.failedAssets)
    }

    /// `1 fell back (cut.mov)`, or `0 fell back`.
    static func fellBack(_ counts: BatchCounts) -> String {
        "\(counts.fellBack) fell back" + named(counts.fellBackAssets)
    }

    /// ` (a.mov, b/c.mov)`, or nothing.
    private static func named(_ keys: [String]) -> String {
        keys.isEmpty ? "" : " (" + keys.map(FileName.display).joined(separator: ", ") + ")"
    }

    /// The line on stderr for a delivered asset whose output came by a fallback or is partial:
    /// `cut.mov: delivered by salvage after 1 fallback, partial (an earlier run's output, left in place)`.
    static func fallbackLine(_ row: BatchReportRow) -> String? {
        guard BatchRowStatus.delivered(row.status), row.fellBack else { return nil }
        let after = row.fallbacks > 0 ? " after \(row.fallbacks) fallback\(row.fallbacks == 1 ? "" : "s")" : ""
        let earlier = row.status == BatchRowStatus.exported ? "" : " (an earlier run's output, left in place)"
        return "\(row.key): delivered by \(row.route ?? "a fallback")\(after)\(row.account?.partial != nil ? ", partial" : "")\(earlier)"
    }

    /// The dry-run summary: how many assets each action, the earlier runs' failures and fallbacks, and what
    /// `--check-data` cost.
    static func planSummary(_ rows: [BatchReportRow]) -> String {
        let counts = Dictionary(grouping: rows, by: \.action).mapValues(\.count)
        let actions = ["transcode", "remux", "copy"] + (counts["salvage"] != nil ? ["salvage"] : []) + ["skip"]
        let parts = actions.map { "\(counts[$0] ?? 0) \($0)" }
        let estimate = rows.filter { $0.action != "skip" }.compactMap(\.estimatedBytes).reduce(0, +)
        let tallies = BatchCounts(rows)
        let checked = tallies.dataChecked > 0 ? String(format: "; data of %d asset%@ sampled in %.2f s: %d damaged", tallies.dataChecked,
                                                       tallies.dataChecked == 1 ? "" : "s", tallies.dataCheckSeconds, tallies.dataDamaged) : ""
        // A failure the database records is an earlier run's; one the plan foresees (no record) is this run's to come.
        let failed = rows.filter { $0.status == BatchRowStatus.failed && $0.accepted == nil }
        let earlier = failed.filter { $0.finishedAt != nil }.map(\.key), foreseen = failed.filter { $0.finishedAt == nil }.map(\.key)
        return "\(rows.count) assets planned: " + parts.joined(separator: ", ") + "; about \(HumanSummary.bytes(estimate)) to write"
            + (tallies.rejected > 0 ? "; \(tallies.rejected) rejected\(named(tallies.rejectedAssets)): not media" : "")
            + (foreseen.isEmpty ? "" : "; \(foreseen.count) would fail\(named(foreseen))")
            + (earlier.isEmpty ? "" : "; \(earlier.count) failed\(named(earlier)) in an earlier run")
            + (tallies.fellBack > 0 ? "; \(Self.fellBack(tallies)) in an earlier run" : "") + checked + " (dry run: nothing exported)"
    }

    /// The dry-run plan table.
    static func planTable(_ rows: [BatchReportRow]) -> String {
        var table = [["ASSET", "PLAN", "EST. SIZE", "REASON"]]
        for r in rows {
            table.append([r.key, r.action, r.estimatedBytes.map { HumanSummary.bytes($0) } ?? "?", r.reason])
        }
        return PresetTable.align(table)
    }
}

/// The batch display's state and drawing; only touched under `BatchRenderer.canvas`.
private struct Canvas {
    private let mode: ProgressRenderer.Mode
    private var total = 0
    private var done = 0
    private var bytesWritten: Int64 = 0
    private var running: [Int: (key: String, fraction: Double)] = [:]
    private var drawnLines = 0
    private var lastDraw = Date.distantPast
    private let began = Date()

    init(mode: ProgressRenderer.Mode) { self.mode = mode }

    mutating func handle(_ event: BatchEvent) {
        guard mode != .none else { return }
        switch event {
        case .planned(let item):
            if item.route != nil { total += 1 }
        case .job(let id, let key, let status):
            switch status {
            case .exporting: running[id] = (key, 0)
            case .completed, .failed, .cancelled:
                running[id] = nil
                done += 1
                if mode == .lines { writeFully(2, "[\(done)/\(total)] \(status.rawValue): \(TerminalText.escaped(key))\n") }
            default: break
            }
            if mode == .bar { draw(force: true) }
        case .export(let id, _, let e):
            if case .progress(let p) = e { running[id]?.fraction = p.fraction }
            if case .completed(let c) = e { bytesWritten += c.bytes }
            if mode == .bar { draw(force: false) }
        case .finished:
            if mode == .bar { clear() }
        }
    }

    private mutating func draw(force: Bool) {
        let now = Date()
        guard force || now.timeIntervalSince(lastDraw) >= 0.25 else { return }
        lastDraw = now
        let progress = total > 0 ? (Double(done) + running.values.reduce(0) { $0 + $1.fraction }) / Double(total) : 1
        let width = 28
        let filled = Int(progress * Double(width))
        var lines = ["[" + String(repeating: "#", count: filled) + String(repeating: "-", count: max(0, width - filled)) + "] "
                     + "\(done)/\(total) assets  " + HumanSummary.bytes(bytesWritten) + " out"
                     + (progress > 0.01 ? "  ETA " + ProgressRenderer.clock(now.timeIntervalSince(began) * (1 - progress) / progress) : "")]
        for (id, job) in running.sorted(by: { $0.key < $1.key }) {
            lines.append(String(format: "  job %d %3d%%  ", id, Int(job.fraction * 100)) + TerminalText.escaped(job.key))
        }
        clear()
        writeFully(2, lines.joined(separator: "\n") + "\n")
        drawnLines = lines.count
    }

    private mutating func clear() {
        if drawnLines > 0 { writeFully(2, "\u{1B}[\(drawnLines)A\u{1B}[J") }
        drawnLines = 0
    }
}
