internal import CFFmpeg
import Foundation
import MediaExportCore
#if canImport(Glibc)
import Glibc
#endif

/// Where an export's bytes go, and the rules that keep a user's files safe:
/// the output is written to a hidden temporary file in the output's own folder and appears under its name
/// only when complete; an existing file is replaced only when asked; the input is never the output;
/// the output must resolve inside the sandbox folder.
///
/// Race-free by construction: the output folder is opened once (`O_DIRECTORY|O_NOFOLLOW`), the sandbox is
/// checked against *that descriptor's* path, and every later step — creating the temporary file, FFmpeg's
/// writes and faststart re-read, the final `linkat`/`renameat`, removal — works relative to the descriptor.
/// Swapping a folder on the way for a symlink afterwards cannot redirect a single byte.
public final class OutputTarget: Sendable {
    /// The final path (its folder resolved through symlinks).
    public let finalPath: String
    /// The container chosen from the extension (`nil` for a byte copy under the source's own extension).
    public let container: Container?
    /// The temporary file's path, for messages and tests: all access goes through the folder's descriptor.
    public let temporaryPath: String
    /// The output folder, opened once; every file operation is relative to it.
    let directory: Int32
    /// The temporary file, open for writing and `flock`ed for as long as it exists (how a sweep tells a live
    /// temporary file from one a killed process left behind).
    let descriptor: Int32
    /// The temporary file's name in `directory`, as bytes for C.
    let temporaryName: [CChar]
    private let finalName: [CChar]
    private let sandboxRoot: String
    private let overwrite: Bool
    private let replaceable: [OwnedFile]
    /// Whether the file is still being written, committed or removed; `discard()` may come from another thread.
    private let state = LockedBox(State.writing)

    private enum State { case writing, committed, removed }
    /// Where the container's header (with any room kept for the index) ends in the file, once written (`Muxer`).
    private let headerEnd = LockedBox<Int64?>(nil)

    /// The bytes of the temporary file once media follows the container's header; nil before (a header alone, or
    /// the room kept for the index, tells nothing of the output's size), and until the header is written.
    public var mediaBytesWritten: Int64? {
        guard let end = headerEnd.withLock({ $0 }), let size = FileSystem.size(temporaryPath), size > end else { return nil }
        return size
    }

    /// The muxer wrote the header: the file's media starts at `offset`.
    func headerWritten(endingAt offset: Int64) { headerEnd.withLock { $0 = offset } }

    /// Validates the output against the input and sandbox, sweeps stale temporary files from its folder, and
    /// creates the temporary file (exclusively). `anyExtension` accepts any extension (a byte copy keeps the source's).
    /// Without `overwrite`, a file at the output path is replaced only when it is one of `replaceable` (checked when committing).
    public init(output: String, inputs: [String], overwrite: Bool, replaceable: [OwnedFile] = [], sandbox: String?, defaultExtension: String,
                anyExtension: Bool = false) throws {
        let named = try Self.checkedName(output, defaultExtension: defaultExtension, anyExtension: anyExtension)
        let (outputPath, parent, name) = (named.path, named.parent, named.name)
        self.container = named.container
        self.overwrite = overwrite
        self.replaceable = replaceable
        let folder = try Self.openFolder(parent, sandbox: sandbox, outputPath: outputPath)
        sandboxRoot = folder.sandbox
        let dirfd = folder.descriptor
        var ownsDirectory = true
        defer { if ownsDirectory { close(dirfd) } }
        let resolved = folder.path == "/" ? "/" + name : folder.path + "/" + name
        let nameC = FileName.cString(name)
        try Self.checkReplaceable(nameC, resolved: resolved, in: dirfd, inputs: inputs, overwrite: overwrite || !replaceable.isEmpty, outputPath: outputPath, parent: parent)

        // Temporary files that killed processes left in this folder go first.
        TemporaryFiles.sweepOccasionally(directoryDescriptor: dirfd)
        let (fd, tmpName) = try Self.createTemporaryFile(for: name, in: dirfd, outputPath: outputPath)
        ownsDirectory = false
        directory = dirfd
        descriptor = fd
        finalPath = resolved
        finalName = nameC
        temporaryName = FileName.cString(tmpName)
        temporaryPath = folder.path == "/" ? "/" + tmpName : folder.path + "/" + tmpName
        TemporaryFiles.shared.add(self)
    }

