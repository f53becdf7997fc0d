import Foundation
import MediaExportCore

/// `regress --html`: one self-contained page (inline CSS, pictures as `data:` URIs, plots as inline SVG, nothing
/// fetched) read as a CI page. At the top the counts, the date, the command line, the baseline and the environment,
/// then every case that did not pass with its cause first; each such case then in full (its differences, the
/// source and the output at the worst frame with per-frame PSNR and SSIM for a transcoded video, and every property
/// against the baseline); the passing cases last, collapsed.
///
/// The date is the one thing that differs between two runs of the same cases: nothing hashes the page.
public enum RegressHTML {
    /// What the page shows.
    public struct Page: Sendable {
        /// The run's cases.
        public var cases: [RegressCase]
        /// The baseline they were compared with.
        public var baseline: Baseline
        /// The baseline's entries the run did not check.
        public var notChecked: [String]
        /// Where the run ran.
        public var context: RegressContext
        /// When the run ended.
        public var date: Date

        /// Creates a page.
        public init(cases: [RegressCase], baseline: Baseline, notChecked: [String] = [], context: RegressContext, date: Date) {
            self.cases = cases; self.baseline = baseline; self.notChecked = notChecked; self.context = context; self.date = date
        }
    }

    /// The page's HTML.
    public static func render(_ page: Page) -> String {
        let numbered = page.cases.enumerated().map { (id: "case-\($0.offset + 1)", c: $0.element) }
        let failing = numbered.filter { $0.c.status != .pass }, passing = numbered.filter { $0.c.status == .pass }
        var html = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        html += "<title>mediaexport regress</title>\n<style>\n\(style)</style>\n</head>\n<body>\n"
        html += header(page) + index(failing)
        for (id, c) in failing { html += section(c, id: id, entry: page.baseline.entries[c.key]) }
        if !passing.isEmpty { html += "<h2>\(passing.count) passed</h2>\n" }
        for (id, c) in passing { html += collapsed(c, id: id, entry: page.baseline.entries[c.key]) }
        if !page.notChecked.isEmpty {
            html += "<details class=\"unchecked\"><summary>\(page.notChecked.count) not checked</summary>\n<ul>\n"
            html += page.notChecked.map { "<li>\(Markup.escape($0))</li>\n" }.joined() + "</ul>\n</details>\n"
        }
        return html + "</body>\n</html>\n"
    }

    /// Renders and writes the page to `path` atomically (a temporary file beside it, then a rename).
    public static func write(_ page: Page, to path: String) throws {
        try BatchReport.writeAtomically(Data(render(page).utf8), to: path, rule: .any)
    }

    /// The counts, then when, how and where the run ran.
    static func header(_ page: Page) -> String {
        let passed = page.cases.filter { $0.status == .pass }.count
        let counts = [RegressCase.Status.fail, .missing, .error].map { s in "\(page.cases.filter { $0.status == s }.count) \(s.rawValue)" }
        var html = "<h1>mediaexport regress</h1>\n"
        html += "<p class=\"summary\"><strong>\(passed) passed, \(page.cases.count - passed) failed</strong> (\(counts.joined(separator: ", ")))"
        html += page.notChecked.isEmpty ? "</p>\n" : ", \(page.notChecked.count) not checked</p>\n"
        let date = ISO8601DateFormatter.string(from: page.date, timeZone: TimeZone(identifier: "UTC")!, formatOptions: [.withInternetDateTime])
        let facts = [("date", date), ("command", page.context.commandLine.joined(separator: " "))] + page.context.properties
        html += "<table class=\"facts\">\n"
        html += facts.map { "<tr><th>\(Markup.escape($0.0))</th><td>\(Markup.escape($0.1))</td></tr>\n" }.joined()
        return html + "</table>\n"
    }

    /// One linked row per case that did not pass: its status, its cause and first difference, the sample, the preset.
    static func index(_ failing: [(id: String, c: RegressCase)]) -> String {
        guard !failing.isEmpty else { return "" }
        var html = "<h2>\(failing.count) failed</h2>\n<table class=\"index\">\n"
        html += "<thead><tr><th>status</th><th>cause, first difference</th><th>sample</th><th>preset</th></tr></thead>\n<tbody>\n"
        for (id, c) in failing {
            html += "<tr><td>\(badge(c.status))</td><td class=\"cause\"><a href=\"#\(id)\">\(Markup.escape(c.headline))</a></td>"
            html += "<td>\(Markup.escape(c.sample))</td><td>\(Markup.escape(c.preset))</td></tr>\n"
        }
        return html + "</tbody>\n</table>\n"
    }

