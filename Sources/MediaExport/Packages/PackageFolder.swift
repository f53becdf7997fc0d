import Foundation
import MediaExportCore
import MediaExportFFmpeg
#if canImport(Glibc)
import Glibc
#endif

/// Where a package is written: a hidden folder beside the package's own name, renamed to it only when every file
/// is written, synced and checked — a package appears whole or not at all. An existing folder is replaced only
/// when it is empty, or when asked and it holds a `package.json` (a package this tool wrote); never a folder of
/// the user's.
final class PackageFolder {
    /// The package's final path.
    let finalPath: String
    /// The hidden folder being written.
    let workPath: String
    private var committed = false

    init(output: String, overwrite: Bool) throws {
        var path = output
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        let name = PathName.lastComponent(path)
        guard !name.isEmpty, name != ".", name != "..", path != "/" else {
            throw ExportError.outputUnwritable(path: output, reason: "not a folder name")
        }
        let parent = PathName.directory(path)
        guard let parentReal = FileSystem.realPath(parent), FileSystem.isDirectory(parentReal) else {
            throw ExportError.outputUnwritable(path: output, reason: "its parent folder does not exist")
        }
        finalPath = parentReal == "/" ? "/" + name : parentReal + "/" + name
        try Self.checkReplaceable(finalPath, overwrite: overwrite, shownAs: output)
        workPath = parentReal + "/" + TemporaryFiles.temporaryName(for: name, pid: getpid(), token: "pkg")
        guard mkdir(workPath, 0o755) == 0 else {
            throw ExportError.outputUnwritable(path: output, reason: "cannot create a folder beside it: \(String(cString: strerror(errno)))")
        }
        TemporaryFiles.shared.add(folder: workPath)
    }

    deinit {
        if !committed { Self.remove(workPath) }
        TemporaryFiles.shared.remove(folder: workPath)
    }

    /// The path of `name` (`720p/seg_00000.m4s`) in the folder being written.
    func path(_ name: String) -> String { workPath + "/" + name }

    /// Creates a subfolder of the folder being written.
    func makeFolder(_ name: String) throws {
        guard mkdir(path(name), 0o755) == 0 else {
            throw ExportError.outputUnwritable(path: finalPath, reason: "cannot create \(name): \(String(cString: strerror(errno)))")
        }
    }

    /// Writes a small text or JSON file.
    func write(_ name: String, _ text: String) throws {
        do { try Data(text.utf8).write(to: URL(fileURLWithPath: path(name))) } catch {
            throw ExportError.outputUnwritable(path: finalPath + "/" + name, reason: "\(error.localizedDescription)")
        }
    }

    /// The files written so far, relative to the folder, sorted by name (bytes), hidden files left out.
    func files() -> [String] {
        var found: [String] = []
        func walk(_ relative: String) {
            let here = relative.isEmpty ? workPath : path(relative)
            for entry in (FileSystem.contents(ofDirectory: here) ?? []).sorted() where !entry.hasPrefix(".") {
                let name = relative.isEmpty ? entry : relative + "/" + entry
                if FileSystem.isDirectory(path(name)) { walk(name) } else { found.append(name) }
            }
        }
        walk("")
        return found.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
    }

    /// Syncs every file and the folders, then renames the folder to the package's name (an empty folder or, when
    /// allowed, a previous package there is replaced: moved aside, the new one renamed in, the old one removed).
    func commit() throws {
        for name in files() { FileSystem.sync(path: path(name)) }
        FileSystem.sync(path: workPath)
        var aside: String?
        if FileSystem.exists(finalPath) {
            let moved = workPath + ".old"
            guard rename(finalPath, moved) == 0 else {
                throw ExportError.outputUnwritable(path: finalPath, reason: "cannot move the old package aside: \(String(cString: strerror(errno)))")
            }
            aside = moved
        }
        guard rename(workPath, finalPath) == 0 else {
            let reason = String(cString: strerror(errno))
            if let aside { _ = rename(aside, finalPath) }
            throw ExportError.outputUnwritable(path: finalPath, reason: "cannot rename the package into place: \(reason)")
        }
        committed = true
        FileSystem.sync(path: PathName.directory(finalPath))
        if let aside { Self.remove(aside) }
    }

    private static func checkReplaceable(_ path: String, overwrite: Bool, shownAs output: String) throws {
        guard FileSystem.exists(path) || FileSystem.isSymlink(path) else { return }
        guard FileSystem.isDirectory(path), !FileSystem.isSymlink(path) else {
            throw ExportError.outputUnwritable(path: output, reason: "exists and is not a folder")
        }
        let entries = FileSystem.contents(ofDirectory: path) ?? []
        if entries.isEmpty { return }
        guard entries.contains("package.json") else {
            throw ExportError.outputUnwritable(path: output, reason: "is a folder with files that are not a package: give a new or empty folder")
        }
        guard overwrite else { throw ExportError.outputExists(path: output) }
    }

    private static func remove(_ path: String) { try? FileManager.default.removeItem(atPath: path) }
}