    /// The output's path (with the default extension when it has none), its folder, name and container; throws
    /// for what can never be an output file (standard output, a device, the kernel's folders, a bad name or extension).
    private static func checkedName(_ output: String, defaultExtension: String, anyExtension: Bool) throws
        -> (path: String, parent: String, name: String, container: Container?) {
        if output.hasSuffix("/") { throw ExportError.outputUnwritable(path: output, reason: "not a file name") }
        // Standard output and devices are no place for a file that appears only complete (and MP4 seeks back to finish).
        if output == "-" { throw ExportError.outputUnwritable(path: output, reason: "standard output is not supported: give a file name") }
        if let st = FileSystem.stat(output), (st.st_mode & S_IFMT) != S_IFREG && (st.st_mode & S_IFMT) != S_IFDIR {
            throw ExportError.outputUnwritable(path: output, reason: "is a device, pipe or socket, not a file: give a file name")
        }
        // `/dev/stdout` (a file when stdout is redirected to one), `/proc/self/fd/N`: the kernel's folders hold no outputs.
        let folder = FileSystem.realPath(PathName.directory(output)) ?? ""
        if let kernel = ["/dev", "/proc", "/sys"].first(where: { output.hasPrefix($0 + "/") || folder == $0 || folder.hasPrefix($0 + "/") }) {
            throw ExportError.outputUnwritable(path: output, reason: "is in \(kernel), not a folder for files: give a file name")
        }
        var outputPath = output
        if PathName.pathExtension(outputPath).isEmpty && !anyExtension { outputPath += "." + defaultExtension }
        let (parent, name) = (PathName.directory(outputPath), PathName.lastComponent(outputPath))
        let ext = PathName.pathExtension(name)
        let container = Container(extension: ext)
        if container == nil && !anyExtension {
            throw ExportError.outputUnwritable(path: outputPath, reason: "unsupported container '.\(FileName.display(ext))' (use \(Container.allCases.map { "." + $0.rawValue }.joined(separator: ", ")))")
        }
        if name.isEmpty || name == "." || name == ".." {
            throw ExportError.outputUnwritable(path: outputPath, reason: "not a file name")
        }
        if FileName.bytes(name).count > Int(NAME_MAX) {
            throw ExportError.outputUnwritable(path: outputPath, reason: "the name is longer than \(NAME_MAX) bytes")
        }
        return (outputPath, parent, name, container)
    }

