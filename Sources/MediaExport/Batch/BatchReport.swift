import Foundation
import MediaExportCore
import MediaExportFFmpeg
#if canImport(Glibc)
import Glibc
#endif

/// One row per asset: what was planned, what happened, where the output went.
public struct BatchReportRow: Codable, Sendable, Equatable {
    public var key: String
    public var input: String
    public var action: BatchAction
    public var reason: String
    /// `completed`, `failed`, `cancelled`, `skipped`, or `planned` (dry run).
    public var status: String
    public var route: String?
    public var fallbacks: Int
    public var versionRequested: String
    public var versionDelivered: String?
    public var output: String?
    public var bytesIn: Int64
    public var bytesOut: Int64?
    public var estimatedBytes: Int64?
    public var outputSHA256: String?
    public var error: String?
    public var wallTime: Double?
    /// The poster frame written next to the output (`--thumbnails`).
    public var thumbnail: String? = nil

    /// The row for people and reports: every text through `FileName.display`, so a name that is not UTF-8 shows
    /// as `\xE9` and no name can carry a control character into a terminal or a file.
    public var displayed: BatchReportRow {
        var r = self
        let d = FileName.display
        r.key = d(key); r.input = d(input); r.reason = d(reason); r.status = d(status); r.route = route.map(d)
        r.versionRequested = d(versionRequested); r.versionDelivered = versionDelivered.map(d); r.output = output.map(d)
        r.outputSHA256 = outputSHA256.map(d); r.error = error.map(d); r.thumbnail = thumbnail.map(d)
        return r
    }
}

/// Counts for the summary and the `batchFinished` record.
public struct BatchCounts: Codable, Sendable, Equatable {
    public var total = 0
    public var transcoded = 0
    public var remuxed = 0
    public var copied = 0
    public var fellBack = 0
    public var skipped = 0
    public var failed = 0
    public var cancelled = 0
    public var bytesIn: Int64 = 0
    public var bytesOut: Int64 = 0

    /// Tallies report rows.
    public init(_ rows: [BatchReportRow] = []) {
        for r in rows {
            total += 1
            switch r.status {
            case "completed":
                bytesIn += r.bytesIn
                bytesOut += r.bytesOut ?? 0
                if r.fallbacks > 0 { fellBack += 1 }
                switch r.route {
                case "remux": remuxed += 1
                case "copy": copied += 1
                default: transcoded += 1
                }
            case "skipped": skipped += 1
            case "failed": failed += 1
            case "cancelled": cancelled += 1
            default: break
            }
        }
    }
}

/// Reads, writes and merges batch reports (`.json`: a list of rows; `.csv`: a header and one line per row).
///
/// Reports are for people and spreadsheets: every text is written as `FileName.display` shows it. In CSV, a cell
/// that starts with `=`, `+`, `-`, `@`, a tab or a carriage return — which a spreadsheet would run as a formula — is
/// written with a `'` in front, and so is one that starts with `'` itself; `read` removes that one `'`, so a report
/// read back (or merged) has the text that was written.
public enum BatchReport {
    static let columns = ["key", "input", "action", "reason", "status", "route", "fallbacks", "versionRequested", "versionDelivered",
                          "output", "bytesIn", "bytesOut", "estimatedBytes", "outputSHA256", "error", "wallTime", "thumbnail"]

    /// Writes rows to `path`, as JSON or CSV by its extension (atomically), each row `displayed`.
    public static func write(_ rows: [BatchReportRow], to path: String) throws {
        let shown = rows.map(\.displayed)
        let data: Data
        if path.lowercased().hasSuffix(".csv") {
            data = Data(csv(shown).utf8)
        } else {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            data = try encoder.encode(shown)
        }
        try writeAtomically(data, to: path)
    }

    /// A temporary file beside `path` (named like the exports' own, so a sweep of stale ones finds it), then `rename`.
    static func writeAtomically(_ data: Data, to path: String) throws {
        let folder = (path as NSString).deletingLastPathComponent
        let name = (path as NSString).lastPathComponent
        let temporary = (folder.isEmpty ? "" : folder + "/") + ".\(name).mediaexport-tmp-\(getpid())-report"
        func fail(_ what: String) -> ExportError {
            .outputUnwritable(path: FileName.display(path), reason: "cannot write the report: \(what): \(String(cString: strerror(errno)))")
        }
        unlink(FileName.cString(temporary))  // our own leftover of this PID, if any
        let fd = open(FileName.cString(temporary), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw fail("create") }
        _ = flock(fd, LOCK_EX)  // held while it exists: another process's sweep leaves a locked temporary file alone
        var written = 0
        let ok = data.withUnsafeBytes { buffer -> Bool in
            while written < buffer.count {
                let n = Glibc.write(fd, buffer.baseAddress! + written, buffer.count - written)
                if n < 0 { if errno == EINTR { continue }; return false }
                written += n
            }
            return fsync(fd) == 0
        }
        let error = ok ? nil : fail("write")
        close(fd)
        if let error { unlink(FileName.cString(temporary)); throw error }
        guard rename(FileName.cString(temporary), FileName.cString(path)) == 0 else {
            let error = fail("rename")
            unlink(FileName.cString(temporary))
            throw error
        }
    }

