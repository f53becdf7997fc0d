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

    /// The closing summary: counts and bytes, and every asset failed now (in this run or an earlier one) by name.
    static func summary(_ counts: BatchCounts) -> String {
        "\(counts.total) assets: \(counts.transcoded) transcoded, \(counts.remuxed) remuxed, \(counts.copied) copied, "
            + (counts.salvaged > 0 ? "\(counts.salvaged) salvaged (partial), " : "")
            + (counts.duplicates > 0 ? "\(counts.duplicates) duplicate\(counts.duplicates == 1 ? "" : "s"), " : "")
            + "\(counts.fellBack) fell back, \(counts.unchanged) unchanged, \(failed(counts))"
            + (counts.cancelled > 0 ? ", \(counts.cancelled) cancelled" : "")
            + "; \(HumanSummary.bytes(counts.bytesIn)) in, \(HumanSummary.bytes(counts.bytesOut)) out"
    }

    /// `2 failed (a.mov, b/c.mov)`, or `0 failed`.
    static func failed(_ counts: BatchCounts) -> String {
        "\(counts.failed) failed" + (counts.failedAssets.isEmpty ? "" : " (" + counts.failedAssets.map(FileName.display).joined(separator: ", ") + ")")
    }

    /// The dry-run summary: how many assets each action.
    static func planSummary(_ rows: [BatchReportRow]) -> String {
        let counts = Dictionary(grouping: rows, by: \.action).mapValues(\.count)
        let parts = ["transcode", "remux", "copy", "skip"].map { "\(counts[$0] ?? 0) \($0)" }
        let estimate = rows.filter { $0.action != "skip" }.compactMap(\.estimatedBytes).reduce(0, +)
        let failed = BatchCounts(rows)
        return "\(rows.count) assets planned: " + parts.joined(separator: ", ") + "; about \(HumanSummary.bytes(estimate)) to write"
            + (failed.failed > 0 ? "; \(Self.failed(failed)) in an earlier run" : "") + " (dry run: nothing exported)"
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
