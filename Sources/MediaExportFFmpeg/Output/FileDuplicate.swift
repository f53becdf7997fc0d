internal import CFFmpeg
import Foundation
import MediaExportCore
#if canImport(Glibc)
import Glibc
#endif

/// A second name for a finished file (a batch's duplicate upload): a hard link, a reflink clone or a byte copy
/// made under a temporary name beside the target (locked while it exists, so a sweep leaves it alone), then put
/// in place by `FilePlacement` — never over a file the rule does not allow, and appearing only complete.
package enum FileDuplicate {
    /// How the second file is made.
    package enum Kind: Sendable {
        /// A hard link: the same file under two names (editing one edits both).
        case hardLink
        /// A file of its own: a reflink clone where the file system has them (`FICLONE`: no data copied), else a
        /// byte copy, synced.
        case ownFile
    }

    /// How it was made.
    package enum Made: String, Sendable {
        case linked, cloned, copied
    }

    /// Puts a duplicate of `source` at `target`. Errors name `target`, never the temporary name.
    package static func make(_ source: String, at target: String, kind: Kind, rule: FilePlacement.Rule) throws -> Made {
        func fail(_ what: String, _ code: Int32 = errno) -> ExportError {
            .outputUnwritable(path: FileName.display(target), reason: "cannot write the duplicate's output: \(what): \(String(cString: strerror(code)))")
        }
        let folder = open(FileName.cString(PathName.directory(target)), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folder >= 0 else { throw fail("open its folder") }
        defer { close(folder) }
        let name = PathName.lastComponent(target)
        let temporary = FileName.cString(TemporaryFiles.temporaryName(for: name, pid: getpid(), token: "duplicate"))
        unlinkat(folder, temporary, 0)  // this process's own leftover, if any
        let made: Made
        if kind == .hardLink, linkat(AT_FDCWD, FileName.cString(source), folder, temporary, 0) == 0 {
            made = .linked
        } else {
            made = try ownFile(source, folder: folder, temporary: temporary, fail: fail)
        }
        switch FilePlacement.place(directory: folder, temporary: temporary, final: FileName.cString(name), rule: rule) {
        case .placed: return made
        case .exists, .notOwned:
            unlinkat(folder, temporary, 0)
            throw ExportError.outputNotOwned(path: target)
        case .failed(let code):
            unlinkat(folder, temporary, 0)
            throw fail("put it in place", code)
        }
    }

    /// A clone (or else a copy) of `source` under `temporary` in `folder`, synced; removed again if that fails.
    private static func ownFile(_ source: String, folder: Int32, temporary: [CChar], fail: (String, Int32) -> ExportError) throws -> Made {
        let input = open(FileName.cString(source), O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw fail("open \(FileName.display(source))", errno) }
        defer { close(input) }
        let output = openat(folder, temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard output >= 0 else { throw fail("create", errno) }
        defer { close(output) }
        _ = flock(output, LOCK_EX | LOCK_NB)  // a sweep leaves a locked temporary file alone
        let made: Made = cff_clone_file(output, input) == 0 ? .cloned : .copied
        var code: Int32 = 0
        if made == .copied { code = copyBytes(from: input, to: output) }
        if code == 0 && fsync(output) != 0 { code = errno }
        if code != 0 {
            unlinkat(folder, temporary, 0)
            throw fail(made == .copied ? "copy" : "sync", code)
        }
        return made
    }

    /// Copies what `input` reads to its end into `output`; 0 or the errno that stopped it.
    private static func copyBytes(from input: Int32, to output: Int32) -> Int32 {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let n = read(input, buffer.baseAddress, buffer.count)
            if n < 0 { if errno == EINTR { continue }; return errno }
            if n == 0 { return 0 }
            var written = 0
            while written < n {
                let w = write(output, buffer.baseAddress! + written, n - written)
                if w < 0 && errno == EINTR { continue }
                if w <= 0 { return w == 0 ? EIO : errno }
                written += w
            }
        }
    }
}
