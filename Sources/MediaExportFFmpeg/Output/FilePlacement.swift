internal import CFFmpeg
import Foundation
import MediaExportCore
#if canImport(Glibc)
import Glibc
#endif

/// Puts a finished file (a temporary name in a folder) in place under its final name, never replacing what is
/// there unless allowed, and then only the very file that was allowed, at the moment of replacing:
///
/// - nothing there: a hard link (or `renameat2(RENAME_NOREPLACE)`), which fails if a file appeared meanwhile;
/// - a file the writer owns (`Rule.owned`): the file there is opened, checked (size and SHA-256 through that
///   descriptor), and swapped with the new one by `renameat2(RENAME_EXCHANGE)`; then what was swapped out must be
///   that same file, unchanged since the check (device, inode, size, modification and change times), or the swap
///   is undone and the placement refused. A file written in place or put there by a rename meanwhile survives;
/// - anything (`Rule.any`, `--overwrite`): a plain rename.
///
/// Where the file system has no `renameat2` exchange, an owned file is checked and renamed over (a window the
/// size of the check, said in docs/safety.md).
package enum FilePlacement {
    /// What may be replaced.
    package enum Rule: Sendable {
        /// Nothing: a file there refuses the placement.
        case never
        /// A file there with one of these contents.
        case owned([OwnedFile])
        /// Whatever is there.
        case any
    }

    /// How a placement ended.
    package enum Outcome: Equatable, Sendable {
        /// The new file has the final name.
        case placed
        /// A file is there and the rule allows no replacing.
        case exists
        /// A file is there that is not one the rule names (or it changed while being checked): left as it was.
        case notOwned
        /// The system refused (errno).
        case failed(Int32)
    }

    /// Places `temporary` as `final`, both names in the folder `directory`. On any outcome but `placed` the
    /// temporary name still holds the new file.
    package static func place(directory: Int32, temporary: [CChar], final: [CChar], rule: Rule) -> Outcome {
        if case .any = rule { return renameat(directory, temporary, directory, final) == 0 ? .placed : .failed(errno) }
        for _ in 0..<3 {  // the file there may disappear between the link and its check: then link again
            switch placeNew(directory: directory, temporary: temporary, final: final) {
            case .placed: return .placed
            case .failed(let code) where code != EEXIST: return .failed(code)
            default: break
            }
            guard case .owned(let files) = rule else { return .exists }
            let outcome = replaceOwned(directory: directory, temporary: temporary, final: final, files: files)
            if outcome != .failed(ENOENT) { return outcome }
        }
        return .exists
    }

    /// Gives the new file the final name only if nothing has it: `.failed(EEXIST)` when something does.
    private static func placeNew(directory: Int32, temporary: [CChar], final: [CChar]) -> Outcome {
        if linkat(directory, temporary, directory, final, 0) == 0 {
            unlinkat(directory, temporary, 0)
            return .placed
        }
        if errno == EEXIST { return .failed(EEXIST) }
        // File systems without hard links: rename without replacing; failing that, check, then rename (a small race).
        let code = cff_rename_noreplace(directory, temporary, final)
        if code == 0 { return .placed }
        if code == -EEXIST { return .failed(EEXIST) }
        var st = stat()
        if fstatat(directory, final, &st, AT_SYMLINK_NOFOLLOW) == 0 { return .failed(EEXIST) }
        return renameat(directory, temporary, directory, final) == 0 ? .placed : .failed(errno)
    }

    /// Replaces the file at `final` if it is one of `files`, proven on the file swapped out (see the type's comment).
    /// `.failed(ENOENT)` when the file went away before the swap (the caller places anew).
    private static func replaceOwned(directory: Int32, temporary: [CChar], final: [CChar], files: [OwnedFile]) -> Outcome {
        let fd = openat(directory, final, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return errno == ENOENT ? .failed(ENOENT) : .notOwned }
        defer { close(fd) }
        var checked = stat()
        guard fstat(fd, &checked) == 0, (checked.st_mode & S_IFMT) == S_IFREG,
              files.contains(where: { $0.size == Int64(checked.st_size) }),
              let sha = try? SHA256Hasher.descriptor(fd, failure: { ExportError.inputUnreadable(path: "", reason: $0) }),
              files.contains(OwnedFile(size: Int64(checked.st_size), sha256: sha)) else { return .notOwned }
        var after = stat()
        guard fstat(fd, &after) == 0, same(after, checked) else { return .notOwned }  // written while hashed
        // From here to the swap is a few system calls: a write in that window would also have to set the
        // modification time back, itself a system call.
        let code = cff_rename_exchange(directory, temporary, final)
        if code == -ENOENT { return .failed(ENOENT) }
        if code == -EINVAL || code == -ENOSYS {  // no exchange here: check again, then rename over (a small race)
            var now = stat()
            guard fstatat(directory, final, &now, AT_SYMLINK_NOFOLLOW) == 0, same(now, checked) else { return .notOwned }
            return renameat(directory, temporary, directory, final) == 0 ? .placed : .failed(errno)
        }
        if code != 0 { return .failed(-code) }
        var out = stat()
        if fstatat(directory, temporary, &out, AT_SYMLINK_NOFOLLOW) == 0, same(out, checked, renamed: true) {
            unlinkat(directory, temporary, 0)
            return .placed
        }
        // Not the file checked: it goes back to its name, the new file to the temporary one.
        _ = cff_rename_exchange(directory, temporary, final)
        return .notOwned
    }

    /// The same file, unchanged: device, inode, size, modification and change times (a write in place moves the
    /// change time, which no one can set back). A rename moves the change time too: for a file `renamed` since, the
    /// others.
    private static func same(_ a: stat, _ b: stat, renamed: Bool = false) -> Bool {
        a.st_dev == b.st_dev && a.st_ino == b.st_ino && a.st_size == b.st_size
            && a.st_mtim.tv_sec == b.st_mtim.tv_sec && a.st_mtim.tv_nsec == b.st_mtim.tv_nsec
            && (renamed || (a.st_ctim.tv_sec == b.st_ctim.tv_sec && a.st_ctim.tv_nsec == b.st_ctim.tv_nsec))
    }
}
