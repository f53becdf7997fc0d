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
    /// Whether the file is still being written, committed or removed; `discard()` may come from another thread.
    private let state = LockedBox(State.writing)

    private enum State { case writing, committed, removed }

    /// Validates the output against the input and sandbox, sweeps stale temporary files from its folder, and
    /// creates the temporary file (exclusively). `anyExtension` accepts any extension (a byte copy keeps the source's).
    public init(output: String, inputs: [String], overwrite: Bool, sandbox: String?, defaultExtension: String,
                anyExtension: Bool = false) throws {
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
        self.container = container
        self.overwrite = overwrite

        if name.isEmpty || name == "." || name == ".." {
            throw ExportError.outputUnwritable(path: outputPath, reason: "not a file name")
        }
        if FileName.bytes(name).count > Int(NAME_MAX) {
            throw ExportError.outputUnwritable(path: outputPath, reason: "the name is longer than \(NAME_MAX) bytes")
        }
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
        sandboxRoot = realSandbox

        // The folder, once: its resolved path opened without following a symlink, so a component swapped for a
        // symlink since realpath either fails here or shows in the descriptor's own path, checked next.
        let dirfd = open(FileName.cString(realParent), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard dirfd >= 0 else {
            let err = errno
            throw ExportError.outputUnwritable(path: outputPath, reason: err == ELOOP || err == ENOTDIR
                ? "folder \(FileName.display(parent)) changed while being opened (now a symlink)"
                : "cannot open folder \(FileName.display(parent)): \(String(cString: strerror(err)))")
        }
        var ownsDirectory = true
        defer { if ownsDirectory { close(dirfd) } }
        guard let folder = OutputTarget.descriptorPath(dirfd) else {
            throw ExportError.outputUnwritable(path: outputPath, reason: "cannot tell where folder \(FileName.display(parent)) is (is /proc mounted?)")
        }
        if !OutputTarget.isInside(folder, realSandbox) {
            throw ExportError.outputOutsideSandbox(path: outputPath, sandbox: realSandbox)
        }
        let resolved = folder == "/" ? "/" + name : folder + "/" + name
        let nameC = FileName.cString(name)

        // Never onto the input: same path, through a symlink, or a hard link to it.
        var existing = Glibc.stat()
        let outputExists = fstatat(dirfd, nameC, &existing, AT_SYMLINK_NOFOLLOW) == 0
        var followed = Glibc.stat()
        let outputFollowed = fstatat(dirfd, nameC, &followed, 0) == 0
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

        // Temporary files that killed processes left in this folder go first.
        TemporaryFiles.sweepOccasionally(directoryDescriptor: dirfd)

        // Temporary file: hidden, same folder (so the rename is atomic), created exclusively, never through a
        // symlink, and locked while it exists.
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
        ownsDirectory = false
        directory = dirfd
        descriptor = fd
        finalPath = resolved
        finalName = nameC
        temporaryName = FileName.cString(tmpName)
        temporaryPath = folder == "/" ? "/" + tmpName : folder + "/" + tmpName
        TemporaryFiles.shared.add(self)
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

    /// Moves the finished temporary file to its final name. Without `overwrite` this never replaces a file
    /// that appeared meanwhile (a hard link fails if the name exists; the temp name is then removed).
    public func commit() throws {
        let proceed = state.withLock { $0 == .writing }
        guard proceed else { return }
        // Late write errors (delayed allocation, NFS) surface here, before the file takes its name.
        if fsync(descriptor) != 0 {
            let reason = String(cString: strerror(errno))
            discard()
            throw ExportError.outputUnwritable(path: finalPath, reason: "writing the file: \(reason)")
        }
        // The folder may have been moved since it was opened: it must still be inside the sandbox.
        guard let folder = OutputTarget.descriptorPath(directory), OutputTarget.isInside(folder, sandboxRoot) else {
            discard()
            throw ExportError.outputOutsideSandbox(path: finalPath, sandbox: sandboxRoot)
        }
        if overwrite {
            if renameat(directory, temporaryName, directory, finalName) != 0 {
                let reason = String(cString: strerror(errno))
                discard()
                throw ExportError.outputUnwritable(path: finalPath, reason: "cannot move the finished file into place: \(reason)")
            }
        } else if linkat(directory, temporaryName, directory, finalName, 0) == 0 {
            unlinkat(directory, temporaryName, 0)
        } else {
            if errno == EEXIST {
                discard()
                throw ExportError.outputExists(path: finalPath)
            }
            // File systems without hard links: rename without replacing; failing that, check, then rename
            // (a small race, reported if lost).
            let code = cff_rename_noreplace(directory, temporaryName, finalName)
            if code == -EEXIST { discard(); throw ExportError.outputExists(path: finalPath) }
            if code != 0 {
                var st = Glibc.stat()
                if fstatat(directory, finalName, &st, AT_SYMLINK_NOFOLLOW) == 0 { discard(); throw ExportError.outputExists(path: finalPath) }
                if renameat(directory, temporaryName, directory, finalName) != 0 {
                    let reason = String(cString: strerror(errno))
                    discard()
                    throw ExportError.outputUnwritable(path: finalPath, reason: "cannot move the finished file into place: \(reason)")
                }
            }
        }
        state.withLock { $0 = .committed }
        TemporaryFiles.shared.remove(self)
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

/// Temporary files: the ones this process has in flight (so a process that must exit at once — a second
/// Ctrl-C — can remove them), their names, and the sweep that removes the ones killed processes left behind.
///
/// A temporary file is `.NAME.mediaexport-tmp-PID-TOKEN` beside its output (NAME shortened, with a `~`, when
/// the whole would pass `NAME_MAX`). Its writer holds an `flock` on it from creation to rename or removal, and
/// the kernel drops that lock when the writer dies, even by SIGKILL. A sweep removes a temporary file only
/// when it can take that lock *and* its writer is gone: no process has its PID, or the process that has it
/// now started after the file was last written (the PID was reused — a container restart gives the same PID).
public final class TemporaryFiles: Sendable {
    /// The process-wide registry.
    public static let shared = TemporaryFiles()
    private let entries = LockedBox<[ObjectIdentifier: Entry]>([:])

    private final class Entry: Sendable {
        let directory: Int32
        let name: [CChar]
        init(_ t: OutputTarget) { directory = t.directory; name = t.temporaryName }
    }

    func add(_ t: OutputTarget) { entries.withLock { $0[ObjectIdentifier(t)] = Entry(t) } }
    func remove(_ t: OutputTarget) { entries.withLock { $0[ObjectIdentifier(t)] = nil } }

    /// Unlinks every registered temporary file (relative to its folder's descriptor, which stays open while
    /// registered: a target leaves the registry before it closes it).
    public func removeAll() {
        entries.withLock { entries in
            for e in entries.values { unlinkat(e.directory, e.name, 0) }
            entries.removeAll()
        }
    }

    static let marker = Array(".mediaexport-tmp-".utf8)

    /// `.NAME.mediaexport-tmp-PID-TOKEN`, within `NAME_MAX` bytes for any legal `name`: a long NAME keeps its
    /// first whole characters (raw bytes count one each; a UTF-8 sequence is never cut) and gets a `~`.
    static func temporaryName(for name: String, pid: Int32, token: String) -> String {
        let suffix = ".mediaexport-tmp-\(pid)-\(token)"
        let budget = Int(NAME_MAX) - 1 - suffix.utf8.count
        if FileName.bytes(name).count <= budget { return "." + name + suffix }
        return "." + PathName.prefix(of: name, bytes: budget - 1) + "~" + suffix
    }

    /// The writer's PID when `name` (bytes) is one of our temporary files' names.
    static func writerPID(_ name: [UInt8]) -> pid_t? {
        guard name.first == 0x2E, name.count > marker.count + 4 else { return nil }
        // The last occurrence of the marker: NAME itself may contain it.
        var i = name.count - marker.count
        while i >= 1 {
            if name[i] == marker[0], Array(name[i..<(i + marker.count)]) == marker { break }
            i -= 1
        }
        guard i >= 1 else { return nil }
        let rest = name[(i + marker.count)...]
        guard let dash = rest.firstIndex(of: 0x2D) else { return nil }
        let pidBytes = rest[rest.startIndex..<dash], token = rest[(dash + 1)...]
        guard !pidBytes.isEmpty, pidBytes.count <= 10, pidBytes.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
              !token.isEmpty, token.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x7A) }),
              let pid = Int32(String(decoding: pidBytes, as: UTF8.self)), pid > 0 else { return nil }
        return pid
    }

    /// Removes the temporary files in `directory` that killed processes left behind (see the type's
    /// description for the rule), and returns their names. Not recursive; symlinks are never followed.
    /// Exports sweep their own output folder; a batch calls this once for its output root.
    @discardableResult
    public static func sweep(directory: String) -> [String] {
        let fd = open(FileName.cString(directory), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return [] }
        defer { close(fd) }
        return sweep(directoryDescriptor: fd)
    }

    /// The sweep, on an open folder.
    static func sweep(directoryDescriptor dirfd: Int32) -> [String] {
        // An independent open of the folder for reading, so the caller's descriptor keeps its own offset.
        let listing = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard listing >= 0 else { return [] }
        guard let dir = fdopendir(listing) else { close(listing); return [] }
        defer { closedir(dir) }
        var removed: [String] = []
        while let entry = readdir(dir) {
            let name = FileSystem.entryName(entry)
            let bytes = Array(UnsafeRawBufferPointer(start: name, count: strlen(name)))
            guard let pid = writerPID(bytes) else { continue }
            var nameC = bytes.map { CChar(bitPattern: $0) }
            nameC.append(0)
            if removeIfStale(dirfd: dirfd, name: nameC, pid: pid) { removed.append(FileName.decode(bytes)) }
        }
        return removed
    }

    private static func removeIfStale(dirfd: Int32, name: [CChar], pid: pid_t) -> Bool {
        var before = Glibc.stat()
        guard fstatat(dirfd, name, &before, AT_SYMLINK_NOFOLLOW) == 0, (before.st_mode & S_IFMT) == S_IFREG else { return false }
        let written = Double(before.st_mtim.tv_sec) + Double(before.st_mtim.tv_nsec) / 1e9
        guard writerGone(pid: pid, lastWritten: written) else { return false }
        let fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }  // also drops our lock
        var st = Glibc.stat()
        guard fstat(fd, &st) == 0, st.st_dev == before.st_dev, st.st_ino == before.st_ino else { return false }
        // A writer holds the lock while the file exists: taken means nobody is writing it.
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else { return false }
        // Still the same file under that name (not replaced since we opened it)?
        var now = Glibc.stat()
        guard fstatat(dirfd, name, &now, AT_SYMLINK_NOFOLLOW) == 0, now.st_dev == st.st_dev, now.st_ino == st.st_ino else { return false }
        return unlinkat(dirfd, name, 0) == 0
    }

    /// No process has `pid`, or the one that has it started after the file was last written (PID reuse).
    /// A second of slack: the boot time the kernel reports is in whole seconds.
    static func writerGone(pid: pid_t, lastWritten: Double) -> Bool {
        if pid != getpid(), kill(pid, 0) != 0, errno == ESRCH { return true }
        guard let started = processStartTime(pid) else { return false }
        return lastWritten < started - 2
    }

    /// When process `pid` started, in seconds since 1970 (from `/proc/PID/stat` and the boot time).
    static func processStartTime(_ pid: pid_t) -> Double? {
        guard let stat = try? FileSystem.read("/proc/\(pid)/stat", limit: 4096),
              let paren = stat.lastIndex(of: 0x29 /* ")" */) else { return nil }
        let fields = String(decoding: stat[(paren + 1)...], as: UTF8.self).split(separator: " ")
        // Field 22 (starttime, clock ticks after boot) is the 20th after the command name.
        guard fields.count > 19, let ticks = Double(fields[19]), let boot = bootTime else { return nil }
        return boot + ticks / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    private static let bootTime: Double? = {
        guard let data = try? FileSystem.read("/proc/stat", limit: 1 << 20) else { return nil }
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") where line.hasPrefix("btime ") {
            return Double(line.dropFirst(6).trimmingCharacters(in: .whitespaces))
        }
        return nil
    }()

    /// Sweeps a folder unless this process swept it in the last minute (a batch writes thousands of outputs
    /// into one folder; killed processes' leftovers do not appear faster than that matters).
    static func sweepOccasionally(directoryDescriptor dirfd: Int32) {
        var st = Glibc.stat()
        guard fstat(dirfd, &st) == 0 else { return }
        let key = "\(st.st_dev):\(st.st_ino)"
        let now = Date()
        let due = recentSweeps.withLock { (swept: inout [String: Date]) -> Bool in
            if let last = swept[key], now.timeIntervalSince(last) < 60 { return false }
            swept[key] = now
            return true
        }
        if due { _ = sweep(directoryDescriptor: dirfd) }
    }

    /// When each folder was last swept.
    private static let recentSweeps = LockedBox<[String: Date]>([:])

}
