import Foundation
import MediaExport

/// Draws export progress for people on stderr: a redrawing bar on a terminal, a plain line per 10 % when
/// stderr is a pipe or a file, nothing when quiet. Updates are throttled by the session (a few a second).
final class ProgressRenderer: Sendable {
    /// How progress is shown.
    enum Mode: Sendable { case bar, lines, none }

    /// The mode chosen for `fd`: a bar on a terminal (unless `TERM=dumb`), lines otherwise.
    static func mode(for fd: Int32 = 2, quiet: Bool) -> Mode {
        if quiet { return .none }
        let term = ProcessInfo.processInfo.environment["TERM"] ?? ""
        return isatty(fd) != 0 && term != "dumb" ? .bar : .lines
    }

    private let mode: Mode
    private let fd: Int32
    /// The terminal's width when it does not say (nil: asked at every update, as the window may be resized).
    private let fixedColumns: Int?
    /// What has been drawn, behind one lock (events may come from any thread), and the recent progress the ETA is
    /// smoothed over.
    private struct Drawn {
        var lastDecile = -1, drawn = false, recent: [(elapsed: Double, fraction: Double)] = []
        /// Whether the plan encodes video: the bar keeps a column for the frame rate (`bar(_:columns:framesPerSecond:)`).
        var encodesVideo: Bool?
    }
    private let drawn = LockedBox(Drawn())

    /// Creates a renderer writing to `fd` (stderr by default); `columns` fixes the line width (tests), else the
    /// terminal's is used (`TIOCGWINSZ`, else `$COLUMNS`, else 80).
    init(mode: Mode, fd: Int32 = 2, columns: Int? = nil) {
        self.mode = mode; self.fd = fd; self.fixedColumns = columns
    }

    /// The terminal's width now.
    private var columns: Int {
        if let fixedColumns { return fixedColumns }
        let asked = ToolProcess.terminalColumns(fd)
        if asked > 0 { return asked }
        if let env = ProcessInfo.processInfo.environment["COLUMNS"].flatMap(Int.init), env > 0 { return env }
        return 80
    }

    /// Seconds of recent progress the ETA is computed from: the rate over the last stretch, not since the start
    /// (an export's first seconds — probing, sampling, a first pass' start — say little about the rest).
    static let etaWindow = 10.0

    /// The ETA from the progress in `recent` (oldest first): nil until 2 s and 2 % of progress are in the window.
    static func smoothedETA(_ recent: [(elapsed: Double, fraction: Double)]) -> Double? {
        guard let first = recent.first, let last = recent.last, last.elapsed - first.elapsed >= 2,
              last.fraction - first.fraction >= 0.02 else { return nil }
        let rate = (last.fraction - first.fraction) / (last.elapsed - first.elapsed)
        return max(0, (1 - last.fraction) / rate)
    }

    /// Renders one event.
    func handle(_ event: ExportEvent) {
        drawn.withLock { handle(event, &$0) }
    }

    private func handle(_ event: ExportEvent, _ state: inout Drawn) {
        switch (mode, event) {
        case (.none, _): return
        case (.bar, .started(let s)):
            state.encodesVideo = s.streams.contains { $0.type == "video" && $0.action == .transcode }
        case (.bar, .progress(var p)):
            state.recent.append((p.elapsed, p.fraction))
            state.recent.removeAll { p.elapsed - $0.elapsed > ProgressRenderer.etaWindow }
            p.eta = ProgressRenderer.smoothedETA(state.recent)
            writeFully(fd, "\r" + ProgressRenderer.bar(p, columns: columns, framesPerSecond: state.encodesVideo) + "\u{1B}[K")
            state.drawn = true
        case (.lines, .progress(let p)):
            let decile = Int(p.fraction * 10)
            if decile > state.lastDecile {
                state.lastDecile = decile
                writeFully(fd, ProgressRenderer.line(p) + "\n")
            }
        case (.bar, .fallback):
            // The fallback's line goes where the bar was; the next route's progress starts again.
            if state.drawn { writeFully(fd, "\r\u{1B}[K") }
            state.drawn = false; state.recent = []
        case (.bar, _) where event.isFinal:
            if state.drawn { writeFully(fd, "\r\u{1B}[K") }
        default:
            return
        }
    }

