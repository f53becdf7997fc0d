import Foundation
import MediaExportCore
import MediaExportFFmpeg
#if canImport(Glibc)
import Glibc
#endif

/// The files a batch's inputs hold, found by walking folders with `readdir`/`lstat` on byte-exact names (so a
/// name that is not UTF-8 is found like any other), and a note for everything left out that a person would
/// otherwise miss. Every entry of the tree that is not walked or listed as a file is in `ignored`, with why.
///
/// Rules: every input is resolved with `realpath` first (a folder given through a symlink is walked like the
/// folder itself). Hidden names (a leading dot) and our temporary files are left out and listed in `ignored` (a
/// hidden folder once, unwalked). The output folder, met as an input or inside one, is skipped with a note. A
/// symlink to a regular file is followed (the asset is later exported once per real file); a symlink to a folder
/// is skipped with a note — following it could loop, or pull in a tree nobody asked for; give that folder as an
/// input to include it. Dangling symlinks, unreadable folders and special files are noted too.
struct BatchScan {
    /// One input: the folder its keys are relative to (real path) and the files found under it, as named in the
    /// tree (a followed symlink keeps its own name and folder, so its asset mirrors where it appears).
    struct Root {
        var given: String
        var root: String
        var isFolder: Bool
        var files: [String]
    }

    var roots: [Root] = []
    var notes: [String] = []
    /// What the walk met and left out, with why (paths as named in the tree, not resolved).
    var ignored: [IgnoredFile] = []
    /// The folder being walked: what an ignored entry's key is relative to (nil: an input itself, keyed by its name).
    private var walking: String?

    private mutating func ignore(_ path: String, _ kind: IgnoredFile.Kind, _ reason: String) {
        ignored.append(IgnoredFile(path: path, key: walking.map { BatchPlanner.relativePath(path, to: $0) }, kind: kind, reason: reason))
    }

    /// Scans `inputs`; `outRoot` is the resolved output folder. A missing input is an error (exit 66).
    static func scan(_ inputs: [String], outRoot: String) throws -> BatchScan {
        var scan = BatchScan()
        for input in inputs {
            guard let st = FileSystem.stat(input), let real = FileSystem.realPath(input) else {
                let reason = FileSystem.exists(input) ? "a symbolic link to nothing" : "no such file or folder"
                throw ExportError.inputUnreadable(path: FileName.display(input), reason: reason)
            }
            let shown = FileName.displayPath(input)
            switch st.st_mode & S_IFMT {
            case S_IFDIR:
                if inside(real, outRoot) {
                    let what = FileName.bytes(real) == FileName.bytes(outRoot) ? "is the output folder" : "is inside the output folder"
                    scan.notes.append("\(shown): \(what); skipped")
                    scan.ignore(input, .outputFolder, what)
                    continue
                }
                scan.roots.append(Root(given: input, root: real, isFolder: true, files: scan.walk(real, outRoot: outRoot)))
            case S_IFREG:
                // The file keeps the name it was given by (it may be a symlink); its folder is resolved.
                let folder = FileSystem.realPath(PathName.directory(input)) ?? "/"
                if inside(real, outRoot) {
                    scan.notes.append("\(shown): is inside the output folder; skipped")
                    scan.ignore(input, .outputFolder, "is inside the output folder")
                    continue
                }
                let path = PathName.join(folder, PathName.lastComponent(input))
                scan.roots.append(Root(given: input, root: folder, isFolder: false, files: [path]))
            default:
                throw ExportError.inputUnreadable(path: shown, reason: "not a regular file or folder")
            }
        }
        return scan
    }

