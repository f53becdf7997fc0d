import Foundation
import MediaExportCore
#if canImport(Glibc)
import Glibc
#endif

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
    /// Folders being written (a streaming package's), removed with everything in them by `removeAll`.
    private let folders = LockedBox<Set<String>>([])
    /// Registers a folder being written.
    package func add(folder: String) { _ = folders.withLock { $0.insert(folder) } }
    /// Unregisters a folder (committed, or removed by its owner).
    package func remove(folder: String) { _ = folders.withLock { $0.remove(folder) } }

    /// Unlinks every registered temporary file (relative to its folder's descriptor, which stays open while
    /// registered: a target leaves the registry before it closes it).
    public func removeAll() {
        entries.withLock { entries in
            for e in entries.values { unlinkat(e.directory, e.name, 0) }
            entries.removeAll()
        }
        for folder in folders.withLock({ f in defer { f.removeAll() }; return f.sorted() }) {
            try? FileManager.default.removeItem(atPath: folder)
        }
    }

    static let marker = Array(".mediaexport-tmp-".utf8)

    /// `.NAME.mediaexport-tmp-PID-TOKEN`, within `NAME_MAX` bytes for any legal `name`: a long NAME keeps its
    /// first whole characters (raw bytes count one each; a UTF-8 sequence is never cut) and gets a `~`.
    package static func temporaryName(for name: String, pid: Int32, token: String) -> String {
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
