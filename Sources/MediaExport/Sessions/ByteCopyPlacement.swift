import Foundation
import MediaExportCore
import MediaExportFFmpeg

/// Where a byte copy of the resource goes (`ExportRequest.copyPlacement`).
extension ExportRequest {
    /// The copy's path for a resource with extension `ext`: its folder made when it is a subfolder of the output's;
    /// a placement that refuses another container fails before anything is written.
    func byteCopyPath(extension ext: String) throws -> String {
        guard let path = copyPlacement.path(output: output, copyExtension: ext) else {
            throw ExportError.noUsableStreams(path: input, reason: "only a byte copy delivers it, as a .\(ext) file, "
                + "not the .\(PathName.pathExtension(output)) asked (--fallback-container fail)")
        }
        if case .subfolder = copyPlacement, PathName.directory(path) != PathName.directory(output) {
            let folder = PathName.directory(path)
            if mkdir(FileName.cString(folder), 0o755) != 0 && errno != EEXIST {
                throw ExportError.outputUnwritable(path: FileName.display(folder), reason: "cannot create the folder: \(String(cString: strerror(errno)))")
            }
        }
        return path
    }

    /// What the completed record says of a copy of another container placed in a subfolder; nil otherwise.
    func byteCopyPlacementWarning(extension ext: String) -> String? {
        guard case .subfolder(let folder) = copyPlacement, ext != PathName.pathExtension(output).lowercased() else { return nil }
        return "a .\(ext) copy, not the .\(PathName.pathExtension(output)) asked: placed in \(folder)/"
    }
}