    /// A case that did not pass, in full: its cause first, the differences, the worst frame and plots, the properties.
    static func section(_ c: RegressCase, id: String, entry: Baseline.Entry?) -> String {
        var html = "<section id=\"\(id)\" class=\"case \(c.status.rawValue)\">\n"
        html += "<h3>\(badge(c.status)) \(Markup.escape(c.sample)) <span class=\"preset\">\(Markup.escape(c.preset))</span></h3>\n"
        html += "<p class=\"headline\">\(Markup.escape(c.headline))</p>\n"
        if let message = c.message, c.status == .fail { html += "<p class=\"message\">\(Markup.escape(message))</p>\n" }
        html += differences(c)
        if let q = c.quality { html += worstFrame(q) + plots(q) }
        if let kept = c.keptOutput { html += "<p>output kept: <code>\(Markup.escape(kept))</code></p>\n" }
        html += properties(c, entry: entry, open: false)
        return html + "</section>\n"
    }

    /// A passing case, collapsed to one line.
    static func collapsed(_ c: RegressCase, id: String, entry: Baseline.Entry?) -> String {
        var html = "<details id=\"\(id)\" class=\"case pass\"><summary>\(badge(c.status)) \(Markup.escape(c.sample)) "
        html += "<span class=\"preset\">\(Markup.escape(c.preset))</span> <span class=\"time\">\(String(format: "%.3f s", c.seconds))</span></summary>\n"
        if let q = c.quality { html += worstFrame(q) + plots(q) }
        return html + properties(c, entry: entry, open: true) + "</details>\n"
    }

    /// The differences beyond tolerance, and a stream copy's packets against the source.
    static func differences(_ c: RegressCase) -> String {
        guard !c.differences.isEmpty else { return "" }
        var html = "<table class=\"differences\">\n<thead><tr><th>property</th><th>baseline</th><th>actual</th><th>tolerance</th></tr></thead>\n<tbody>\n"
        for d in c.differences {
            let (expected, measured) = d.property == "packetChecksums" ? ("", d.description) : (d.show(d.expected), d.show(d.measured))
            html += "<tr><th>\(Markup.escape(d.property))</th><td>\(Markup.escape(expected))</td><td>\(Markup.escape(measured))</td>"
            html += "<td>\(Markup.escape(d.allowance ?? "exact"))</td></tr>\n"
        }
        html += "</tbody>\n</table>\n"
        guard let packets = c.packets else { return html }
        return html + "<ul class=\"packets\">\n" + packets.map { "<li>\(Markup.escape($0.description))</li>\n" }.joined() + "</ul>\n"
    }

    /// Every property either side has, behind a `<details>` (`open`: shown at once), with the expected failure.
    static func properties(_ c: RegressCase, entry: Baseline.Entry?, open: Bool) -> String {
        var html = ""
        if let failure = entry?.failure { html += "<p class=\"expected\">baseline expects the failure <code>\(Markup.escape(failure))</code></p>\n" }
        guard c.measurement != nil || entry?.measurement != nil else { return html }
        let table = metrics(actual: c.measurement, baseline: entry?.measurement, failing: Set(c.differences.map(\.property)))
        return html + (open ? table : "<details><summary>every property</summary>\n\(table)</details>\n")
    }

    static func badge(_ status: RegressCase.Status) -> String {
        "<span class=\"badge \(status.rawValue)\">\(status.rawValue.uppercased())</span>"
    }