    /// The output's folder opened once, its path as the kernel reports it for that descriptor, and the resolved
    /// sandbox it was checked against. The folder, once: its resolved path opened without following a symlink, so
    /// a component swapped for a symlink since realpath either fails here or shows in the descriptor's own path.
    private static func openFolder(_ parent: String, sandbox: String?, outputPath: String) throws
        -> (descriptor: Int32, path: String, sandbox: String) {
        guard let realParent = FileSystem.realPath(parent) else {
            throw ExportError.outputUnwritable(path: outputPath, reason: "folder \(FileName.display(parent)) does not exist")
        }
        guard FileSystem.isDirectory(realParent) else {
            throw ExportError.outputUnwritable(path: outputPath, reason: "\(FileName.display(parent)) is not a folder")
        }
        let sandboxPath = sandbox ?? parent
        guard let realSandbox = FileSystem.realPath(sandboxPath) else {
            throw ExportError.outputOutsideSandbox(path: outputPath, sandbox: "\(FileName.display(sandboxPath)) (does not exist)")
        }
        let dirfd = open(FileName.cString(realParent), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard dirfd >= 0 else {
            let err = errno
            throw ExportError.outputUnwritable(path: outputPath, reason: err == ELOOP || err == ENOTDIR
                ? "folder \(FileName.display(parent)) changed while being opened (now a symlink)"
                : "cannot open folder \(FileName.display(parent)): \(String(cString: strerror(err)))")
        }
        guard let folder = OutputTarget.descriptorPath(dirfd) else {
            close(dirfd)
            throw ExportError.outputUnwritable(path: outputPath, reason: "cannot tell where folder \(FileName.display(parent)) is (is /proc mounted?)")
        }
        if !OutputTarget.isInside(folder, realSandbox) {
            close(dirfd)
            throw ExportError.outputOutsideSandbox(path: outputPath, sandbox: realSandbox)
        }
        return (dirfd, folder, realSandbox)
    }

    /// Throws unless `name` in the folder may become the output: never onto the input (same path, through a
    /// symlink, or a hard link to it), never a folder, an existing file only with `overwrite`, in a writable folder.
    private static func checkReplaceable(_ name: [CChar], resolved: String, in dirfd: Int32, inputs: [String], overwrite: Bool,
                                         outputPath: String, parent: String) throws {
        var existing = Glibc.stat()
        let outputExists = fstatat(dirfd, name, &existing, AT_SYMLINK_NOFOLLOW) == 0
        var followed = Glibc.stat()
        let outputFollowed = fstatat(dirfd, name, &followed, 0) == 0
        for input in inputs {
            guard let realInput = FileSystem.realPath(input) else { continue }
            if FileName.bytes(realInput) == FileName.bytes(resolved) { throw ExportError.outputIsInput(path: outputPath) }
            if outputFollowed, let st = FileSystem.stat(realInput), st.st_dev == followed.st_dev, st.st_ino == followed.st_ino {
                throw ExportError.outputIsInput(path: outputPath)
            }
        }
        if outputExists {
            if (existing.st_mode & S_IFMT) == S_IFDIR { throw ExportError.outputUnwritable(path: outputPath, reason: "is a folder") }
            if !overwrite { throw ExportError.outputExists(path: outputPath) }
        }
        if faccessat(dirfd, ".", W_OK, 0) != 0 {
            throw ExportError.outputUnwritable(path: outputPath, reason: "folder \(FileName.display(parent)) is not writable: \(String(cString: strerror(errno)))")
        }
    }

    /// Creates the temporary file for `name` in the folder: hidden, same folder (so the rename is atomic), created
    /// exclusively, never through a symlink, and locked while it exists. Its descriptor and name.
    private static func createTemporaryFile(for name: String, in dirfd: Int32, outputPath: String) throws -> (Int32, String) {
        var tmpName = ""
        var fd: Int32 = -1
        for attempt in 0..<16 {
            tmpName = TemporaryFiles.temporaryName(for: name, pid: getpid(), token: String(UInt64.random(in: 0...UInt64.max), radix: 36))
            let tmpC = FileName.cString(tmpName)
            fd = openat(dirfd, tmpC, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
            if fd >= 0 {
                // Locked, and the name still ours (a sweep from another PID namespace may have removed it between
                // the create and the lock): only then is it this export's temporary file.
                var mine = stat(), named = stat()
                if flock(fd, LOCK_EX | LOCK_NB) == 0 {
                    if fstat(fd, &mine) == 0, fstatat(dirfd, tmpC, &named, AT_SYMLINK_NOFOLLOW) == 0,
                       mine.st_dev == named.st_dev, mine.st_ino == named.st_ino { break }
                    close(fd)
                    fd = -1
                    errno = EEXIST
                    continue
                }
                // Someone else holds a lock on a file we just created: leave it and take another name.
                unlinkat(dirfd, tmpC, 0)
                close(fd)
                fd = -1
                errno = EEXIST
            }
            if errno != EEXIST || attempt == 15 {
                throw ExportError.outputUnwritable(path: outputPath, reason: "cannot create a temporary file: \(String(cString: strerror(errno)))")
            }
        }
        guard fd >= 0 else {
            throw ExportError.outputUnwritable(path: outputPath, reason: "cannot create a temporary file: its name was taken away 16 times")
        }
        return (fd, tmpName)
    }

    deinit {
        discard()
        close(descriptor)
        close(directory)
    }

    /// Appends bytes to the temporary file (a picture, a byte copy's block): the full-write loop, EINTR retried.
    func write(_ bytes: UnsafeRawBufferPointer) throws {
        guard var base = bytes.baseAddress else { return }
        var left = bytes.count
        while left > 0 {
            let n = Glibc.write(descriptor, base, left)
            if n < 0 {
                if errno == EINTR { continue }
                throw ExportError.outputUnwritable(path: finalPath, reason: "writing: \(String(cString: strerror(errno)))")
            }
            if n == 0 { throw ExportError.outputUnwritable(path: finalPath, reason: "writing: \(String(cString: strerror(EIO)))") }
            base += n
            left -= n
        }
    }

    /// Appends `data` to the temporary file.
    func write(_ data: Data) throws { try data.withUnsafeBytes { try write($0) } }

    /// A read-only descriptor on the temporary file (reopened by name in the folder, refused if the name now
    /// points at another file). The caller closes it.
    func openForReading() throws -> Int32 {
        let fd = cff_output_reopen(directory, temporaryName, descriptor)
        if fd < 0 { throw ExportError.outputUnwritable(path: finalPath, reason: "cannot read the temporary file back: \(String(cString: strerror(-fd)))") }
        return fd
    }

    /// Runs `body` with a path that reads the temporary file (`/proc/self/fd/N` of a descriptor from
    /// `openForReading()`, closed afterwards): what a reader of the output will get.
    package func withReadablePath<T>(_ body: (String) throws -> T) throws -> T {
        let fd = try openForReading()
        defer { close(fd) }
        return try body("/proc/self/fd/\(fd)")
    }

    /// Moves the finished temporary file to its final name (`FilePlacement`): with `overwrite` over anything there;
    /// else never over a file that appeared meanwhile, except one of `replaceable`, proven the very file when replacing.
    public func commit() throws {
        let proceed = state.withLock { $0 == .writing }
        guard proceed else { return }
        // Late write errors (delayed allocation, NFS) surface here, before the file takes its name.
        if fsync(descriptor) != 0 { throw discarding(.outputUnwritable(path: finalPath, reason: "writing the file: \(String(cString: strerror(errno)))")) }
        // The folder may have been moved since it was opened: it must still be inside the sandbox.
        guard let folder = OutputTarget.descriptorPath(directory), OutputTarget.isInside(folder, sandboxRoot) else {
            throw discarding(.outputOutsideSandbox(path: finalPath, sandbox: sandboxRoot))
        }
        let rule: FilePlacement.Rule = overwrite ? .any : replaceable.isEmpty ? .never : .owned(replaceable)
        switch FilePlacement.place(directory: directory, temporary: temporaryName, final: finalName, rule: rule) {
        case .placed: break
        case .exists: throw discarding(.outputExists(path: finalPath))
        case .notOwned: throw discarding(.outputNotOwned(path: finalPath))
        case .failed(let code):
            throw discarding(.outputUnwritable(path: finalPath, reason: "cannot move the finished file into place: \(String(cString: strerror(code)))"))
        }
        state.withLock { $0 = .committed }
        TemporaryFiles.shared.remove(self)
    }

    /// Removes the temporary file and gives back `error`, for the caller to throw.
    private func discarding(_ error: ExportError) -> ExportError {
        discard()
        return error
    }

    /// Removes the temporary file (failed or cancelled export). Safe to call more than once.
    public func discard() {
        let proceed = state.withLock { state -> Bool in
            guard state == .writing else { return false }
            state = .removed
            return true
        }
        guard proceed else { return }
        unlinkat(directory, temporaryName, 0)
        TemporaryFiles.shared.remove(self)
    }

    /// Where an open descriptor really is: the kernel's own path for it (`/proc/self/fd/N`).
    static func descriptorPath(_ fd: Int32) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink("/proc/self/fd/\(fd)", &buffer, buffer.count - 1)
        guard n > 0, buffer[0] == 0x2F /* "/" */ else { return nil }
        return FileName.decode(buffer[0..<n].map { UInt8(bitPattern: $0) })
    }

    /// True when `path` is `root` or inside it, compared as bytes (two spellings of "é" are two folders).
    package static func isInside(_ path: String, _ root: String) -> Bool {
        let p = FileName.bytes(path), r = FileName.bytes(root)
        if p == r || r == [0x2F] { return p.first == 0x2F }
        return p.count > r.count && p.starts(with: r) && p[r.count] == 0x2F
    }
}
