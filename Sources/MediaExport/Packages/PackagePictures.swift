import Foundation
import MediaExportCore
import MediaExportFFmpeg

/// The pictures of a package: the poster (the thumbnail rules: the first frame from 10 % of the duration on that
/// is not nearly uniform, so neither black nor a fade), at the top rung's size; and the scrub previews, made from
/// the smallest rung (already upright and edited: its keyframes are the segment boundaries).
enum PackagePictures {
    /// The poster's file name.
    static let posterName = "poster.jpg"

    /// Writes `poster.jpg` of the request's version, no larger than the top rung's picture.
    static func poster(_ request: PackageRequest, top: ExportEvent.Completed, into folder: PackageFolder) throws -> PackagePoster {
        let side = max(top.width ?? 0, top.height ?? 0)
        let result = try Thumbnailer.make(ThumbnailRequest(input: request.input, output: folder.path(posterName), width: side > 1 ? side : nil,
                                                           height: side > 1 ? side : nil, version: request.version, editsPath: request.editsPath))
        return PackagePoster(file: posterName, width: result.width, height: result.height, time: result.time, reason: result.reason)
    }

    /// Writes the sprite sheets, `thumbnails.vtt` and `thumbnails.json` from the smallest rung's encode.
    static func sprites(from encoded: [(LadderRung, ExportEvent.Completed)], into folder: PackageFolder) throws -> TrickplayResult {
        guard let smallest = encoded.last else { throw ExportError.usage(reason: "a package without rungs") }
        return try Trickplay.render(input: folder.path(smallest.0.name + ".mp4"), duration: smallest.1.duration, into: folder.workPath)
    }
}
