import Foundation
import MediaExportCore

/// `regress --html`: one self-contained page (inline CSS, pictures as `data:` URIs, plots as inline SVG, nothing
/// fetched) with a summary, then per case its status, every measured property against the baseline (differences
/// beyond tolerance in red, changes within it in yellow) and, for a transcoded video measured with
/// `RegressRunner.collectFrames`, the source and the output at the worst frame and the per-frame PSNR and SSIM.
///
/// The page depends only on its input: no dates, no random ids, keys sorted.
public enum RegressHTML {
    /// The page for `cases`, compared with `baseline`.
    public static func render(cases: [RegressCase], baseline: Baseline) -> String {
        var html = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        html += "<title>mediaexport regress</title>\n<style>\n\(style)</style>\n</head>\n<body>\n"
        html += summary(cases)
        for (n, c) in cases.enumerated() { html += section(c, id: "case-\(n + 1)", entry: baseline.entries[c.key]) }
        return html + "</body>\n</html>\n"
    }

    /// Renders and writes the page to `path` atomically (a temporary file beside it, then a rename).
    public static func write(cases: [RegressCase], baseline: Baseline, to path: String) throws {
        try BatchReport.writeAtomically(Data(render(cases: cases, baseline: baseline).utf8), to: path, rule: .any)
    }

    /// The headline counts (as the terminal's last line) and one linked row per case.
    static func summary(_ cases: [RegressCase]) -> String {
        let passed = cases.filter { $0.status == .pass }.count
        let counts = [RegressCase.Status.fail, .missing, .error].map { s in "\(cases.filter { $0.status == s }.count) \(s.rawValue)" }
        var html = "<h1>mediaexport regress</h1>\n"
        html += "<p class=\"summary\"><strong>\(passed) passed, \(cases.count - passed) failed</strong> (\(counts.joined(separator: ", ")))</p>\n"
        html += "<table class=\"index\">\n<thead><tr><th>status</th><th>sample</th><th>preset</th><th>first difference</th></tr></thead>\n<tbody>\n"
        for (n, c) in cases.enumerated() {
            let note = c.differences.first?.description ?? c.message ?? ""
            html += "<tr><td>\(badge(c.status))</td><td><a href=\"#case-\(n + 1)\">\(Markup.escape(c.sample))</a></td>"
            html += "<td>\(Markup.escape(c.preset))</td><td>\(Markup.escape(note))</td></tr>\n"
        }
        return html + "</tbody>\n</table>\n"
    }

    /// One case: heading, message, differences, the worst frame and plots, and the property table.
    static func section(_ c: RegressCase, id: String, entry: Baseline.Entry?) -> String {
        var html = "<section id=\"\(id)\" class=\"case \(c.status.rawValue)\">\n"
        html += "<h2>\(badge(c.status)) \(Markup.escape(c.sample)) <span class=\"preset\">\(Markup.escape(c.preset))</span></h2>\n"
        if let message = c.message { html += "<p class=\"message\">\(Markup.escape(message))</p>\n" }
        if !c.differences.isEmpty {
            html += "<ul class=\"differences\">\n"
            for d in c.differences {
                html += "<li><strong>\(Markup.escape(d.property))</strong>: baseline \(Markup.escape(d.baseline)), actual \(Markup.escape(d.actual))</li>\n"
            }
            html += "</ul>\n"
        }
        if let q = c.quality { html += worstFrame(q) + plots(q) }
        if let failure = entry?.failure { html += "<p class=\"expected\">baseline expects the failure <code>\(Markup.escape(failure))</code></p>\n" }
        if c.measurement != nil || entry?.measurement != nil {
            html += metrics(actual: c.measurement, baseline: entry?.measurement, failing: Set(c.differences.map(\.property)))
        }
        return html + "</section>\n"
    }

    static func badge(_ status: RegressCase.Status) -> String {
        "<span class=\"badge \(status.rawValue)\">\(status.rawValue.uppercased())</span>"
    }

    /// Every property either side has, sorted by name: baseline, actual, and a class for differences.
    static func metrics(actual: MediaExportCore.Measurement?, baseline: MediaExportCore.Measurement?, failing: Set<String>) -> String {
        let a = DisplayedFields.of(actual), b = DisplayedFields.of(baseline)
        var html = "<table class=\"metrics\">\n<thead><tr><th>property</th><th>baseline</th><th>actual</th></tr></thead>\n<tbody>\n"
        for key in Set(a.keys).union(b.keys).sorted() {
            let row = failing.contains(key) ? " class=\"beyond\"" : a[key] != b[key] ? " class=\"within\"" : ""
            html += "<tr\(row)><th>\(Markup.escape(key))</th><td>\(Markup.escape(b[key] ?? "—"))</td><td>\(Markup.escape(a[key] ?? "—"))</td></tr>\n"
        }
        return html + "</tbody>\n</table>\n"
    }