    /// Regular files under `root` (a real path), sorted; folders are walked with a stack, not recursion, so a
    /// hostile depth cannot overflow it.
    mutating func walk(_ root: String, outRoot: String) -> [String] {
        walking = root
        defer { walking = nil }
        var files: [String] = []
        var pending = [root]
        var visited = Set<[UInt64]>()  // device and inode: a bind mount cannot make us loop
        while let dir = pending.popLast() {
            if let st = FileSystem.lstat(dir) {
                guard visited.insert([UInt64(st.st_dev), UInt64(st.st_ino)]).inserted else { continue }
            }
            guard let names = FileSystem.contents(ofDirectory: dir) else {
                let reason = String(cString: strerror(errno))
                notes.append("\(FileName.display(dir)): cannot read the folder (\(reason)); skipped")
                ignore(dir, .unreadableFolder, "cannot read the folder (\(reason))")
                continue
            }
            for name in names.sorted(by: >) {  // reversed: the stack pops folders in name order
                let path = PathName.join(dir, name)
                guard let st = FileSystem.lstat(path) else {
                    if errno == ENOENT { continue }  // gone since readdir: nothing there to tell about
                    if errno == ENAMETOOLONG { ignoreTooLong(path); continue }
                    let reason = String(cString: strerror(errno))
                    notes.append("\(FileName.display(dir)): cannot look into the folder (\(reason)); skipped")
                    ignore(dir, .unreadableFolder, "cannot look into the folder (\(reason))")
                    break
                }
                let type = st.st_mode & S_IFMT
                if name.contains(".mediaexport-tmp-") {
                    ignore(path, .temporaryFile, "a temporary file of mediaexport (an export in progress, or left by a killed one)")
                    continue
                }
                if name.hasPrefix(".") {
                    ignore(path, .hidden, type == S_IFDIR ? "a hidden folder (not walked)" : "a hidden file")
                    continue
                }
                if type != S_IFREG, ResourceName(name).isSidecar, !FileSystem.isRegularFile(path) {
                    files.append(path)  // its asset's current version fails naming it: "not a regular file" (exit 79)
                    if type != S_IFDIR { continue }
                }
                switch type {
                case S_IFDIR:
                    if FileName.bytes(path) == FileName.bytes(outRoot) {
                        notes.append("\(FileName.display(path)): the output folder, inside an input; skipped")
                        ignore(path, .outputFolder, "the output folder, inside an input")
                        continue
                    }
                    pending.append(path)
                case S_IFREG:
                    files.append(path)
                case S_IFLNK:
                    if let target = followedFile(path, outRoot: outRoot) { files.append(target) }
                default:
                    notes.append("\(FileName.display(path)): not a regular file; skipped")
                    ignore(path, .notRegularFile, "not a regular file (a FIFO, socket or device)")
                }
            }
        }
        return files.sorted { FileName.bytes($0).lexicographicallyPrecedes(FileName.bytes($1)) }
    }

    /// An entry whose path the system refuses by name (`ENAMETOOLONG`): in `ignored`, and a note, with its length.
    private mutating func ignoreTooLong(_ path: String) {
        let reason = "its path is \(FileName.bytes(path).count) bytes, longer than PATH_MAX (\(PATH_MAX)): the system cannot open it"
        notes.append("\(FileName.clip(FileName.display(path), limit: 120)): \(reason); skipped")
        ignore(path, .pathTooLong, reason)
    }

    /// A symlink met in the walk: its own path when it leads to a regular file outside the output folder; nil,
    /// with a note, otherwise.
    private mutating func followedFile(_ path: String, outRoot: String) -> String? {
        let shown = FileName.display(path)
        guard let st = FileSystem.stat(path), let real = FileSystem.realPath(path) else {
            notes.append("\(shown): a symbolic link to nothing; skipped")
            ignore(path, .symlinkToNothing, "a symbolic link to nothing")
            return nil
        }
        switch st.st_mode & S_IFMT {
        case S_IFREG:
            if Self.inside(real, outRoot) {
                notes.append("\(shown): a symbolic link into the output folder; skipped")
                ignore(path, .symlinkIntoOutput, "a symbolic link into the output folder")
                return nil
            }
            return path
        case S_IFDIR:
            notes.append("\(shown): a symbolic link to a folder; skipped (give \(FileName.display(real)) as an input to include it)")
            ignore(path, .symlinkToFolder, "a symbolic link to a folder (give \(FileName.display(real)) as an input to include it)")
            return nil
        default:
            notes.append("\(shown): a symbolic link to something that is not a regular file; skipped")
            ignore(path, .notRegularFile, "a symbolic link to something that is not a regular file")
            return nil
        }
    }

    /// True when `path` is `folder` or inside it (both resolved).
    static func inside(_ path: String, _ folder: String) -> Bool {
        // Bytes, not String equality: two names that are canonically equivalent (NFC/NFD) are different folders.
        OutputTarget.isInside(path, folder)
    }
}
