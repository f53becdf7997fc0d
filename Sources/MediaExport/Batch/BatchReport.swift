import Foundation
import MediaExportCore
import MediaExportFFmpeg
#if canImport(Glibc)
import Glibc
#endif

/// One row per asset: what was planned, what happened, where the output went.
public struct BatchReportRow: Codable, Sendable, Equatable {
    /// The asset's key: its main file relative to its input (`BatchItem.key`).
    public var key: String
    /// The file that was exported.
    public var input: String
    /// The planned action: `transcode`, `remux`, `copy` or `skip` (`BatchItem.action`).
    public var action: String
    /// Why that action was planned.
    public var reason: String
    /// The asset's state in the output folder (`BatchRowStatus`): `exported`, `unchanged`, `duplicate`, `failed`
    /// (now or in an earlier run), `cancelled`, or `planned` (dry run). Reports written before used `completed` and
    /// `skipped`; `BatchCounts` and `merge` read those too.
    public var status: String
    /// How the output was actually made (`transcode`, `remux`, `copy`); nil when nothing was delivered.
    public var route: String?
    /// How many fallbacks were taken before the output was delivered.
    public var fallbacks: Int
    /// The asset version asked for (`current` or `original`).
    public var versionRequested: String
    /// The version actually delivered; nil when nothing was.
    public var versionDelivered: String?
    /// The output file's path; nil when there is none.
    public var output: String?
    /// Bytes of the source read.
    public var bytesIn: Int64
    /// Bytes of the output; nil when there is none.
    public var bytesOut: Int64?
    /// The planned estimate of the output size in bytes, if made.
    public var estimatedBytes: Int64?
    /// How `estimatedBytes` was made (`BatchItem.estimateMethod`): `samples`, `guess`, `rates` or `source`. JSON only.
    public var estimateMethod: String? = nil
    /// SHA-256 of the output file, hex; nil when there is none.
    public var outputSHA256: String?
    /// Why the export failed or was cancelled; nil otherwise.
    public var error: String?
    /// Seconds the export that made the output (or failed) took, wall clock; nil when there is none.
    public var wallTime: Double?
    /// The poster frame written next to the output (`--thumbnails`).
    public var thumbnail: String? = nil
    /// What was verified and what was dropped, for a completed export.
    public var account: ExportAccount? = nil
    /// For a `duplicate`: the key of the asset whose output this one's is a hard link to (or a copy of).
    public var duplicateOf: String? = nil
    /// When the export that made the output (or failed) ended, ISO 8601 UTC; nil when there is none.
    public var finishedAt: String? = nil
    /// What decoding a sample of the upload's data found (`batch --dry-run --check-data`); nil when not checked.
    /// JSON only.
    public var dataCheck: DataSample? = nil
    /// When a person acknowledged this failed or rejected upload (`--accept`), ISO 8601 UTC: it no longer fails the run.
    public var accepted: String? = nil
    /// Seconds of media: of the output as probed when one was delivered, else of the source (as planned); nil when
    /// not known.
    public var duration: Double? = nil
    /// The shard whose run made the row (`--shard`, `K/N` as given); nil for an unsharded run.
    public var shard: String? = nil
    /// The metadata level the output keeps (`all`, `sharing`, `none`: `MetadataLevel`): the level the delivered
    /// output was made at, else the one the run asks for; nil in reports written before it was kept.
    public var metadata: MetadataLevel? = nil

    /// What of the output is partial, in words (`2.00 s of 6.01 s: the file is truncated`); nil when it is whole.
    public var partialSummary: String? { account?.partial.map(\.summary) }

    /// True for an output that came by a fallback or holds only part of its source (`ExportAccount.partial`): what
    /// makes a batch exit 3, whichever run delivered it.
    public var fellBack: Bool { fallbacks > 0 || account?.partial != nil }

