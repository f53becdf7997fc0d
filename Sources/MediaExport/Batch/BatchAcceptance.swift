import Foundation
import MediaExportCore
import MediaExportFFmpeg

/// Uploads a person acknowledged as never exportable (`--accept FILE|KEY`): recorded in the export database, so
/// that every later run still reports them (`failed` or `rejected`, with `accepted`) without failing for them.
extension BatchRunner {
    /// The accepted assets (key → when): the database's, and those `--accept` names now (recorded, unless a dry
    /// run). A value that names no asset of the plan (by key or by file) is a note, never silently dropped.
    func acceptances(_ items: [BatchItem], database: ExportDatabase?, notes: inout [String]) throws -> [String: Double] {
        var accepted = try database?.accepted() ?? [:]
        let now = Date().timeIntervalSince1970
        for value in options.accept {
            let real = FileSystem.realPath(value)
            let matches = items.filter { $0.key == value || $0.input == value || (real != nil && FileSystem.realPath($0.input) == real) }
            guard !matches.isEmpty else {
                let text = "--accept \(FileName.display(value)): no asset of this batch has that key or file; nothing accepted"
                notes.append(text)
                note(text)
                continue
            }
            for item in matches where accepted[item.key] == nil {
                accepted[item.key] = now
                if !options.dryRun { try database?.accept(item.key, at: now) }
            }
        }
        return accepted
    }

    /// `rows` with the acknowledgement on each failed or rejected row of an accepted asset.
    static func marking(_ rows: [BatchReportRow], accepted: [String: Double]) -> [BatchReportRow] {
        rows.map { row in
            guard let time = accepted[row.key], [BatchRowStatus.failed, BatchRowStatus.rejected].contains(row.status) else { return row }
            var marked = row
            marked.accepted = BatchReportRow.timestamp(time)
            return marked
        }
    }
}
