import Foundation
import MediaExportCore

/// A file's identity, size and modification time at one moment, to tell later whether it changed.
package struct InputSnapshot {
    let path: String
    private let attributes: stat

    /// Takes the snapshot now.
    package init(path: String) throws {
        guard let st = FileSystem.stat(path) else { throw ExportError.inputUnreadable(path: path, reason: String(cString: strerror(errno))) }
        self.init(path: path, attributes: st)
    }

    init(path: String, attributes: stat) {
        self.path = path
        self.attributes = attributes
    }

    /// Throws `inputChanged` when the file was removed, replaced, resized or modified since the snapshot.
    /// The file's size when the snapshot was taken.
    package var size: Int64 { Int64(attributes.st_size) }

    package func verify() throws {
        guard let now = FileSystem.stat(path) else { throw ExportError.inputChanged(path: path, reason: "the file was removed") }
        if now.st_dev != attributes.st_dev || now.st_ino != attributes.st_ino {
            throw ExportError.inputChanged(path: path, reason: "the file was replaced")
        }
        if now.st_size != attributes.st_size {
            throw ExportError.inputChanged(path: path, reason: "size changed from \(attributes.st_size) to \(now.st_size) bytes")
        }
        if now.st_mtim.tv_sec != attributes.st_mtim.tv_sec || now.st_mtim.tv_nsec != attributes.st_mtim.tv_nsec {
            throw ExportError.inputChanged(path: path, reason: "the file was modified")
        }
    }
}