    /// `[#######-------]  50%   87 fps  1.20x  0:05  1.3 MB  ETA 0:03`, fitted to `columns` (one less: the cursor; a
    /// line wider than the terminal would wrap, and every update would start a new line). Each figure keeps its
    /// place whether it is known yet or not (no size before media is written, no ETA before it can be told), so the
    /// bar keeps its width from the first update to the last; `framesPerSecond` (the plan encodes video; nil: when
    /// the rate is known) keeps a place for the rate. A narrow terminal leaves out the elapsed time, the rate, the
    /// size and the speed, in that order, to keep a bar of 10 (the percent and the ETA stay); then the bar goes.
    static func bar(_ p: ExportEvent.Progress, columns: Int, framesPerSecond: Bool? = nil) -> String {
        var figures = barFigures(p, framesPerSecond: framesPerSecond ?? (p.fps > 0))
        func joined() -> String { figures.map { String(repeating: " ", count: max(0, $0.width - $0.text.count)) + $0.text }.joined(separator: "  ") }
        while columns - 1 - joined().count - 3 < 10, let least = figures.indices.filter({ figures[$0].rank > 0 }).min(by: { figures[$0].rank < figures[$1].rank }) {
            figures.remove(at: least)
        }
        let text = joined()
        let room = columns - 1 - text.count - 3
        guard room >= 10 else { return String(text.prefix(max(0, columns - 1))) }
        let width = min(40, room)
        let filled = min(width, Int((p.fraction * Double(width)).rounded(.down)))
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: max(0, width - filled))
        return "[\(bar)] " + text
    }

    /// The bar's figures in their order: the text (empty while unknown), the width kept for it, and the rank by
    /// which a narrow terminal leaves it out (lowest first; 0: always shown).
    private static func barFigures(_ p: ExportEvent.Progress, framesPerSecond: Bool) -> [(text: String, width: Int, rank: Int)] {
        var figures = [(text: String(format: "%3d%%", Int((p.fraction * 100).rounded(.down))), width: 4, rank: 0)]
        if framesPerSecond { figures.append((p.fps > 0 ? String(format: "%.0f fps", p.fps) : "", 7, 2)) }
        figures.append((String(format: "%.2fx", p.speed), 6, 4))
        figures.append((clock(p.elapsed), 5, 1))
        figures.append((p.bytesWritten.map { HumanSummary.bytes($0) } ?? "", 8, 3))
        figures.append((p.eta.map { "ETA " + clock($0) } ?? "", 9, 0))
        return figures
    }

    /// `progress  50%  87 fps  1.20x  ETA 0:03`
    static func line(_ p: ExportEvent.Progress) -> String { "progress " + stats(p) }

    private static func stats(_ p: ExportEvent.Progress) -> String {
        var parts = [String(format: "%3d%%", Int((p.fraction * 100).rounded(.down)))]
        if p.fps > 0 { parts.append(String(format: "%.0f fps", p.fps)) }
        parts.append(String(format: "%.2fx", p.speed))
        if let bytes = p.bytesWritten, bytes > 0 { parts.append(HumanSummary.bytes(bytes)) }
        if let eta = p.eta { parts.append("ETA " + clock(eta)) }
        return parts.joined(separator: "  ")
    }

    /// `m:ss` or `h:mm:ss`.
    static func clock(_ seconds: Double) -> String {
        let s = Int(saturating: seconds.rounded())  // an ETA from a file claiming a duration of 1e21 s
        return s >= 3600 ? String(format: "%d:%02d:%02d", s / 3600, (s / 60) % 60, s % 60) : String(format: "%d:%02d", s / 60, s % 60)
    }
}

/// Writes all of `text` to `fd` with write(2), retrying short writes and EINTR; false when a write failed (`errno`
/// says why). Progress drawing calls it directly (FileHandle.write traps when the reader has gone; a lost line is no
/// reason to crash).
@discardableResult
func writeFully(_ fd: Int32, _ text: String) -> Bool {
    var bytes = Array(text.utf8)
    var offset = 0
    while offset < bytes.count {
        let n = bytes.withUnsafeMutableBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
        if n < 0 && errno == EINTR { continue }
        if n <= 0 { return false }
        offset += n
    }
    return true
}