    /// Reads a JSON or CSV report.
    public static func read(_ path: String) throws -> [BatchReportRow] {
        let data: Data
        do { data = try FileSystem.read(path, limit: 1 << 30) } catch {
            throw ExportError.inputUnreadable(path: FileName.display(path), reason: "cannot read the report: \(error)")
        }
        if path.lowercased().hasSuffix(".csv") { return try parseCSV(String(decoding: data, as: UTF8.self), path: path) }
        do { return try JSONDecoder().decode([BatchReportRow].self, from: data) } catch {
            throw ExportError.notMedia(path: FileName.display(path), reason: "not a mediaexport JSON report")
        }
    }

    /// Combines the reports of several shards: every row once, sorted by key; a key in two reports keeps the
    /// completed row (or the later one).
    public static func merge(_ reports: [[BatchReportRow]]) -> [BatchReportRow] {
        var byKey: [String: BatchReportRow] = [:]
        for rows in reports {
            for row in rows {
                if let existing = byKey[row.key], existing.status == "completed", row.status != "completed" { continue }
                byKey[row.key] = row
            }
        }
        return byKey.values.sorted { $0.key < $1.key }
    }

    static func csv(_ rows: [BatchReportRow]) -> String {
        func field(_ value: String?) -> String {
            guard let value else { return "" }
            let s = neutralized(value)
            return s.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) ? "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : s
        }
        var lines = [columns.joined(separator: ",")]
        for r in rows {
            let values: [String?] = [r.key, r.input, r.action.rawValue, r.reason, r.status, r.route, String(r.fallbacks), r.versionRequested,
                                     r.versionDelivered, r.output, String(r.bytesIn), r.bytesOut.map(String.init), r.estimatedBytes.map(String.init),
                                     r.outputSHA256, r.error, r.wallTime.map { String(format: "%.3f", $0) }, r.thumbnail]
            lines.append(values.map(field).joined(separator: ","))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The characters that make a spreadsheet read a cell as a formula (OWASP's CSV injection list), and `'`,
    /// so that the `'` put in front can always be taken off again.
    static let formulaStarts: Set<Unicode.Scalar> = ["=", "+", "-", "@", "\t", "\r", "'"]

    /// `=HYPERLINK(…)` → `'=HYPERLINK(…)`.
    static func neutralized(_ cell: String) -> String {
        guard let first = cell.unicodeScalars.first, formulaStarts.contains(first) else { return cell }
        return "'" + cell
    }

    /// The text a `neutralized` cell stood for.
    static func unneutralized(_ cell: String) -> String {
        guard cell.unicodeScalars.first == "'", let second = cell.unicodeScalars.dropFirst().first, formulaStarts.contains(second) else { return cell }
        return String(cell.unicodeScalars.dropFirst())
    }

    static func parseCSV(_ text: String, path: String) throws -> [BatchReportRow] {
        var records: [[String]] = []
        var record: [String] = [], fieldText = "", quoted = false
        var chars = Array(text)[...]
        while let c = chars.popFirst() {
            if quoted {
                if c == "\"" { if chars.first == "\"" { fieldText.append("\""); chars.removeFirst() } else { quoted = false } } else { fieldText.append(c) }
            } else if c == "\"" { quoted = true
            } else if c == "," { record.append(fieldText); fieldText = ""
            } else if c == "\n" { record.append(fieldText); records.append(record); record = []; fieldText = ""
            } else { fieldText.append(c) }
        }
        if !fieldText.isEmpty || !record.isEmpty { record.append(fieldText); records.append(record) }
        guard let header = records.first, header == columns else {
            throw ExportError.notMedia(path: FileName.display(path), reason: "not a mediaexport CSV report (unexpected header)")
        }
        return records.dropFirst().filter { $0.count == columns.count }.map { cells in
            let v = cells.map(unneutralized)
            func opt(_ s: String) -> String? { s.isEmpty ? nil : s }
            return BatchReportRow(key: v[0], input: v[1], action: BatchAction(rawValue: v[2]) ?? .transcode, reason: v[3], status: v[4],
                                  route: opt(v[5]), fallbacks: Int(v[6]) ?? 0, versionRequested: v[7], versionDelivered: opt(v[8]),
                                  output: opt(v[9]), bytesIn: Int64(v[10]) ?? 0, bytesOut: Int64(v[11]), estimatedBytes: Int64(v[12]),
                                  outputSHA256: opt(v[13]), error: opt(v[14]), wallTime: Double(v[15]), thumbnail: opt(v[16]))
        }
    }
}