    /// The source and the output side by side at the worst frame.
    static func worstFrame(_ q: QualityDetail) -> String {
        guard let worst = q.worst, let source = q.sourcePNG, let output = q.outputPNG else { return "" }
        var html = "<div class=\"worst\">\n"
        html += figure(source, alt: "source", caption: String(format: "source at %.3f s (scaled to the output's size), luma", q.worstSourceTime))
        html += figure(output, alt: "output", caption: String(format: "output at %.3f s: worst frame, PSNR %.2f dB, SSIM %.4f", worst.time, worst.psnr, worst.ssim))
        return html + "</div>\n"
    }

    static func figure(_ png: Data, alt: String, caption: String) -> String {
        "<figure><img alt=\"\(alt)\" src=\"data:image/png;base64,\(png.base64EncodedString())\">"
            + "<figcaption>\(Markup.escape(caption))</figcaption></figure>\n"
    }

    /// PSNR and SSIM against output time, the worst frame marked.
    static func plots(_ q: QualityDetail) -> String {
        let times = q.frames.map(\.time)
        return "<div class=\"plots\">\n"
            + SeriesPlot(title: "PSNR (dB)", times: times, values: q.frames.map(\.psnr), decimals: 2, mark: q.worstIndex).svg
            + SeriesPlot(title: "SSIM", times: times, values: q.frames.map(\.ssim), decimals: 4, mark: q.worstIndex).svg
            + "</div>\n"
    }

    static let style = """
    body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #212121; background: #fff; }
    h1 { font-size: 22px; margin: 0 0 8px; }
    h2 { font-size: 17px; margin: 0 0 8px; }
    .preset { color: #616161; font-weight: normal; }
    .summary { font-size: 16px; }
    table { border-collapse: collapse; margin: 8px 0; }
    th, td { border: 1px solid #e0e0e0; padding: 2px 8px; text-align: left; vertical-align: top; }
    td { max-width: 420px; overflow-wrap: anywhere; }
    tbody th { white-space: nowrap; }
    thead th { background: #f5f5f5; }
    section.case { border-top: 2px solid #bdbdbd; margin-top: 24px; padding-top: 12px; }
    .badge { display: inline-block; min-width: 64px; padding: 2px 8px; color: #fff; font-weight: bold; text-align: center; border-radius: 3px; }
    .badge.pass { background: #2e7d32; }
    .badge.fail { background: #c62828; }
    .badge.missing { background: #ef6c00; }
    .badge.error { background: #6a1b9a; }
    .differences li { color: #b71c1c; }
    tr.beyond td, tr.beyond th { background: #ffcdd2; }
    tr.within td, tr.within th { background: #fff9c4; }
    .worst, .plots { display: flex; flex-wrap: wrap; gap: 16px; align-items: flex-start; }
    figure { margin: 0; }
    figure img { display: block; max-width: 480px; border: 1px solid #9e9e9e; }
    figcaption { font-size: 12px; color: #424242; max-width: 480px; }
    svg.plot { border: 1px solid #e0e0e0; background: #fff; }
    svg.plot text { font: 11px system-ui, sans-serif; fill: #424242; }
    svg.plot .axis { stroke: #616161; stroke-width: 1; }
    svg.plot .series { fill: none; stroke: #1565c0; stroke-width: 1.5; }
    svg.plot .mark { fill: #c62828; }

    """
}

/// A line plot of one series against time, as inline SVG: axes with their end values, the series as a polyline,
/// and one point marked.
struct SeriesPlot {
    var title: String
    var times: [Double]
    var values: [Double]
    var decimals: Int
    var mark: Int
    let width = 520.0, height = 200.0, left = 64.0, right = 16.0, top = 24.0, bottom = 36.0

