import Foundation

/// Cover art (a stream with `AV_DISPOSITION_ATTACHED_PIC`: one picture, no timeline) and where FFmpeg 5.1 can write
/// it back as cover art — not as a video track, which is what a player would show for a one-frame `mjpeg` track.
/// Checked on Debian's libavformat 59.27 with the ffmpeg CLI and read back with ffprobe:
/// - MP4, M4V (`mp4` muxer) and M4A (`ipod`): the `covr` atom of the iTunes metadata (`ilst`), for a stream whose
///   disposition is exactly `attached_pic` and whose codec is JPEG, PNG or BMP (a GIF fails the header); several
///   pictures are kept in one `covr`. No track: an M4A with a cover stays an audio file. Not written when the muxer
///   writes QuickTime metadata keys (`use_metadata_tags`, which Apple's `com.apple.quicktime.*` tags need): its
///   `mdta` metadata box has no `covr`.
/// - MOV (`mov` muxer): no `covr` at all (the picture is silently left out). WebM: no attachments at all.
/// - Matroska: the muxer writes an attached picture as a one-frame video track; only an attachment (a stream of type
///   attachment with the picture in its extradata, a `filename` and a `mimetype`) is cover art, which the demuxer
///   reads back as an attached picture for JPEG, PNG and GIF (not BMP).
package enum CoverArt {
    /// The picture codecs `container` keeps as cover art (empty: it keeps none).
    package static func codecs(in container: Container) -> Set<String> {
        switch container {
        case .mp4, .m4v, .m4a: return ["mjpeg", "png", "bmp"]
        case .mkv: return ["mjpeg", "png", "gif"]
        case .mov, .webm: return []
        }
    }

    /// Why `codec` cover art cannot go into `container`, or nil when it can. `quickTimeKeys`: the output carries
    /// Apple's QuickTime metadata keys (see `OutputTags.needsQuickTimeKeys`).
    package static func dropReason(codec: String, container: Container, quickTimeKeys: Bool) -> String? {
        let ext = ".\(container.rawValue)"
        if container == .mov { return "cover art: FFmpeg's MOV muxer does not write it (.mp4, .m4v, .m4a and .mkv keep it)" }
        if container == .webm { return "cover art: WebM has no attachments (.mp4, .m4v, .m4a and .mkv keep it)" }
        if container.isQuickTimeFamily && quickTimeKeys {
            return "cover art: FFmpeg's MP4 muxer writes no cover beside Apple's QuickTime metadata keys (com.apple.quicktime.*), which this output carries"
        }
        let kept = codecs(in: container)
        if !kept.contains(codec) {
            let names = kept.sorted().map { $0 == "mjpeg" ? "JPEG" : $0.uppercased() }
            return "cover art in \(codec): \(ext) keeps \(names.joined(separator: ", ")) cover art only"
        }
        return nil
    }

    /// How the kept picture is written, for the `started` event.
    package static func note(container: Container) -> String {
        container == .mkv ? "as cover art: a Matroska attachment" : "as cover art: the MP4 covr atom"
    }

    /// Why a cover is not exported when nothing else of the file is.
    package static let aloneReason = "cover art alone is not exported"
}
