import Foundation
import MediaExport

/// Words for a package run: one line per rung on stderr as it is done, and the summary.
enum PackageRenderer {
    /// A progress event as a line for stderr, or nil (the rungs' own progress is not drawn: one line each when done).
    static func progress(_ event: PackageProgress) -> String? {
        switch event {
        case .planned(let plan):
            let left = plan.omitted.keys.sorted().map { "\($0) (\(omission(plan.omitted[$0]!)))" }
            return "ladder: \(plan.rungs.map(\.name).joined(separator: ", "))" + (left.isEmpty ? "" : "; left out: " + left.joined(separator: ", "))
        case .rungStarted, .rungProgress, .step: return nil
        case .rungDone(let name, let completed):
            let crf = completed.settings?.crf.map { ", CRF \($0)" } ?? ""
            return String(format: "%@: %dx%d, %@%@, in %.1f s", name, completed.width ?? 0, completed.height ?? 0,
                          HumanSummary.bytes(completed.bytes), crf, completed.wallTime)
        }
    }

    /// The closing summary for stderr, one line each: the package, its loudness.
    static func summary(_ record: PackageRecord, folder: String) -> [String] {
        let rungs = record.rungs.map { String(format: "%@ %.2f Mb/s", $0.name, Double($0.bandwidth) / 1e6) }.joined(separator: ", ")
        let segments = record.rungs.first?.segments ?? 0
        return ["Packaged \(record.source.name) → \(folder): \(record.rungs.count) rungs (\(rungs)), \(segments) segments of "
            + String(format: "%g s", record.ladder.segmentSeconds) + "; validated: \(record.validation.checks) checks"
] + (record.loudness.map { ["loudness: " + $0.summary] } ?? [])
    }

    private static func omission(_ reason: RungOmission) -> String {
        switch reason {
        case .aboveSource(let short): return "source is \(short)p"
        case .closeToRungAbove(let name): return "close to \(name)"
        }
    }
}