    /// The row for people and reports: every text through `FileName.display`, so a name that is not UTF-8 shows
    /// as `\xE9` and no name can carry a control character into a terminal or a file.
    public var displayed: BatchReportRow {
        var r = self
        let d = FileName.display
        r.key = d(key); r.input = d(input); r.reason = d(reason); r.status = d(status); r.route = route.map(d)
        r.versionRequested = d(versionRequested); r.versionDelivered = versionDelivered.map(d); r.output = output.map(d)
        r.outputSHA256 = outputSHA256.map(d); r.error = error.map(d); r.thumbnail = thumbnail.map(d); r.duplicateOf = duplicateOf.map(d)
        r.account?.warnings = account?.warnings.map(d) ?? []
        return r
    }
}

/// Counts for the summary and the `batchFinished` record.
public struct BatchCounts: Codable, Sendable, Equatable {
    /// Every asset of the batch.
    public var total = 0
    /// Assets completed by a transcode.
    public var transcoded = 0
    /// Assets completed by a remux.
    public var remuxed = 0
    /// Assets completed by a byte copy.
    public var copied = 0
    /// Assets completed by a salvage: the part of a damaged input that decodes (their outputs are partial).
    public var salvaged = 0
    /// Assets whose output came by a fallback or is partial (`BatchReportRow.fellBack`): delivered by this run, or
    /// by an earlier one and left in place (`unchanged`, or a `duplicate` of such an output).
    public var fellBack = 0
    /// The keys of those assets, in the rows' order.
    public var fellBackAssets: [String] = []
    /// Assets this run did not export (unchanged, duplicates of earlier runs, or failed before and not retried).
    public var skipped = 0
    /// Assets exported by an earlier run and unchanged since.
    public var unchanged = 0
    /// Assets whose output is a link to (or copy of) another's, the same content, version and settings.
    public var duplicates = 0
    /// Assets whose output was changed by someone since this batch wrote it: kept as it is (`BatchRowStatus.edited`).
    public var edited = 0
    /// The keys of those assets, in the rows' order.
    public var editedAssets: [String] = []
    /// Assets that are failed now: in this run, or in an earlier one and not retried (but those accepted).
    public var failed = 0
    /// The keys of the failed assets, in the rows' order.
    public var failedAssets: [String] = []
    /// Uploads that are not media (`BatchRowStatus.rejected`), but those accepted.
    public var rejected = 0
    /// The keys of those uploads, in the rows' order.
    public var rejectedAssets: [String] = []
    /// Failed or rejected uploads a person acknowledged (`--accept`): counted here, not as failed or rejected.
    public var accepted = 0
    /// The keys of those uploads, in the rows' order.
    public var acceptedAssets: [String] = []
    /// Assets cancelled, or never started before the batch stopped.
    public var cancelled = 0
    /// Source bytes of the completed assets.
    public var bytesIn: Int64 = 0
    /// Output bytes of the completed assets.
    public var bytesOut: Int64 = 0
    /// Assets whose data a dry run sampled (`--check-data`), those whose sample showed damage, and the seconds it took.
    public var dataChecked = 0
    /// See `dataChecked`.
    public var dataDamaged = 0
    /// See `dataChecked`.
    public var dataCheckSeconds = 0.0

    /// Tallies report rows.
    public init(_ rows: [BatchReportRow] = []) {
        for r in rows {
            total += 1
            if r.action == "skip" { skipped += 1 }
            switch BatchRowStatus.current(r.status, error: r.error) {
            case BatchRowStatus.exported:
                bytesIn += r.bytesIn
                bytesOut += r.bytesOut ?? 0
                switch r.route {
                case "remux": remuxed += 1
                case "copy": copied += 1
                case "salvage": salvaged += 1
                default: transcoded += 1
                }
            case BatchRowStatus.unchanged: unchanged += 1
            case BatchRowStatus.duplicate: duplicates += 1
            case BatchRowStatus.edited: edited += 1; editedAssets.append(r.key)
            case _ where r.accepted != nil: accepted += 1; acceptedAssets.append(r.key)
            case BatchRowStatus.failed: failed += 1; failedAssets.append(r.key)
            case BatchRowStatus.rejected: rejected += 1; rejectedAssets.append(r.key)
            case BatchRowStatus.cancelled: cancelled += 1
            default: break
            }
            if BatchRowStatus.delivered(BatchRowStatus.current(r.status, error: r.error)) && r.fellBack { fellBack += 1; fellBackAssets.append(r.key) }
            if let sample = r.dataCheck { dataChecked += 1; dataDamaged += sample.isDamaged ? 1 : 0; dataCheckSeconds += sample.seconds }
        }
    }
}

