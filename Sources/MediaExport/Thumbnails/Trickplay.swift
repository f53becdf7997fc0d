import Foundation
import MediaExportCore
import MediaExportFFmpeg

/// Trickplay scrub previews of a video file (a package's rendition or its source): sprite sheets of small upright
/// tiles, a WebVTT thumbnails track whose cues point into them (`sprites/sheet_000.jpg#xywh=x,y,w,h`) and a JSON
/// index, made from keyframes alone when every tile has one within half an interval (docs/trickplay.md).
public enum Trickplay {
    /// Writes `sprites/sheet_NNN.jpg`, `thumbnails.vtt` and `thumbnails.json` of `input` into `folder` (created if
    /// missing; written directly, for a caller that commits the folder whole). `duration`: seconds the cues cover
    /// (nil: the container's); `interval` and `tileWidth`: nil for the rules of `SpriteLayout`. Throws
    /// `ExportError` (a file without decodable video: `noUsableStreams`).
    public static func render(input: String, duration: Double? = nil, into folder: String, interval: Double? = nil,
                              tileWidth: Int? = nil) throws -> TrickplayResult {
        try SpriteRenderer.render(input: input, duration: duration, into: folder, interval: interval, tileWidth: tileWidth)
    }
}
