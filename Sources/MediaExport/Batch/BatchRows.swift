import Foundation
import MediaExportCore
import MediaExportFFmpeg

/// The statuses of a batch report's asset rows: the state of the output folder after the run.
public enum BatchRowStatus {
    /// Exported by this run.
    public static let exported = "exported"
    /// Exported by an earlier run with the same source, version and settings (as a duplicate too: `duplicateOf` says
    /// so); its output is there as recorded.
    public static let unchanged = "unchanged"
    /// Written by an earlier run and changed since by someone else (not the SHA-256 recorded): kept as it is, not
    /// replaced (unless `--overwrite`), and not counted as failed.
    public static let edited = "edited"
    /// The same content, version and settings as another asset (`duplicateOf`): given that one's output by this run
    /// (`DuplicateOutput`: a copy, a hard link, or nothing).
    public static let duplicate = "duplicate"
    /// Failed, in this run or an earlier one (`finishedAt` says when, `error` why).
    public static let failed = "failed"
    /// An upload that can never be exported (not media: empty, text, an unknown format), not tried; `error` says why.
    /// Not a failure of the run unless `--strict`.
    public static let rejected = "rejected"
    /// The batch stopped before this asset's export ended.
    public static let cancelled = "cancelled"
    /// A dry run's asset that the run would export.
    public static let planned = "planned"
    /// Not started yet (only while the batch runs).
    static let waiting = "waiting"

    /// The status an older report wrote, in this version's words (`completed` → `exported`, `skipped` → `unchanged`, or
    /// `failed` when the row has an error).
    static func current(_ status: String, error: String?) -> String {
        switch status {
        case "completed": return exported
        case "skipped": return error == nil ? unchanged : failed
        default: return status
        }
    }

    /// True for a row whose output is in the folder.
    public static func delivered(_ status: String) -> Bool { [exported, unchanged, duplicate].contains(status) }
}

extension BatchReportRow {
    /// The one way a batch makes an asset's row: the plan's item, and what the export database records of it —
    /// this run's job or an earlier run's (nil: no record to show) — under `status`. A delivered row gives the
    /// output (only when the file is there), its bytes, SHA-256, route, versions and verification; a failed row
    /// gives when and why.
    init(item: BatchItem, versionRequested: String, status: String, record: ExportDatabase.Row?) {
        self.init(key: item.key, input: item.input, action: item.action, reason: item.reason, status: status, route: nil, fallbacks: 0,
                  versionRequested: versionRequested, versionDelivered: nil, output: nil, bytesIn: item.sourceBytes, bytesOut: nil,
                  estimatedBytes: item.estimatedBytes, outputSHA256: nil, error: nil, wallTime: nil)
        estimateMethod = item.estimatedBytes == nil ? nil : item.estimateMethod
        if status == BatchRowStatus.planned { output = item.output }  // a dry run's plan: where the output would go
        duration = item.duration
        dataCheck = item.dataCheck
        if status == BatchRowStatus.rejected { error = item.rejection }
        guard let record else { return }
        finishedAt = record.finishedAt.map(Self.timestamp)
        wallTime = record.wallTime
        guard BatchRowStatus.delivered(status) else {
            if status == BatchRowStatus.edited { output = record.outputPath }
            error = record.error
            return
        }
        route = record.route
        fallbacks = record.fallbacks
        versionDelivered = record.versionDelivered
        account = record.account
        duration = record.account?.duration ?? item.duration
        metadata = record.account.map { $0.metadata?.level ?? .all }
        duplicateOf = record.duplicateOf
        if let path = record.outputPath, FileSystem.isRegularFile(path) {
            output = path
            bytesOut = record.outputSize
            outputSHA256 = record.outputSHA256
            let poster = PathName.deletingExtension(path) + ".jpg"
            if let sha = record.thumbnailSHA256, FileSystem.isRegularFile(poster), (try? SHA256Hasher.file(poster)) == sha { thumbnail = poster }
        }
    }

    /// The row as the report gives it: the run's shard, and the metadata level the run asks for where no delivered
    /// output says its own.
    func stamped(shard: BatchOptions.Shard?, metadata level: MetadataLevel) -> BatchReportRow {
        var row = self
        row.shard = shard?.description
        row.metadata = metadata ?? level
        return row
    }

    /// The row's status before the jobs run: a skipped item is `unchanged` (or `edited`) or `failed` as the
    /// database records it; the others are `planned` in a dry run, else `waiting`.
    static func initialStatus(of item: BatchItem, record: ExportDatabase.Row?, dryRun: Bool) -> String {
        guard item.route == nil else { return dryRun ? BatchRowStatus.planned : BatchRowStatus.waiting }
        if item.rejection != nil { return BatchRowStatus.rejected }
        guard record?.status == "completed" else { return BatchRowStatus.failed }
        return item.outputEdited == true ? BatchRowStatus.edited : BatchRowStatus.unchanged
    }

    /// Seconds since 1970 → ISO 8601, UTC, to the second.
    static func timestamp(_ seconds: Double) -> String { JSONTime.iso8601(seconds) }
}