/// Sentences for people about an export.
enum HumanSummary {
    /// What will happen to each stream, e.g. `#0 video h264 → h264 1280x720 (scaled 1920x1080 → 1280x720)`,
    /// `#1 audio aac → aac (downmix 6 → 2 channels)`: each `StreamChange` named.
    static func plan(_ s: ExportEvent.Started) -> [String] {
        // A change is said once: in its stream's line, not again as the note the record also carries for it.
        let inLines = Set(s.streams.flatMap { st in (st.changes ?? []).map { "stream #\(st.index) \(st.type): \($0.description)" } })
        return s.streams.map { st in
            switch st.action {
            case .drop: return "  #\(st.index) \(st.type) \(st.codec): dropped (\(st.reason ?? ""))"
            case .copy: return "  #\(st.index) \(st.type) \(st.codec): copied" + (st.reason.map { " (\($0))" } ?? "")
            case .transcode:
                let size = st.width.map { " \($0)x\(st.height ?? 0)" } ?? ""
                let changes = st.changes.map { " (" + $0.map(\.description).joined(separator: ", ") + ")" } ?? ""
                return "  #\(st.index) \(st.type) \(st.codec) → \(st.outputCodec ?? "?")\(size)\(changes)"
            }
        } + s.notes.filter { !inLines.contains($0) }.map { "  note: \($0)" } + (s.version.flatMap { $0.saysSomething && !$0.warns ? ["  " + version($0)] : nil } ?? [])
    }

    /// `Exported out.mp4: h264 1280x720 + aac, 10.00 s, 4.2 MB in 3.1 s`, then the verification, each line escaped
    /// (`TerminalText`): the result, for stdout. The warnings are `warnings(_:)`, for stderr.
    static func completed(_ c: ExportEvent.Completed) -> String {
        let size = c.width.map { " \($0)x\(c.height ?? 0)" } ?? ""
        var lines: [String] = []
        var line = "Exported \(FileName.displayPath(c.output)): \(c.codecs.joined(separator: " + "))\(size), "
            + String(format: "%.2f s%@, %@", c.duration, partialNote(c.partial), bytes(c.bytes)) + speed(c)
        if let damage = c.damage { line += " (damage: \(damage.summary))" }
        if !c.fallbacks.isEmpty {
            line += " — by \(c.route.rawValue) after " + c.fallbacks.map { "\($0.from.rawValue) failed" }.joined(separator: ", ")
            if let sha = c.sha256 { line += "; SHA-256 \(sha.prefix(16))… matches the source" }
        }
        if let v = c.verification {
            let measured = v.checks.filter { $0.outcome == .passed }.count, skipped = v.checks.count - measured
            lines.append("  verified: \(measured) check\(measured == 1 ? "" : "s") passed" + (skipped > 0 ? ", \(skipped) not measurable" : ""))
        }
        if let q = c.quality { lines.append("  quality: " + q.summary) }
        return TerminalText.lines([line] + lines)
    }

    /// ` in 12.4 s, 3.2× realtime, 96 fps`: the wall time and the speed, as ffmpeg and HandBrake end (the rate and
    /// frames only when both are known and the clock moved).
    static func speed(_ c: ExportEvent.Completed) -> String {
        var text = String(format: " in %.1f s", c.wallTime)
        guard c.wallTime > 0.001 else { return text }
        if c.duration > 0 { text += String(format: ", %.1f× realtime", c.duration / c.wallTime) }
        if let frames = c.videoFrames, frames > 0 { text += String(format: ", %.0f fps", Double(frames) / c.wallTime) }
        return text
    }

    /// One `WARNING: …` line per warning of a completed export (a dropped stream, a partial output), for stderr.
    static func warnings(_ c: ExportEvent.Completed) -> [String] {
        c.warnings.map { "WARNING: \(FileName.display($0))" }
    }

    /// ` (partial, of 6.00 s)` after a partial output's duration; empty for a whole one.
    static func partialNote(_ p: ExportEvent.Partial?) -> String {
        guard let p else { return "" }
        return p.declaredDuration.map { String(format: " (partial, of %.2f s)", $0) } ?? " (partial)"
    }

    /// `version: current delivered (asked current) from IMG_E1234.MOV — rendered edit IMG_E1234.MOV`
    static func version(_ v: VersionReport) -> String {
        let name = FileName.display(PathName.lastComponent(v.resource))
        var line = "version: \(v.delivered.rawValue) delivered (asked \(v.requested.rawValue)) from \(name) [\(v.resourceKind.rawValue)] — \(FileName.display(v.reason))"
        if v.requested != v.delivered { line = "WARNING " + line }
        return TerminalText.escaped(line)
    }

    /// `fallback: transcode → remux: IMG.MOV: decode failed: …`
    static func fallback(_ f: ExportEvent.Fallback) -> String {
        TerminalText.escaped("fallback: \(f.from.rawValue) → \(f.to.rawValue): \(f.reason)")
    }

    /// `4.2 MB`
    static func bytes(_ n: Int64) -> String {
        let units = ["B", "kB", "MB", "GB", "TB"]
        var v = Double(n), i = 0
        while v >= 1000 && i < units.count - 1 { v /= 1000; i += 1 }
        return i == 0 ? "\(n) B" : String(format: "%.1f %@", v, units[i])
    }
}
