import Foundation
import MediaExportCore
import MediaExportFFmpeg

/// Makes upright poster frames and thumbnails of a version of an asset (like `PHImageManager.requestImage`):
/// decode (fast keyframe or exact), apply the version's crop, rotate and flip as displayed, scale to fit or fill,
/// and write a PNG or JPEG through a temporary file renamed into place.
public enum Thumbnailer {
    /// Makes the picture `request` asks for. Throws `ExportError`.
    public static func make(_ request: ThumbnailRequest) throws -> ThumbnailResult {
        let ext = PathName.pathExtension(request.output).lowercased()
        guard ["jpg", "jpeg", "png"].contains(ext) else {
            throw ExportError.outputUnwritable(path: request.output, reason: "a thumbnail must be .jpg, .jpeg or .png")
        }
        if let w = request.width, let h = request.height, w < 2 || h < 2 || w > 16384 || h > 16384 {
            throw ExportError.invalidTimeRange(path: request.output, reason: "size \(w)x\(h) must be between 2 and 16384")
        }
        if let w = request.width, request.height == nil, w < 2 || w > 16384 {
            throw ExportError.invalidTimeRange(path: request.output, reason: "width \(w) must be between 2 and 16384")
        }
        let selection = try VersionResolver.select(input: request.input, version: request.version, editsPath: request.editsPath, requireCurrent: false)
        return try ThumbnailRenderer.make(request, report: selection.report, edits: selection.edits)
    }
}