/// A batch report as a whole: one row per asset, and every other file of the inputs with why it was not exported
/// as an asset of its own (`BatchPlan.ignored`).
public struct BatchReportDocument: Codable, Sendable, Equatable {
    /// The format's version: 3 (the statuses of `BatchRowStatus`); reports of version 2 (`completed`, `skipped`) and 1 (a bare JSON array of rows) are still read.
    public var version: Int = 3
    /// One row per asset.
    public var rows: [BatchReportRow]
    /// Every other file under the inputs, with why it was not exported as an asset of its own.
    public var ignored: [IgnoredFile]
    /// For a shard's report (`--shard`): the shard and the whole scan it is a share of; nil (absent) for an unsharded
    /// run, a merged report and reports written before. JSON only: a CSV report has no place for it.
    public var shard: BatchShardScan? = nil

    /// Creates a report.
    public init(rows: [BatchReportRow], ignored: [IgnoredFile] = [], shard: BatchShardScan? = nil) {
        self.rows = rows; self.ignored = ignored; self.shard = shard
    }
}

/// Reads, writes and merges batch reports. JSON: `{"version": 3, "rows": [...], "ignored": [...]}`. CSV: a header
/// and one line per row, then one line per ignored file (`status` `ignored`, `action` `skip`, its key in `key`, the
/// file in `input`, why in `reason`, and its kind in the column `ignored`, which is empty on asset rows). The CSV's
/// last columns — `duration`, `partial` (in words), `warnings` (a count, for a spreadsheet's filter), `shard`,
/// `metadata` — are the JSON row's `duration`, `account.partial`, `account.warnings`, `shard` and `metadata`.
///
/// Reports are for people and spreadsheets: every text is written as `FileName.display` shows it. In CSV, a cell
/// that starts with `=`, `+`, `-`, `@`, a tab or a carriage return — which a spreadsheet would run as a formula — is
/// written with a `'` in front, and so is one that starts with `'` itself; `read` removes that one `'`, so a report
/// read back (or merged) has the text that was written.
public enum BatchReport {
    static let columns = ["key", "input", "action", "reason", "status", "route", "fallbacks", "versionRequested", "versionDelivered",
                          "output", "bytesIn", "bytesOut", "estimatedBytes", "outputSHA256", "error", "wallTime", "thumbnail", "ignored", "duplicateOf", "finishedAt",
                          "damage", "duration", "partial", "warnings", "shard", "metadata"]
    /// The columns of a report written before `duration` … `metadata` (issue 46).
    static let columnsVersion4 = Array(columns.dropLast(5))
    /// The columns of a report written before the damage account (`ExportEvent.Damage.summary`, issue 43): for people,
    /// not read back (the JSON report keeps the account whole).
    static let columnsVersion3 = Array(columns.dropLast(6))
    /// The columns of a report written before duplicates and `finishedAt` (issue 31).
    static let columnsVersion2 = Array(columns.dropLast(8))
    /// The columns of a report written before ignored files were listed.
    static let columnsVersion1 = Array(columns.dropLast(9))

    /// Writes rows and ignored files to `path`, as JSON or CSV by its extension (atomically), each `displayed`; times
    /// to the millisecond in both (`JSONTime`).
    public static func write(_ rows: [BatchReportRow], ignored: [IgnoredFile] = [], shard: BatchShardScan? = nil, to path: String,
                             overwrite: Bool = false) throws {
        let shown = BatchReportDocument(rows: rows.map(\.displayed), ignored: ignored.map(\.displayed), shard: shard)
        let data = path.lowercased().hasSuffix(".csv") ? Data(csv(shown).utf8) : try JSONTime.encode(shown, pretty: true)
        try writeAtomically(data, to: path, rule: try replaceable(path, overwrite: overwrite))
    }

