import Foundation
import MediaExportCore
import MediaExportFFmpeg

extension UntrustedFile {
    /// Reads a regular file of at most `maxBytes`; `kind` names the files in the refusal ("edit sidecars"), thrown as
    /// `invalid(path, field, reason)` (`ExportError.invalidSidecar`, `ExportError.invalidPreset`).
    static func read(_ path: String, kind: String, invalid: (String, String, String) -> ExportError) throws -> Data {
        // FileSystem.read opens without blocking (a FIFO named like a sidecar) and refuses what is not a regular file.
        do { return try FileSystem.read(path, limit: maxBytes) } catch FileSystem.ReadError.tooLarge(let size, _) {
            let refusal = tooLarge(Int64(size), kind: kind)
            throw invalid(path, refusal.field, refusal.reason)
        } catch FileSystem.ReadError.unreadable(let reason) {
            throw invalid(path, "-", "cannot read the file: \(reason)")
        }
    }
}

extension EditSidecar {
    /// Loads a sidecar file of at most `UntrustedFile.maxBytes` (a larger one is refused unread).
    public static func load(path: String) throws -> EditSidecar {
        try parse(try UntrustedFile.read(path, kind: "edit sidecars", invalid: ExportError.invalidSidecar), path: path)
    }
}
