import Foundation
import MediaExportCore
import MediaExportFFmpeg

/// What a batch may do with the files already in its output folder: a file it did not write is never replaced
/// unless `--overwrite` (`BatchOptions.overwrite`) says so, `--force` included.
enum BatchOutputs {
    /// What the job may replace at `output` without `--overwrite` (the request's `replaceable`): the file this batch
    /// recorded for the asset (`previous`), proven the very file when the export commits (`FilePlacement`). A file
    /// at `output` now that is not that one (path, size and SHA-256) is foreign: the job fails with
    /// `ExportError.outputNotOwned` before any work. (The recorded file may be at another path: a fallback's byte
    /// copy keeps the source's extension, in `fallback/` by default, so a redo may replace that one.)
    static func replaceable(_ output: String, previous: ExportDatabase.Row?, overwrite: Bool) throws -> [OwnedFile] {
        if overwrite { return [] }
        if FileSystem.exists(output) && !isOwn(output, record: previous) { throw ExportError.outputNotOwned(path: output) }
        return previous?.ownedOutput.map { [$0] } ?? []
    }

    /// True when `recorded`, an earlier run's output, is where this run's options put the asset's output: `output`,
    /// or a byte copy of another container where `--fallback-container` places it. Otherwise the name, the container
    /// or the placement changed, and the asset is exported again.
    static func isPlaced(_ recorded: String, for output: String, options: BatchOptions) -> Bool {
        recorded == output
            || options.fallbackContainer.placement.path(output: output, copyExtension: PathName.pathExtension(recorded).lowercased()) == recorded
    }

    /// True when `output` is what `record` says this batch wrote there (path, size and SHA-256, through `hashes`
    /// when given: a file is hashed once per run).
    static func isOwn(_ output: String, record: ExportDatabase.Row?, hashes: HashCache? = nil) -> Bool {
        isOwn(output, record: record, cached: { hashes?.hash($0) }, store: { hashes?.store($0, $1) })
    }

    /// `isOwn`, looking up and storing hashes through `cached` and `store` (keyed by what any change of the file moves).
    static func isOwn(_ output: String, record: ExportDatabase.Row?, cached: (String) -> String?, store: (String, String) -> Void) -> Bool {
        guard let record, record.outputPath == output, let owned = record.ownedOutput,
              let st = FileSystem.lstat(output), (st.st_mode & S_IFMT) == S_IFREG, Int64(st.st_size) == owned.size else { return false }
        // Keyed by what any change moves (a write in place moves the change time, which no one can set back).
        let key = "output|\(output)|\(st.st_dev)|\(st.st_ino)|\(st.st_size)|\(st.st_mtim.tv_sec).\(st.st_mtim.tv_nsec)|\(st.st_ctim.tv_sec).\(st.st_ctim.tv_nsec)"
        if let known = cached(key) { return known == owned.sha256 }
        guard let sha = try? SHA256Hasher.file(output) else { return false }
        store(key, sha)
        return sha == owned.sha256
    }
}

extension ExportDatabase.Row {
    /// The output this row records, as a file its batch may replace.
    var ownedOutput: OwnedFile? {
        guard let size = outputSize, let sha = outputSHA256 else { return nil }
        return OwnedFile(size: size, sha256: sha)
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
        var request = ThumbnailRequest(input: item.input, output: path, version: options.version, overwrite: options.overwrite,
                                       sandbox: options.outputDirectory)
        // Ours: the SHA-256 recorded (the size is the file's now; both are checked again when it is replaced).
        if let sha = previous?.thumbnailSHA256, let size = FileSystem.size(path) { request.replaceable = [OwnedFile(size: size, sha256: sha)] }
        do {
            record.thumbnailSHA256 = try SHA256Hasher.file(Thumbnailer.make(request).output)
        } catch let error as ExportError {
            record.thumbnailSHA256 = nil
            switch error {
            case .outputExists(let p), .outputNotOwned(let p): return Poster(warning: "poster frame not written: " + ExportError.outputNotOwned(path: p).description)
            default: break
            }
        } catch { record.thumbnailSHA256 = nil }
        return Poster()
    }
}