    /// What writing a report at `path` may replace: anything with `overwrite`; else a report (a file that reads as
    /// one, checked again by SHA-256 when replaced: `FilePlacement`), and nothing else — any other file there
    /// throws `ExportError.outputNotOwned`. A batch asks before any work, so a report it cannot write stops it early.
    static func replaceable(_ path: String, overwrite: Bool) throws -> FilePlacement.Rule {
        if overwrite { return .any }
        guard let size = FileSystem.lstat(path).map({ Int64($0.st_size) }) else { return .never }
        guard FileSystem.isRegularFile(path), (try? readDocument(path)) != nil, let sha = try? SHA256Hasher.file(path) else {
            throw ExportError.outputNotOwned(path: path)
        }
        return .owned([OwnedFile(size: size, sha256: sha)])
    }

    /// A temporary file beside `path` (named like the exports' own, so a sweep of stale ones finds it; locked while
    /// it exists), then put in place by `FilePlacement` under `rule`.
    static func writeAtomically(_ data: Data, to path: String, rule: FilePlacement.Rule) throws {
        func fail(_ what: String, _ code: Int32 = errno) -> ExportError {
            .outputUnwritable(path: FileName.display(path), reason: "cannot write the report: \(what): \(String(cString: strerror(code)))")
        }
        let folder = open(FileName.cString(PathName.directory(path)), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folder >= 0 else { throw fail("open its folder") }
        defer { close(folder) }
        let name = PathName.lastComponent(path)
        let temporary = FileName.cString(TemporaryFiles.temporaryName(for: name, pid: getpid(), token: "report"))
        unlinkat(folder, temporary, 0)  // our own leftover of this PID, if any
        let fd = openat(folder, temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw fail("create") }
        _ = flock(fd, LOCK_EX)  // held while it exists: another process's sweep leaves a locked temporary file alone
        var written = 0
        let ok = data.withUnsafeBytes { buffer -> Bool in
            while written < buffer.count {
                let n = Glibc.write(fd, buffer.baseAddress! + written, buffer.count - written)  // non-empty: written < count
                if n < 0 { if errno == EINTR { continue }; return false }
                written += n
            }
            return fsync(fd) == 0
        }
        let error = ok ? nil : fail("write")
        close(fd)
        let outcome: FilePlacement.Outcome? = error == nil ? FilePlacement.place(directory: folder, temporary: temporary, final: FileName.cString(name), rule: rule) : nil
        if outcome != .placed { unlinkat(folder, temporary, 0) }
        switch outcome {
        case nil: throw error ?? fail("write")
        case .placed?: return
        case .exists?, .notOwned?: throw ExportError.outputNotOwned(path: path)
        case .failed(let code)?: throw fail("put it in place", code)
        }
    }

    /// Reads the rows of a JSON or CSV report.
    public static func read(_ path: String) throws -> [BatchReportRow] { try readDocument(path).rows }

    /// Reads a JSON or CSV report, rows and ignored files (none in a report of version 1).
    public static func readDocument(_ path: String) throws -> BatchReportDocument {
        let data: Data
        do { data = try FileSystem.read(path, limit: 1 << 30) } catch {
            throw ExportError.inputUnreadable(path: FileName.display(path), reason: "cannot read the report: \(error)")
        }
        if path.lowercased().hasSuffix(".csv") { return try parseCSV(String(decoding: data, as: UTF8.self), path: path) }
        if let document = try? JSONDecoder().decode(BatchReportDocument.self, from: data) { return document }
        do { return BatchReportDocument(rows: try JSONDecoder().decode([BatchReportRow].self, from: data)) } catch {
            throw ExportError.notMedia(path: FileName.display(path), reason: "not a mediaexport JSON report")
        }
    }

    /// Combines the reports of several shards: every row once, sorted by key (a key in two reports keeps the row
    /// whose output is there — `exported`, `unchanged`, `duplicate`, or an older report's `completed` — else the later
    /// one), and each ignored file once, without the files a shard left to another (`notInShard`) that another
    /// planned or ignored for a reason of its own.
    public static func merge(documents: [BatchReportDocument]) -> BatchReportDocument {
        var byKey: [String: BatchReportRow] = [:]
        let delivered = { (r: BatchReportRow) in BatchRowStatus.delivered(BatchRowStatus.current(r.status, error: r.error)) }
        for row in documents.flatMap(\.rows) {
            if let existing = byKey[row.key], delivered(existing), !delivered(row) { continue }
            byKey[row.key] = row
        }
        let rows = byKey.values.sorted { $0.key < $1.key }
        let planned = Set(rows.map(\.input))
        var byPath: [String: IgnoredFile] = [:], order: [String] = []
        for file in documents.flatMap(\.ignored) where !planned.contains(file.path) {
            if let existing = byPath[file.path] {
                if existing.kind == .notInShard && file.kind != .notInShard { byPath[file.path] = file }
                continue
            }
            byPath[file.path] = file
            order.append(file.path)
        }
        return BatchReportDocument(rows: rows, ignored: order.compactMap { byPath[$0] })
    }

    static func csv(_ document: BatchReportDocument) -> String {
        func field(_ value: String?) -> String {
            guard let value else { return "" }
            let s = neutralized(value)
            return s.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) ? "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : s
        }
        var lines = [columns.joined(separator: ",")]
        for r in document.rows {
            let values: [String?] = [r.key, r.input, r.action, r.reason, r.status, r.route, String(r.fallbacks), r.versionRequested,
                                     r.versionDelivered, r.output, String(r.bytesIn), r.bytesOut.map(String.init), r.estimatedBytes.map(String.init),
                                     r.outputSHA256, r.error, r.wallTime.map(Self.seconds), r.thumbnail, nil,
                                     r.duplicateOf, r.finishedAt, r.account?.damage?.summary, r.duration.map(Self.seconds), r.partialSummary,
                                     String(r.account?.warnings.count ?? 0), r.shard, r.metadata?.rawValue]
            lines.append(values.map(field).joined(separator: ","))
        }
        for f in document.ignored {
            let values: [String?] = [f.key, f.path, "skip", f.reason, "ignored", nil, "0", nil, nil, nil, "0", nil, nil,
                                     nil, nil, nil, nil, f.kind.rawValue, nil, nil, nil, nil, nil, "0", nil, nil]
            lines.append(values.map(field).joined(separator: ","))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Seconds for a cell, to the millisecond (`2.002`), as the JSON report rounds them.
    static func seconds(_ value: Double) -> String { String(format: "%.3f", value) }

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

    static func parseCSV(_ text: String, path: String) throws -> BatchReportDocument {
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
        guard let header = records.first, [columns, columnsVersion4, columnsVersion3, columnsVersion2, columnsVersion1].contains(header) else {
            throw ExportError.notMedia(path: FileName.display(path), reason: "not a mediaexport CSV report (unexpected header)")
        }
        var document = BatchReportDocument(rows: [])
        for cells in records.dropFirst() where cells.count == header.count {
            let v = cells.map(unneutralized)
            func opt(_ s: String) -> String? { s.isEmpty ? nil : s }
            if v.count > 17, let kind = IgnoredFile.Kind(rawValue: v[17]) {
                document.ignored.append(IgnoredFile(path: v[1], key: v[0], kind: kind, reason: v[3]))
                continue
            }
            document.rows.append(BatchReportRow(key: v[0], input: v[1], action: v[2], reason: v[3], status: v[4],
                                                route: opt(v[5]), fallbacks: Int(v[6]) ?? 0, versionRequested: v[7], versionDelivered: opt(v[8]),
                                                output: opt(v[9]), bytesIn: Int64(v[10]) ?? 0, bytesOut: Int64(v[11]), estimatedBytes: Int64(v[12]),
                                                outputSHA256: opt(v[13]), error: opt(v[14]), wallTime: Double(v[15]), thumbnail: opt(v[16]),
                                                duplicateOf: v.count > 18 ? opt(v[18]) : nil, finishedAt: v.count > 19 ? opt(v[19]) : nil,
                                                duration: v.count > 21 ? Double(v[21]) : nil, shard: v.count > 24 ? opt(v[24]) : nil,
                                                metadata: v.count > 25 ? MetadataLevel(rawValue: v[25]) : nil))
        }
        return document
    }
}
