internal import CFFmpeg
import Foundation
import MediaExportCore

/// SHA-256 through libavutil's implementation.
package final class SHA256Hasher {
    private let context: OpaquePointer

    package init() {
        guard let ctx = av_sha_alloc() else { fatalError("av_sha_alloc: out of memory") }
        context = ctx
        av_sha_init(context, 256)
    }

    deinit { av_free(UnsafeMutableRawPointer(context)) }

    package func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        av_sha_update(context, base.assumingMemoryBound(to: UInt8.self), bytes.count)
    }

    /// The digest as lowercase hex.
    package func finish() -> String {
        var digest = [UInt8](repeating: 0, count: 32)
        av_sha_final(context, &digest)
        return digest.map { String(format: "%02x", $0) }.joined()
    }

    /// Hashes a whole file, streaming (never loads it into memory).
    package static func file(_ path: String, cancel: CancelToken? = nil) throws -> String {
        let fd = open(FileName.cString(path), O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ExportError.inputUnreadable(path: path, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        return try descriptor(fd, cancel: cancel) { ExportError.inputUnreadable(path: path, reason: $0) }
    }

    /// Hashes what an open descriptor reads to its end; `failure` makes the error for a read that fails.
    static func descriptor(_ fd: Int32, cancel: CancelToken? = nil, failure: (String) -> ExportError) throws -> String {
        let hasher = SHA256Hasher()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            if let cancel, cancel.isSet { throw ExportError.cancelled }
            let n = read(fd, buffer.baseAddress, buffer.count)
            if n < 0 { if errno == EINTR { continue }; throw failure(String(cString: strerror(errno))) }
            if n == 0 { break }
            hasher.update(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
        }
        return hasher.finish()
    }
}

/// The last step of the fallback chain: a byte-exact copy of the resource into the output's temporary file
/// (through the target's descriptor), streamed in 1 MiB blocks, hashed while copying and verified against a
/// re-read of the copy.
package enum ByteCopy {
    /// Copies `source` into the target's temporary file and returns the SHA-256 both share.
    /// `activity` is bumped after every block (the stall watchdog watches it).
    package static func copy(source: String, to target: OutputTarget, cancel: CancelToken,
                     activity: () -> Void) throws -> String {
        let input = open(FileName.cString(source), O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw ExportError.inputUnreadable(path: source, reason: String(cString: strerror(errno))) }
        defer { close(input) }
        var before = stat()
        fstat(input, &before)

        let hasher = SHA256Hasher()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        var total: Int64 = 0
        while true {
            if cancel.isSet { throw ExportError.cancelled }
            let n = read(input, buffer.baseAddress, buffer.count)
            if n < 0 {
                if errno == EINTR { continue }
                throw ExportError.inputUnreadable(path: source, reason: String(cString: strerror(errno)))
            }
            if n == 0 { break }
            let block = UnsafeRawBufferPointer(rebasing: buffer[0..<n])
            hasher.update(block)
            try target.write(block)
            total += Int64(n)
            activity()
        }
        if total != Int64(before.st_size) {
            throw ExportError.inputChanged(path: source, reason: "read \(total) bytes of \(before.st_size)")
        }
        let expected = hasher.finish()
        // Read the copy back from the file system (not from our buffers): what a reader of the output will get.
        // (Write errors that surface only on fsync are caught by `commit()`, which syncs before the rename.)
        let copy = try target.openForReading()
        defer { close(copy) }
        let actual = try SHA256Hasher.descriptor(copy, cancel: cancel) { ExportError.outputUnwritable(path: target.finalPath, reason: $0) }
        if actual != expected { throw ExportError.copyMismatch(path: target.finalPath, expected: expected, actual: actual) }
        return expected
    }
}
