import Foundation
import MediaExportCore

/// `regress --junit`: JUnit XML as CI systems read it. One test suite with the run's environment and baseline in
/// `<properties>`; one test case per sample × preset, `classname` `regress.PRESET` (dots made `_`, so no CI splits
/// it into packages) and `name` the sample's key; a failure's `type` is its cause's kind; a kept output is an
/// attachment (`[[ATTACHMENT|path]]` in `system-out`); a baseline entry the run did not check is `<skipped>` (the
/// run still exits 4 without `--subset`). No date: the same run gives the same file.
public enum RegressJUnit {
    /// The document for `cases`, and the baseline's entries `notChecked` (`subset`: on purpose).
    public static func render(_ cases: [RegressCase], notChecked: [String] = [], subset: Bool = false, context: RegressContext) -> String {
        let failures = cases.filter { $0.status == .fail || $0.status == .missing }.count
        let errors = cases.filter { $0.status == .error }.count
        let counts = "tests=\"\(cases.count + notChecked.count)\" failures=\"\(failures)\" errors=\"\(errors)\" "
            + "skipped=\"\(notChecked.count)\" time=\"\(seconds(cases.reduce(0) { $0 + $1.seconds }))\""
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"mediaexport regress\" \(counts)>\n"
        xml += "  <testsuite name=\"mediaexport regress\" \(counts)>\n    <properties>\n"
        for (name, value) in context.properties + [("commandLine", context.commandLine.joined(separator: " "))] {
            xml += "      <property name=\"\(esc(name))\" value=\"\(esc(value))\"/>\n"
        }
        xml += "    </properties>\n"
        xml += cases.map(testcase).joined()
        let reason = subset ? "not checked (--subset)" : "not checked by this run: the baseline holds it (exit 4 without --subset)"
        for key in notChecked {
            let cut = key.lastIndex(of: "|") ?? key.endIndex
            let preset = cut < key.endIndex ? String(key[key.index(after: cut)...]) : ""
            xml += "    <testcase classname=\"\(esc(classname(preset)))\" name=\"\(esc(String(key[..<cut])))\" time=\"0.000\">\n"
            xml += "      <skipped message=\"\(esc(reason))\"/>\n    </testcase>\n"
        }
        return xml + "  </testsuite>\n</testsuites>\n"
    }

    /// `regress.PRESET`, the preset's dots made `_`.
    public static func classname(_ preset: String) -> String { "regress." + preset.replacingOccurrences(of: ".", with: "_") }

    /// The kind of a case that did not pass, as `<failure type>` / `<error type>`: its cause's kind, else `differs`,
    /// `notInBaseline` or `exportFailed`.
    public static func type(_ c: RegressCase) -> String {
        if let cause = c.cause { return cause.kind.rawValue }
        switch c.status {
        case .pass, .fail: return "differs"
        case .missing: return "notInBaseline"
        case .error: return "exportFailed"
        }
    }

    static func testcase(_ c: RegressCase) -> String {
        var xml = "    <testcase classname=\"\(esc(classname(c.preset)))\" name=\"\(esc(c.sample))\" time=\"\(seconds(c.seconds))\""
        guard c.status != .pass else { return xml + "/>\n" }
        let element = c.status == .error ? "error" : "failure"
        let message = c.headline.isEmpty ? type(c) : c.headline
        let body = [c.cause?.description] + c.differences.map(\.description) + (c.packets ?? []).map(\.description)
        xml += ">\n      <\(element) type=\"\(esc(type(c)))\" message=\"\(esc(message))\">"
        xml += esc(body.compactMap { $0 }.joined(separator: "\n")) + "</\(element)>\n"
        if let kept = c.keptOutput { xml += "      <system-out>[[ATTACHMENT|\(esc(kept))]]</system-out>\n" }
        return xml + "    </testcase>\n"
    }

    static func esc(_ s: String) -> String { Markup.escape(s) }

    static func seconds(_ s: Double) -> String { String(format: "%.3f", s) }
}
