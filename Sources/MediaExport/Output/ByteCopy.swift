import CFFmpeg
import Foundation

/// SHA-256 through libavutil's implementation.
final class SHA256Hasher {
    private let context: OpaquePointer

    init() {
        guard let ctx = av_sha_alloc() else { fatalError("av_sha_alloc: out of memory") }
        context = ctx
        av_sha_init(context, 256)
    }

    deinit { av_free(UnsafeMutableRawPointer(context)) }

    func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        av_sha_update(context, base.assumingMemoryBound(to: UInt8.self), bytes.count)
    }

    /// The digest as lowercase hex.
    func finish() -> String {
        var digest = [UInt8](repeating: 0, count: 32)
        av_sha_final(context, &digest)
        return digest.map { String(format: "%02x", $0) }.joined()
    }

    /// Hashes a whole file, streaming (never loads it into memory).
    static func file(_ path: String, cancel: UnsafeMutablePointer<Int32>? = nil) throws -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ExportError.inputUnreadable(path: path, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        let hasher = SHA256Hasher()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            if let cancel, cancel.pointee != 0 { throw ExportError.cancelled }
            let n = read(fd, buffer.baseAddress, buffer.count)
            if n < 0 { if errno == EINTR { continue }; throw ExportError.inputUnreadable(path: path, reason: String(cString: strerror(errno))) }
            if n == 0 { break }
            hasher.update(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
        }
        return hasher.finish()
    }
}

/// The last step of the fallback chain: a byte-exact copy of the resource into the output's temporary file,
/// streamed in 1 MiB blocks, hashed while copying and verified against a re-read of the copy.
enum ByteCopy {
    /// Copies `source` into `target.temporaryPath` and returns the SHA-256 both share.
    /// `activity` is bumped after every block (the stall watchdog watches it).
    static func copy(source: String, to target: OutputTarget, cancel: UnsafeMutablePointer<Int32>,
                     activity: () -> Void) throws -> String {
        let input = open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw ExportError.inputUnreadable(path: source, reason: String(cString: strerror(errno))) }
        defer { close(input) }
        var before = stat()
        fstat(input, &before)
        let output = open(target.temporaryPath, O_WRONLY | O_TRUNC | O_CLOEXEC)
        guard output >= 0 else { throw ExportError.outputUnwritable(path: target.finalPath, reason: String(cString: strerror(errno))) }
        var outputOpen = true
        defer { if outputOpen { close(output) } }

        let hasher = SHA256Hasher()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        var total: Int64 = 0
        while true {
            if cancel.pointee != 0 { throw ExportError.cancelled }
            let n = read(input, buffer.baseAddress, buffer.count)
            if n < 0 {
                if errno == EINTR { continue }
                throw ExportError.inputUnreadable(path: source, reason: String(cString: strerror(errno)))
            }
            if n == 0 { break }
            hasher.update(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
            var written = 0
            while written < n {
                let w = write(output, buffer.baseAddress! + written, n - written)
                if w < 0 {
                    if errno == EINTR { continue }
                    throw ExportError.outputUnwritable(path: target.finalPath, reason: String(cString: strerror(errno)))
                }
                written += w
            }
            total += Int64(n)
            activity()
        }
        if fsync(output) != 0 {
            throw ExportError.outputUnwritable(path: target.finalPath, reason: String(cString: strerror(errno)))
        }
        outputOpen = false
        if close(output) != 0 {
            throw ExportError.outputUnwritable(path: target.finalPath, reason: String(cString: strerror(errno)))
        }
        if total != Int64(before.st_size) {
            throw ExportError.inputChanged(path: source, reason: "read \(total) bytes of \(before.st_size)")
        }
        let expected = hasher.finish()
        let actual = try SHA256Hasher.file(target.temporaryPath, cancel: cancel)
        if actual != expected { throw ExportError.copyMismatch(path: target.finalPath, expected: expected, actual: actual) }
        return expected
    }
}
