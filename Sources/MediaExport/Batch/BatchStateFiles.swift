import Foundation
import MediaExportCore
import MediaExportFFmpeg
#if canImport(Glibc)
import Glibc
#endif

/// The files a batch keeps in its output folder, named by shard so that the shards of one batch share one `--out`:
/// a run without `--shard` keeps `.mediaexport.sqlite` and `.mediaexport.lock`; shard K of N keeps
/// `.mediaexport.shard-K-of-N.sqlite` and `.mediaexport.shard-K-of-N.lock` beside the other shards' files.
/// Two layouts in one folder (a plain run and shards, or shards of two counts) would own some assets twice:
/// `checkLayout` refuses that.
enum BatchStateFiles {
    /// The name of this shard's state file ending in `suffix`, `.sqlite` (the export database) or `.lock` (nil: a run
    /// without `--shard`, whose files are `ExportDatabase.fileName` and `BatchLock.fileName`).
    static func name(_ shard: BatchOptions.Shard?, _ suffix: String) -> String {
        ".mediaexport" + (shard.map { ".shard-\($0.index)-of-\($0.count)" } ?? "") + suffix
    }

    /// The layout a state file's name belongs to: `.some(nil)` for the plain run's, `.some(shard)` for a shard's,
    /// nil for any other name. `suffix` is `.sqlite` or `.lock`.
    static func layout(ofName name: String, suffix: String) -> BatchOptions.Shard?? {
        let prefix = ".mediaexport.shard-"
        if name == ".mediaexport" + suffix { return .some(nil) }
        guard name.hasPrefix(prefix), name.hasSuffix(suffix) else { return nil }
        let middle = name.dropFirst(prefix.count).dropLast(suffix.count).components(separatedBy: "-of-")
        guard middle.count == 2, let k = Int(middle[0]), let n = Int(middle[1]), String(k) == middle[0], String(n) == middle[1],
              let shard = BatchOptions.Shard("\(k)/\(n)") else { return nil }
        return .some(shard)
    }

    /// Throws `BatchError.layoutConflict` when `directory` holds an export database of another layout than this
    /// run's: the plain database for a shard, a shard's for a plain run, a shard database of another count.
    static func checkLayout(_ directory: String, shard: BatchOptions.Shard?) throws {
        let others = (FileSystem.contents(ofDirectory: directory) ?? []).filter { name in
            guard let layout = layout(ofName: name, suffix: ".sqlite") else { return false }
            return layout?.count != shard?.count
        }.sorted()
        guard let first = others.first else { return }
        let theirs = layout(ofName: first, suffix: ".sqlite").flatMap { $0 }.map { "a batch split into \($0.count) shards" }
            ?? "a batch without --shard"
        let mine = shard.map { "shard \($0)" } ?? "a run without --shard"
        throw BatchError.layoutConflict(directory: directory, reason: "holds the export database of \(theirs) ("
            + others.map(FileName.display).joined(separator: ", ") + "); \(mine) would own some of its assets a second time")
    }

    /// Whether the batch may sweep the temporary files killed runs left in the output root: a plain run always (it is
    /// alone there); a shard only when no other shard's lock names a holder that may still run (on another host, or
    /// a live PID here). Leaving leftovers costs nothing; removing another host's live file would (see docs/batch.md).
    static func maySweep(_ directory: String, shard: BatchOptions.Shard?) -> Bool {
        guard let shard else { return true }
        let own = name(shard, ".lock")
        for name in FileSystem.contents(ofDirectory: directory) ?? [] where name != own {
            let path = PathName.join(directory, name)
            guard layout(ofName: name, suffix: ".lock") != nil else { continue }
            // Only a regular file is read (a FIFO planted there must not hang the batch); anything else: not sure.
            guard FileSystem.lstat(path).map({ ($0.st_mode & S_IFMT) == S_IFREG }) == true else { return false }
            guard let data = try? FileSystem.read(path, limit: 4096), !data.isEmpty else { continue }
            guard let holder = try? JSONDecoder().decode(BatchLock.Holder.self, from: data) else { return false }
            if holder.host != BatchLock.hostName || kill(holder.pid, 0) == 0 || errno != ESRCH { return false }
        }
        return true
    }

    /// The run's export database in `root` (nil for a dry run when there is none yet; read-only for a dry run),
    /// opened under the run's lock. The layout is checked again once it exists: two runs of different layouts
    /// starting at once into one folder both find the other's database, and a database made by this run is removed
    /// again before the error, so at most one layout goes on.
    static func openDatabase(in root: String, options: BatchOptions) throws -> ExportDatabase? {
        let path = PathName.join(root, name(options.shard, ".sqlite"))
        let existed = FileSystem.exists(path)
        if options.dryRun { return existed ? try ExportDatabase(path: path, readOnly: true) : nil }
        let database = try ExportDatabase(path: path, rollbackJournal: options.shard != nil)
        do { try checkLayout(root, shard: options.shard) } catch {
            database.close()
            if !existed { removeDatabase(database.path) }
            throw error
        }
        return database
    }

    /// Removes a database this run created and left empty (a layout conflict found after it was made), with
    /// SQLite's files beside it.
    static func removeDatabase(_ path: String) {
        for suffix in ["", "-wal", "-shm", "-journal"] { unlink(FileName.cString(path + suffix)) }
    }

    /// Removes the state files a run made in a folder it created and did no work in (its database, journals and
    /// lock), then the folder if that left it empty: a batch that ends before any work leaves nothing behind.
    static func removeUnused(_ folder: String, shard: BatchOptions.Shard?) {
        removeDatabase(PathName.join(folder, name(shard, ".sqlite")))
        unlink(FileName.cString(PathName.join(folder, name(shard, ".lock"))))
        rmdir(FileName.cString(folder))
    }
}
