import Foundation
import MediaExportCore

/// Events of a batch: the plan, every job's export events tagged with its job id, and one final record.
public enum BatchEvent: Sendable {
    /// One per asset, before any work.
    case planned(BatchItem)
    /// A job changed state (`waiting`, `exporting`, `completed`, `failed`, `cancelled`). `key` is the asset's key
    /// as shown to people (`FileName.display`), as in every event of a job.
    case job(id: Int, key: String, status: ExportSession.Status)
    /// An export event of a job.
    case export(id: Int, key: String, event: ExportEvent)
    /// The batch is over.
    case finished(BatchFinished)

    /// The final record's payload.
    public struct BatchFinished: Codable, Sendable, Equatable {
        /// How many assets were planned, transcoded, remuxed, copied, skipped, failed or cancelled, and the bytes in and out.
        public var counts: BatchCounts
        /// How the batch ended as a whole; the CLI adds its exit code to the record.
        public var outcome: BatchOutcome
        /// True when the batch only planned and estimated (`--dry-run`) and exported nothing.
        public var dryRun: Bool
        /// The export database's path, shown with `FileName.display`; nil when none was used.
        public var database: String?
        /// The report's path, shown with `FileName.display`; nil when none was written.
        public var report: String?
        /// Seconds the whole batch took, wall clock.
        public var wallTime: Double
        /// What a person should know about the inputs (see `BatchPlan.notes`), and "no media found".
        public var notes: [String] = []
        /// Every file under the inputs that is not exported as an asset of its own, with the reason.
        public var ignored: [IgnoredFile] = []
    }
}

/// How a batch ended as a whole, worst first.
public enum BatchOutcome: String, Codable, Sendable {
    /// Cancelled (`cancel()` or the task).
    case cancelled
    /// The inputs hold no media at all.
    case noMedia
    /// An asset failed, was cancelled, or was skipped as failed in an earlier run.
    case failed
    /// Every asset was delivered, some by a fallback (remux, salvage or byte copy) or partial — in this run, or in an
    /// earlier one whose output is left in place.
    case completedWithFallback
    /// Every asset completed (or was already done).
    case completed
}

/// The outcome of a batch.
public struct BatchResult: Sendable {
    /// One row per asset: what was planned, what happened, where the output went.
    public var rows: [BatchReportRow]
    /// The tallies of `rows`.
    public var counts: BatchCounts
    /// How it ended (the CLI's exit code: 0 completed, 3 with fallbacks or partial outputs, 1 failed, 66 no media, 130 cancelled).
    public var outcome: BatchOutcome
    /// What a person should know about the inputs (see `BatchPlan.notes`), and "no media found".
    public var notes: [String] = []
    /// Every file under the inputs that is not exported as an asset of its own, with the reason (`BatchPlan.ignored`).
    public var ignored: [IgnoredFile] = []
    /// Wall-clock seconds the batch took, planning included.
    public var wallTime: Double = 0
}