    /// Every property either side has, sorted by name, rounded to what it means: baseline, actual, and a class for
    /// a difference beyond tolerance (red), a change within it (yellow), or a field never compared (grey).
    static func metrics(actual: MediaExportCore.Measurement?, baseline: MediaExportCore.Measurement?, failing: Set<String>) -> String {
        let a = DisplayedFields.of(actual), b = DisplayedFields.of(baseline)
        var html = "<table class=\"metrics\">\n<thead><tr><th>property</th><th>baseline</th><th>actual</th></tr></thead>\n<tbody>\n"
        for key in Set(a.keys).union(b.keys).sorted() {
            let row = BaselineComparison.neverCompared.contains(key) ? " class=\"info\""
                : failing.contains(key) ? " class=\"beyond\"" : a[key] != b[key] ? " class=\"within\"" : ""
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
    body { font: 14px/1.4 system-ui, sans-serif; margin: 16px 24px; color: #212121; background: #fff; }
    h1 { font-size: 22px; margin: 0 0 4px; }
    h2 { font-size: 17px; margin: 16px 0 4px; }
    h3 { font-size: 16px; margin: 0 0 4px; }
    .preset, .time { color: #616161; font-weight: normal; }
    .summary { font-size: 16px; margin: 4px 0; }
    table { border-collapse: collapse; margin: 6px 0; }
    th, td { border: 1px solid #e0e0e0; padding: 1px 8px; text-align: left; vertical-align: top; }
    td { max-width: 640px; overflow-wrap: anywhere; }
    tbody th, table.facts th { white-space: nowrap; }
    thead th, table.facts th { background: #f5f5f5; }
    table.facts { font-size: 12px; }
    section.case { border-top: 2px solid #bdbdbd; margin-top: 16px; padding-top: 8px; }
    .headline { font-weight: bold; color: #b71c1c; margin: 4px 0; }
    details.case { border-top: 1px solid #e0e0e0; padding: 2px 0; }
    details > summary { cursor: pointer; }
    .badge { display: inline-block; min-width: 64px; padding: 1px 8px; color: #fff; font-weight: bold; text-align: center; border-radius: 3px; }
    .badge.pass { background: #2e7d32; }
    .badge.fail { background: #c62828; }
    .badge.missing { background: #ef6c00; }
    .badge.error { background: #6a1b9a; }
    table.differences td, table.differences th, .packets li { color: #b71c1c; }
    tr.beyond td, tr.beyond th { background: #ffcdd2; }
    tr.within td, tr.within th { background: #fff9c4; }
    tr.info td, tr.info th { color: #757575; }
    .worst, .plots { display: inline-flex; flex-wrap: wrap; gap: 12px; align-items: flex-start; margin: 4px 12px 4px 0; vertical-align: top; }
    figure { margin: 0; }
    figure img { display: block; max-width: 480px; max-height: 270px; border: 1px solid #9e9e9e; }
    figcaption { font-size: 12px; color: #424242; max-width: 480px; }
    svg.plot { border: 1px solid #e0e0e0; background: #fff; }
    svg.plot text { font: 11px system-ui, sans-serif; fill: #424242; }
    svg.plot .axis { stroke: #616161; stroke-width: 1; }
    svg.plot .series { fill: none; stroke: #1565c0; stroke-width: 1.5; }
    svg.plot .mark { fill: #c62828; }

    """
}

/// A measurement's fields as displayed text, by the dotted names `Difference` uses (`color.transfer`), read back from
/// its JSON so every field (and any added later) is shown without listing them here; numbers rounded to what they
/// mean (`Difference.format`), packet checksums shortened per stream.
enum DisplayedFields {
    /// `value`'s fields by name; empty for nil.
    static func of(_ value: MediaExportCore.Measurement?) -> [String: String] {
        guard let value else { return [:] }
        var fields: [String: String] = [:]
        func walk(_ v: JSONValue, _ path: String) {
            switch v {
            case .null: break
            case .object(let o): for (key, child) in o { walk(child, path.isEmpty ? key : "\(path).\(key)") }
            case .number(let n): fields[path] = Difference.format(n, unit: Difference.unit(of: path), property: path)
            case .array(let a) where path == "packetChecksums":
                fields[path] = a.enumerated().map { "#\($0.offset) \(PacketStreams.short($0.element.shown))" }.joined(separator: ", ")
            case .array(let a): fields[path] = a.map(\.shown).joined(separator: ",")
            default: fields[path] = v.shown
            }
        }
        walk(BaselineComparison.value(value), "")
        return fields
    }
}
