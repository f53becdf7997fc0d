import Foundation
import MediaExportCore
import MediaExportFFmpeg

/// Where a batch's files go: the output folder, paths relative to an input, and `--include`/`--exclude` matching.
extension BatchPlanner {
    /// The output folder with symlinks resolved, created first when `create` (a dry run creates nothing: a folder
    /// that does not exist yet is resolved through its nearest existing parent).
    static func outputRoot(_ path: String, create: Bool) throws -> String {
        if create { try makeDirectories(path) }
        if let real = FileSystem.realPath(path) {
            guard FileSystem.isDirectory(real) else { throw ExportError.outputUnwritable(path: path, reason: "not a folder") }
            return real
        }
        guard !create else { throw ExportError.outputUnwritable(path: path, reason: "cannot resolve the folder") }
        var missing: [String] = []
        var parent = path.isEmpty ? "." : path
        while FileSystem.realPath(parent) == nil && parent != "/" && parent != "." {
            missing.insert(PathName.lastComponent(parent), at: 0)
            parent = PathName.directory(parent)
        }
        var result = FileSystem.realPath(parent) ?? parent
        for name in missing where name != "." { result = PathName.join(result, name) }
        return result
    }

    /// `mkdir -p` on byte-exact names.
    static func makeDirectories(_ path: String) throws {
        if FileSystem.isDirectory(path) { return }
        let parent = PathName.directory(path)
        if parent != path { try makeDirectories(parent) }
        if mkdir(FileName.cString(path), 0o755) != 0 && errno != EEXIST {
            throw ExportError.outputUnwritable(path: FileName.display(path), reason: "cannot create the folder: \(String(cString: strerror(errno)))")
        }
        guard FileSystem.isDirectory(path) else { throw ExportError.outputUnwritable(path: FileName.display(path), reason: "not a folder") }
    }

    /// A file's key under its input: its path relative to a folder given as input, or its name for a file given alone.
    static func key(_ path: String, in root: BatchScan.Root) -> String {
        root.isFolder ? relativePath(path, to: root.root) : PathName.lastComponent(path)
    }

    static func relativePath(_ path: String, to root: String) -> String {
        let r = root.hasSuffix("/") ? root : root + "/"
        return path.hasPrefix(r) ? String(path.dropFirst(r.count)) : PathName.lastComponent(path)
    }

    /// Shell-style match on the relative path or the file name, ignoring case (`*.mov` matches `IMG_1.MOV`).
    static func glob(_ pattern: String, _ path: String) -> Bool {
        let caseFold: Int32 = 1 << 4  // FNM_CASEFOLD (GNU)
        let p = FileName.cString(pattern)
        return fnmatch(p, FileName.cString(path), caseFold) == 0 || fnmatch(p, FileName.cString(PathName.lastComponent(path)), caseFold) == 0
    }
}