    var svg: String {
        guard !values.isEmpty, values.count == times.count else { return "" }
        let (t0, t1) = Self.range(times), (v0, v1) = Self.range(values)
        func x(_ t: Double) -> String { format((left + (t - t0) / (t1 - t0) * (width - left - right)), 1) }
        func y(_ v: Double) -> String { format((height - bottom - (v - v0) / (v1 - v0) * (height - top - bottom)), 1) }
        let points = zip(times, values).map { "\(x($0)),\(y($1))" }.joined(separator: " ")
        let (xl, xr, yb, yt) = (format(left, 1), format(width - right, 1), format(height - bottom, 1), format(top, 1))
        var s = "<svg class=\"plot\" width=\"\(Int(width))\" height=\"\(Int(height))\" "
        s += "viewBox=\"0 0 \(Int(width)) \(Int(height))\" role=\"img\" aria-label=\"\(Markup.escape(title)) per frame\">\n"
        s += "<text x=\"\(xl)\" y=\"16\">\(Markup.escape(title)) per frame</text>\n"
        s += "<line class=\"axis\" x1=\"\(xl)\" y1=\"\(yb)\" x2=\"\(xr)\" y2=\"\(yb)\"/>\n"
        s += "<line class=\"axis\" x1=\"\(xl)\" y1=\"\(yt)\" x2=\"\(xl)\" y2=\"\(yb)\"/>\n"
        s += "<text x=\"\(format(left - 4, 1))\" y=\"\(format(top + 4, 1))\" text-anchor=\"end\">\(format(v1, decimals))</text>\n"
        s += "<text x=\"\(format(left - 4, 1))\" y=\"\(yb)\" text-anchor=\"end\">\(format(v0, decimals))</text>\n"
        s += "<text x=\"\(xl)\" y=\"\(format(height - bottom + 14, 1))\" text-anchor=\"middle\">\(format(t0, 2))</text>\n"
        s += "<text x=\"\(xr)\" y=\"\(format(height - bottom + 14, 1))\" text-anchor=\"end\">\(format(t1, 2))</text>\n"
        s += "<text x=\"\(format((left + width - right) / 2, 1))\" y=\"\(format(height - 6, 1))\" text-anchor=\"middle\">output time (s)</text>\n"
        s += "<polyline class=\"series\" points=\"\(points)\"/>\n"
        if values.indices.contains(mark) {
            s += "<circle class=\"mark\" cx=\"\(x(times[mark]))\" cy=\"\(y(values[mark]))\" r=\"4\"><title>worst frame: "
            s += "\(format(values[mark], decimals)) at \(format(times[mark], 3)) s</title></circle>\n"
        }
        return s + "</svg>\n"
    }

    /// The lowest and highest value, widened to a non-empty range.
    static func range(_ values: [Double]) -> (Double, Double) {
        guard let lo = values.min(), let hi = values.max() else { return (0, 1) }
        let pad = hi - lo > 1e-9 ? 0 : max(abs(hi) * 0.01, 0.001)
        return (lo - pad, hi + pad)
    }

    func format(_ value: Double, _ decimals: Int) -> String { String(format: "%.\(decimals)f", value) }
}

/// A measurement's fields as displayed text, by the dotted names `Difference` uses (`color.transfer`), read back from
/// its JSON so every field (and any added later) is shown without listing them here.
enum DisplayedFields {
    /// `value`'s fields by name; empty for nil.
    static func of<T: Encodable>(_ value: T?) -> [String: String] {
        guard let value, let data = try? JSONEncoder().encode(value),
              let tree = try? JSONDecoder().decode(JSONValue.self, from: data) else { return [:] }
        return Dictionary(tree.leaves().filter { $0.value != "null" }, uniquingKeysWith: { first, _ in first })
    }
}

/// Escaping for XML and HTML text and attribute values (JUnit and the HTML report), so any CI parses the file:
/// what XML 1.0 forbids (C0 controls, U+FFFE, U+FFFF; tab shown too, newline kept) and what a page should not obey
/// (C1 controls, bidirectional controls) is shown as `TerminalText.escaped` shows it (`\u{1B}`), a raw byte of a name
/// as `\xFF`.
enum Markup {
    /// `s` shown visibly as above, line by line (newlines kept), then `&`, `<`, `>`, `"` and `'` as character references.
    static func escape(_ s: String) -> String {
        s.split(separator: "\n", omittingEmptySubsequences: false).map { visible(String($0)) }.joined(separator: "\n")
            .replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
            .replacingOccurrences(of: "'", with: "&#39;")
    }

    /// One line with its controls, raw bytes and the noncharacters U+FFFE and U+FFFF as escapes.
    static func visible(_ line: String) -> String {
        TerminalText.escaped(line).replacingOccurrences(of: "\u{FFFE}", with: "\\u{FFFE}")
            .replacingOccurrences(of: "\u{FFFF}", with: "\\u{FFFF}")
    }
}
