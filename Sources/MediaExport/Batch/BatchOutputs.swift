import Foundation
import MediaExportCore
import MediaExportFFmpeg

/// What a batch may do with the files already in its output folder: a file it did not write is never replaced
/// unless `--overwrite` (`BatchOptions.overwrite`) says so, `--force` included.
enum BatchOutputs {
    /// Whether the job may replace what is at `output`: nothing is there; `overwrite` was asked for; or it is the
    /// file this batch wrote there (the database's row names that path, and the file still has the size and
    /// SHA-256 recorded). Anything else is foreign, and the job fails with `BatchError.foreignOutput`.
    static func mayReplace(_ output: String, previous: ExportDatabase.Row?, overwrite: Bool) throws -> Bool {
        guard FileSystem.exists(output) else { return false }
        if overwrite { return true }
        if isOwn(output, record: previous) { return true }
        throw BatchError.foreignOutput(path: output)
    }

    /// True when `output` is what `record` says this batch wrote there (path, size and SHA-256).
    static func isOwn(_ output: String, record: ExportDatabase.Row?) -> Bool {
        guard let record, record.outputPath == output, let sha = record.outputSHA256, let size = record.outputSize,
              FileSystem.isRegularFile(output), FileSystem.size(output) == size else { return false }
        return (try? SHA256Hasher.file(output)) == sha
    }
}
