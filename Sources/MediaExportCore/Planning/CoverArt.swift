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
/// At `--metadata sharing` and `none` the picture is written without the metadata it holds (`treatment`,
/// `PictureMetadata`).
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

    /// What a metadata level does with a cover's picture.
    package enum Treatment: Sendable, Equatable {
        /// Copied as it is (`all`).
        case asIs
        /// Copied without its metadata segments (`PictureMetadata.strip`), removing these (empty: it has none).
        case strip([PictureMetadata.Removed])
        /// Left out: it cannot be read to strip it, and is never kept with its metadata.
        case drop(PictureMetadata.Fault?)
    }

    /// At `all` a cover is copied as it is; at `sharing` and `none` its picture is kept without its metadata (EXIF, XMP,
    /// IPTC, comments, text chunks: the pixels are the same), and one that cannot be read to strip it (GIF, BMP, a
    /// damaged JPEG or PNG, no picture at all) is dropped. `picture`: the source's read (`SourceStream.picture`).
    package static func treatment(_ picture: PictureMetadata.Scan?, level: MetadataLevel) -> Treatment {
        guard level != .all else { return .asIs }
        switch picture {
        case .readable(_, let removes): return .strip(removes)
        case .unreadable(let fault): return .drop(fault)
        case nil: return .drop(nil)
        }
    }

    /// Why a cover is dropped at `level`, for a picture that cannot be stripped (`fault`; nil: it holds no picture).
    package static func stripReason(_ fault: PictureMetadata.Fault?, level: MetadataLevel) -> String {
        let what: String
        switch fault {
        case .unknownFormat: what = "its picture is neither JPEG nor PNG"
        case .truncated: what = "its picture is truncated"
        case .malformed: what = "its picture is damaged"
        case nil: what = "it holds no picture"
        }
        return "cover art: \(what), so its metadata (EXIF, XMP, IPTC) cannot be stripped (--metadata \(level.rawValue))"
    }

    /// The metadata items a level removes from `source`'s covers: each kind of segment stripped, and each cover
    /// dropped whole for want of a picture to strip (0 at `all`).
    package static func itemsRemoved(_ source: SourceInfo, level: MetadataLevel) -> Int {
        source.streams.filter(\.isAttachedPicture).reduce(0) { count, s in
            switch treatment(s.picture, level: level) {
            case .asIs: return count
            case .strip(let removed): return count + removed.count
            case .drop: return count + 1
            }
        }
    }
}
