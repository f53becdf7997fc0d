import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Where an export's bytes go, and the rules that keep a user's files safe:
/// the output is written to a hidden temporary file in the output's own folder and appears under its name
/// only when complete; an existing file is replaced only when asked; the input is never the output;
/// the output must resolve inside the sandbox folder.
public final class OutputTarget: @unchecked Sendable {
    /// The final path (its folder resolved through symlinks).
    public let finalPath: String
    /// The container chosen from the extension (`nil` for a byte copy under the source's own extension).
    public let container: Container?
    /// The temporary file the muxer writes.
    public let temporaryPath: String
    private let overwrite: Bool
    private var committed = false
    private var removed = false

    /// Validates the output against the input and sandbox, and creates the temporary file (exclusively).
    /// `anyExtension` accepts any extension (a byte copy keeps the source's).
    public init(output: String, inputs: [String], overwrite: Bool, sandbox: String?, defaultExtension: String,
                anyExtension: Bool = false) throws {
        var outputPath = output
        if URL(fileURLWithPath: outputPath).pathExtension.isEmpty && !anyExtension { outputPath += "." + defaultExtension }
        let ext = URL(fileURLWithPath: outputPath).pathExtension
        let container = Container(extension: ext)
        if container == nil && !anyExtension {
            throw ExportError.outputUnwritable(path: outputPath, reason: "unsupported container '.\(ext)' (use \(Container.allCases.map { "." + $0.rawValue }.joined(separator: ", ")))")
        }
        self.container = container
        self.overwrite = overwrite

        let url = URL(fileURLWithPath: outputPath)
        let name = url.lastPathComponent
        if name.isEmpty || name == "." || name == ".." || outputPath.hasSuffix("/") {
            throw ExportError.outputUnwritable(path: outputPath, reason: "not a file name")
        }
        let parent = url.deletingLastPathComponent().path
        guard let realParent = OutputTarget.realPath(parent) else {
            throw ExportError.outputUnwritable(path: outputPath, reason: "folder \(parent) does not exist")
        }
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: realParent, isDirectory: &isDir), isDir.boolValue else {
            throw ExportError.outputUnwritable(path: outputPath, reason: "\(parent) is not a folder")
        }
        let resolved = (realParent as NSString).appendingPathComponent(name)
        finalPath = resolved

        // Sandbox: the resolved folder must be the sandbox or inside it.
        let sandboxPath = sandbox ?? parent
        guard let realSandbox = OutputTarget.realPath(sandboxPath) else {
            throw ExportError.outputOutsideSandbox(path: outputPath, sandbox: "\(sandboxPath) (does not exist)")
        }
        if !(realParent == realSandbox || realParent.hasPrefix(realSandbox.hasSuffix("/") ? realSandbox : realSandbox + "/")) {
            throw ExportError.outputOutsideSandbox(path: outputPath, sandbox: realSandbox)
        }

        // Never onto the input: same path, through a symlink, or a hard link to it.
        for input in inputs {
            guard let realInput = OutputTarget.realPath(input) else { continue }
            if realInput == resolved || OutputTarget.realPath(resolved) == realInput || OutputTarget.sameFile(realInput, resolved) {
                throw ExportError.outputIsInput(path: outputPath)
            }
        }
        var st = stat()
        if lstat(resolved, &st) == 0 {
            if (st.st_mode & S_IFMT) == S_IFDIR { throw ExportError.outputUnwritable(path: outputPath, reason: "is a folder") }
            if !overwrite { throw ExportError.outputExists(path: outputPath) }
        }
        if access(realParent, W_OK) != 0 {
            throw ExportError.outputUnwritable(path: outputPath, reason: "folder \(parent) is not writable: \(String(cString: strerror(errno)))")
        }

        // Temporary file: hidden, same folder (so the rename is atomic), created exclusively.
        var tmp = ""
        for attempt in 0..<16 {
            let token = String(UInt32.random(in: 0...UInt32.max), radix: 36)
            tmp = (realParent as NSString).appendingPathComponent(".\(name).mediaexport-tmp-\(getpid())-\(token)")
            let fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            if fd >= 0 { close(fd); break }
            if errno != EEXIST || attempt == 15 {
                throw ExportError.outputUnwritable(path: outputPath, reason: "cannot create a temporary file: \(String(cString: strerror(errno)))")
            }
        }
        temporaryPath = tmp
        TemporaryFiles.shared.add(tmp)
    }

    deinit { discard() }

    /// Moves the finished temporary file to its final name. Without `overwrite` this never replaces a file
    /// that appeared meanwhile (a hard link fails if the name exists; the temp name is then removed).
    public func commit() throws {
        guard !committed, !removed else { return }
        if overwrite {
            if rename(temporaryPath, finalPath) != 0 {
                let reason = String(cString: strerror(errno))
                discard()
                throw ExportError.outputUnwritable(path: finalPath, reason: "cannot move the finished file into place: \(reason)")
            }
        } else if link(temporaryPath, finalPath) == 0 {
            unlink(temporaryPath)
        } else {
            let err = errno
            if err == EEXIST {
                discard()
                throw ExportError.outputExists(path: finalPath)
            }
            // Filesystems without hard links: check, then rename (a small race, reported if lost).
            var st = stat()
            if lstat(finalPath, &st) == 0 { discard(); throw ExportError.outputExists(path: finalPath) }
            if rename(temporaryPath, finalPath) != 0 {
                let reason = String(cString: strerror(errno))
                discard()
                throw ExportError.outputUnwritable(path: finalPath, reason: "cannot move the finished file into place: \(reason)")
            }
        }
        committed = true
        TemporaryFiles.shared.remove(temporaryPath)
    }

    /// Removes the temporary file (failed or cancelled export). Safe to call more than once.
    public func discard() {
        guard !committed, !removed else { return }
        unlink(temporaryPath)
        removed = true
        TemporaryFiles.shared.remove(temporaryPath)
    }

    static func realPath(_ path: String) -> String? {
        guard let r = realpath(path, nil) else { return nil }
        defer { free(r) }
        return String(cString: r)
    }

    static func sameFile(_ a: String, _ b: String) -> Bool {
        var sa = stat(), sb = stat()
        guard stat(a, &sa) == 0, stat(b, &sb) == 0 else { return false }
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino
    }
}

/// Every temporary file in flight, so a process that must exit at once (a second Ctrl-C) can remove them.
public final class TemporaryFiles: @unchecked Sendable {
    /// The process-wide registry.
    public static let shared = TemporaryFiles()
    private let lock = NSLock()
    private var paths = Set<String>()

    func add(_ p: String) { lock.lock(); paths.insert(p); lock.unlock() }
    func remove(_ p: String) { lock.lock(); paths.remove(p); lock.unlock() }

    /// Unlinks every registered temporary file.
    public func removeAll() {
        lock.lock(); let all = paths; paths.removeAll(); lock.unlock()
        for p in all { unlink(p) }
    }
}
