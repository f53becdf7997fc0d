import Foundation
import MediaExportCore
import MediaExportFFmpeg

/// What a batch may do with the files already in its output folder: a file it did not write is never replaced
/// unless `--overwrite` (`BatchOptions.overwrite`) says so, `--force` included.
enum BatchOutputs {
    /// Whether the job may replace what is at `output` (the request's `overwrite`): yes when `overwrite` was asked
    /// for, or when the file there is the one this batch wrote (the database's row names that path, and the file
    /// still has the size and SHA-256 recorded). Any other file there is foreign, and the job fails with
    /// `BatchError.foreignOutput`. With nothing there, yes only when the batch's own earlier output is at another
    /// path (a fallback's byte copy keeps the source's extension), so that a redo may replace that one.
    static func mayReplace(_ output: String, previous: ExportDatabase.Row?, overwrite: Bool) throws -> Bool {
        if overwrite { return true }
        guard FileSystem.exists(output) else {
            guard let other = previous?.outputPath, other != output else { return false }
            return isOwn(other, record: previous)
        }
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
