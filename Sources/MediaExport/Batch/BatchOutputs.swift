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

extension BatchRunner {
    /// A poster frame written (or not) next to an output.
    struct Poster { var warning: String? }

    /// A poster frame next to the output (`clip.mp4` → `clip.jpg`), its SHA-256 recorded in `record`; none for assets
    /// without video. A poster that cannot be made never fails the job. A file there that this batch did not write
    /// (not the SHA-256 recorded) is left alone unless `--overwrite`, and said (the returned warning, in the row's).
    func poster(for item: BatchItem, output: String, previous: ExportDatabase.Row?, record: inout ExportDatabase.Row) -> Poster {
        let path = PathName.deletingExtension(output) + ".jpg"
        let ours = previous?.thumbnailSHA256.map { (try? SHA256Hasher.file(path)) == $0 } ?? false
        if FileSystem.exists(path) && !options.overwrite && !ours {
            record.thumbnailSHA256 = nil
            return Poster(warning: "poster frame not written: " + BatchError.foreignOutput(path: path).description)
        }
        let request = ThumbnailRequest(input: item.input, output: path, version: options.version, overwrite: true,
                                       sandbox: options.outputDirectory)
        guard let made = (try? Thumbnailer.make(request))?.output else { return Poster() }
        record.thumbnailSHA256 = try? SHA256Hasher.file(made)
        return Poster()
    }
}
