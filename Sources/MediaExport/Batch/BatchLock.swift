import Foundation
import MediaExportCore
import MediaExportFFmpeg
#if canImport(Glibc)
import Glibc
#endif

/// Why a batch refused to start, beyond the errors of one export.
public enum BatchError: Error, Equatable, CustomStringConvertible {
    /// Another batch holds the output folder's lock (`holder` is nil when it has not written its name yet).
    case locked(directory: String, holder: BatchLock.Holder?)
    /// A file the batch keeps in the output folder (its database or lock) is a symlink, a hard link or not a
    /// regular file: following it could write outside the output folder, so the batch stops.
    case unsafeStateFile(path: String, reason: String)
    /// The output folder holds the export database of another layout (a run without `--shard` and shards, or shards
    /// of another count): the two would own some assets twice, so the batch refuses to start (exit 73).
    case layoutConflict(directory: String, reason: String)

    /// One line for people: the folder and who holds its lock, or the unsafe file and why.
    public var description: String {
        switch self {
        case .locked(let directory, let holder):
            let who = holder.map { "PID \($0.pid)\($0.host.isEmpty ? "" : " on \(FileName.clip($0.host, limit: 64))") since \($0.started)" }
                ?? "another process"
            return "\(FileName.display(directory)): is being exported by \(who); use --wait to wait for it"
        case .unsafeStateFile(let path, let reason):
            return "\(FileName.display(path)): \(reason); refusing to use it (remove it to go on)"
        case .layoutConflict(let directory, let reason):
            return "\(FileName.display(directory)): \(reason); use another --out, the same shard count, or remove those databases to start over"
        }
    }
}

/// The exclusive lock of one output folder: `DIR/.mediaexport.lock`, held with `flock` for as long as a batch
/// writes there, so two batches on one `--out` never do the same work or overwrite each other's records. The
/// kernel drops the lock when the holder exits, however it exits, so a lock is never stale; the file itself
/// stays (removing it would let a waiter and a newcomer lock two different files).
public final class BatchLock {
    /// The lock file's name inside the output folder.
    public static let fileName = ".mediaexport.lock"

    /// Who holds a lock, as written in the lock file (one JSON object).
    public struct Holder: Codable, Sendable, Equatable {
        /// The holder's process ID.
        public var pid: Int32
        /// When the holder took the lock (ISO 8601, UTC).
        public var started: String
        /// The holder's host name (empty when unknown).
        public var host: String
    }

    /// The lock file.
    public let path: String
    private var fd: Int32
    /// True once this object holds the flock: only then is the file ours to empty on release (a refused lock
    /// file — a hard link, another batch's — is never written).
    private var held = false

    private init(path: String, fd: Int32) { self.path = path; self.fd = fd }

    deinit { release() }

    /// Takes the lock of `directory` (a resolved folder), the file `fileName` in it (a shard's own lock is named by
    /// the shard, so the shards of one batch share a folder). When another process holds it, throws
    /// `BatchError.locked`, or with `wait` calls `onWait` once with the holder and polls until the lock is free
    /// or `isCancelled()` (then throws `ExportError.cancelled`).
    public static func acquire(directory: String, fileName: String = BatchLock.fileName, wait: Bool, isCancelled: () -> Bool = { false },
                               onWait: (Holder?) -> Void = { _ in }) throws -> BatchLock {
        let path = PathName.join(directory, fileName)
        // O_NOFOLLOW: a symlink planted as the lock file would make us write our PID into its target.
        // O_NONBLOCK: a FIFO planted there must not hang the open; the type is checked right after.
        let fd = Glibc.open(FileName.cString(path), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0o644)
        guard fd >= 0 else {
            let code = errno
            if code == ELOOP { throw BatchError.unsafeStateFile(path: path, reason: "the batch lock is a symbolic link") }
            throw ExportError.outputUnwritable(path: path, reason: "cannot open the batch lock: \(String(cString: strerror(code)))")
        }
        let lock = BatchLock(path: path, fd: fd)
        var st = Glibc.stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else {
            throw BatchError.unsafeStateFile(path: path, reason: "the batch lock is not a regular file")
        }
        // We truncate and write it: a hard link would make that write land in another file.
        if st.st_nlink > 1 { throw BatchError.unsafeStateFile(path: path, reason: "the batch lock has other hard links") }
        var waited = false
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR else {
                throw ExportError.outputUnwritable(path: path, reason: "cannot lock: \(String(cString: strerror(errno)))")
            }
            if errno == EINTR { continue }
            guard wait else { throw BatchError.locked(directory: directory, holder: lock.holder()) }
            if !waited { onWait(lock.holder()); waited = true }
            if isCancelled() { throw ExportError.cancelled }
            usleep(100_000)  // polling keeps the wait cancellable by SIGINT/SIGTERM, which a blocking flock is not
        }
        lock.held = true
        lock.writeHolder()
        return lock
    }

    /// Lets the next batch in. Also done on deinit and, by the kernel, when the process ends.
    public func release() {
        guard fd >= 0 else { return }
        if held { _ = ftruncate(fd, 0) }
        close(fd)  // closing the last descriptor releases the flock
        fd = -1
    }

    /// The holder named in the file, if it has written it yet.
    func holder() -> Holder? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { return nil }
        return try? JSONDecoder().decode(Holder.self, from: Data(buffer[0..<n]))
    }

    /// This machine's host name, as a holder names it.
    static var hostName: String {
        var host = [CChar](repeating: 0, count: 256)
        gethostname(&host, host.count - 1)
        return FileName.decode(cString: host)
    }

    private func writeHolder() {
        let formatter = ISO8601DateFormatter()
        let holder = Holder(pid: getpid(), started: formatter.string(from: Date()), host: Self.hostName)
        guard var data = try? JSONEncoder().encode(holder) else { return }
        data.append(0x0A)
        _ = ftruncate(fd, 0)
        _ = data.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
    }
}
