import Foundation
#if canImport(Glibc)
import Glibc
#endif
import MediaExportCore


/// The file-system calls the library makes on names, all through `FileName`'s lossless bytes.
public enum FileSystem {
    /// `stat(2)` (follows symlinks); nil when it fails (`errno` is set).
    public static func stat(_ path: String) -> Glibc.stat? {
        var st = Glibc.stat()
        return systemStat(FileName.cString(path), &st) == 0 ? st : nil
    }

    /// `lstat(2)` (does not follow a final symlink); nil when it fails (`errno` is set).
    public static func lstat(_ path: String) -> Glibc.stat? {
        var st = Glibc.stat()
        return systemLstat(FileName.cString(path), &st) == 0 ? st : nil
    }

    /// True when something exists at `path` (a dangling symlink counts).
    public static func exists(_ path: String) -> Bool { lstat(path) != nil }

    /// True when `path` is a folder (following symlinks).
    public static func isDirectory(_ path: String) -> Bool {
        guard let st = stat(path) else { return false }
        return (st.st_mode & S_IFMT) == S_IFDIR
    }

    /// True when `path` itself is a symlink.
    public static func isSymlink(_ path: String) -> Bool {
        guard let st = lstat(path) else { return false }
        return (st.st_mode & S_IFMT) == S_IFLNK
    }

    /// `fsync(2)` of a file or folder by name (its data and entry on the disk before a rename publishes it);
    /// a failure is left to the caller's later checks.
    public static func sync(path: String) {
        let fd = open(FileName.cString(path), O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = fsync(fd)
        close(fd)
    }

    /// True when `path` is a regular file (following symlinks).
    public static func isRegularFile(_ path: String) -> Bool {
        guard let st = stat(path) else { return false }
        return (st.st_mode & S_IFMT) == S_IFREG
    }

    /// The size of a file in bytes, following symlinks.
    public static func size(_ path: String) -> Int64? { stat(path).map { Int64($0.st_size) } }

    /// `realpath(3)`: the absolute path with every symlink, `.` and `..` resolved; nil when it does not exist.
    public static func realPath(_ path: String) -> String? {
        guard let r = systemRealpath(FileName.cString(path), nil) else { return nil }
        defer { free(r) }
        return FileName.decode(cString: r)
    }

    /// The names in a folder (without `.` and `..`), decoded losslessly; nil when it cannot be read.
    public static func contents(ofDirectory path: String) -> [String]? {
        guard let dir = opendir(FileName.cString(path)) else { return nil }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = FileName.decode(cString: entryName(entry))
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// The name of a `readdir` entry, read in place: a record is only as long as its name (`d_reclen`), so copying the
    /// 256-byte `d_name` field out of the last record of readdir's buffer reads past its end (AddressSanitizer:
    /// heap-buffer-overflow).
    static func entryName(_ entry: UnsafeMutablePointer<dirent>) -> UnsafePointer<CChar> {
        UnsafeRawPointer(entry).advanced(by: MemoryLayout<dirent>.offset(of: \dirent.d_name)!).assumingMemoryBound(to: CChar.self)
    }

    /// Reads a whole small file, refusing one larger than `limit` bytes (checked on the open descriptor,
    /// and again while reading, so a file that grows cannot get past it). Throws `FileSystem.ReadError`.
    public static func read(_ path: String, limit: Int) throws -> Data {
        let fd = Glibc.open(FileName.cString(path), O_RDONLY | O_CLOEXEC | O_NONBLOCK)  // a FIFO never blocks the open
        guard fd >= 0 else { throw ReadError.unreadable(String(cString: strerror(errno))) }
        defer { close(fd) }
        var st = Glibc.stat()
        guard fstat(fd, &st) == 0 else { throw ReadError.unreadable(String(cString: strerror(errno))) }
        guard (st.st_mode & S_IFMT) == S_IFREG else { throw ReadError.unreadable("not a regular file") }
        if st.st_size > limit { throw ReadError.tooLarge(size: Int64(st.st_size), limit: limit) }
        var data = Data(count: Int(st.st_size) + 1)
        var total = 0
        while true {
            if total == data.count {
                if total > limit { throw ReadError.tooLarge(size: Int64(total), limit: limit) }
                data.count += 64 << 10
            }
            let n = data.withUnsafeMutableBytes { buf in Glibc.read(fd, buf.baseAddress! + total, buf.count - total) }
            if n < 0 { if errno == EINTR { continue }; throw ReadError.unreadable(String(cString: strerror(errno))) }
            if n == 0 { break }
            total += n
            if total > limit { throw ReadError.tooLarge(size: Int64(total), limit: limit) }
        }
        data.count = total
        return data
    }

    /// Why `read(_:limit:)` failed.
    public enum ReadError: Error, Equatable {
        case unreadable(String)
        case tooLarge(size: Int64, limit: Int)
    }
}

// The C calls under names that the `FileSystem` members do not shadow.
private func systemStat(_ path: UnsafePointer<CChar>, _ st: inout stat) -> Int32 { stat(path, &st) }
private func systemLstat(_ path: UnsafePointer<CChar>, _ st: inout stat) -> Int32 { lstat(path, &st) }
private func systemRealpath(_ path: UnsafePointer<CChar>, _ resolved: UnsafeMutablePointer<CChar>?) -> UnsafeMutablePointer<CChar>? { realpath(path, resolved) }
