import Foundation
import MediaExportCore
import MediaExportFFmpeg
import MediaExportFFmpeg

extension UntrustedFile {
    /// Reads a regular file of at most `maxBytes`; `kind` names the files in the refusal ("edit sidecars").
    static func read(_ path: String, kind: String) throws -> Data {
        // FileSystem.read opens without blocking (a FIFO named like a sidecar) and refuses what is not a regular file.
        do { return try FileSystem.read(path, limit: maxBytes) } catch FileSystem.ReadError.tooLarge(let size, _) {
            throw tooLarge(Int64(size), kind: kind)
        } catch FileSystem.ReadError.unreadable(let reason) {
            throw Refusal(field: "-", reason: "cannot read the file: \(reason)")
        }
    }

}

extension EditSidecar {
    /// Loads a sidecar file of at most `UntrustedFile.maxBytes` (a larger one is refused unread).
    public static func load(path: String) throws -> EditSidecar {
        let data: Data
        do { data = try UntrustedFile.read(path, kind: "edit sidecars") } catch let refusal as UntrustedFile.Refusal {
            throw ExportError.invalidSidecar(path: path, field: refusal.field, reason: refusal.reason)
        }
        return try parse(data, path: path)
    }

}
