import Foundation
import MediaExportCore
import MediaExportFFmpeg

/// Files told apart the way a cache can afford to on every run: by path, size and modification time, without reading
/// them (a changed file is another file). The estimates of a dry run (`EstimateStore`) and the CRF searches
/// (`SearchCache`) are keyed by it.
enum FileIdentity {
    /// The SHA-256 (hex) of `settings` and each file's path, size and modification time, in the order given; nil when
    /// one of them cannot be read.
    static func fingerprint(paths: [String], settings: String) -> String? {
        var text = settings + "\n"
        for path in paths {
            guard let st = FileSystem.stat(path) else { return nil }
            text += "\(path)|\(st.st_size)|\(st.st_mtim.tv_sec).\(st.st_mtim.tv_nsec)\n"
        }
        let hasher = SHA256Hasher()
        text.utf8CString.withUnsafeBytes { hasher.update(UnsafeRawBufferPointer(rebasing: $0.dropLast())) }
        return hasher.finish()
    }
}
