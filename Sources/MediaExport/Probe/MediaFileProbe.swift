import MediaExportCore
import MediaExportFFmpeg

/// Reads what a media file holds, as `mediaexport probe` does: the container, each stream (codec, picture size,
/// frame rate, colour and HDR kind, channels, language, duration), tags and chapters, with ffprobe's names beside
/// ours. The file is opened read-only through the same guarded path as an export's input: regular files only, a
/// demuxer on the input whitelist, and no other file opened on its behalf (playlists and lists are refused).
public enum MediaFileProbe {
    /// Probes the file at `path`. Throws `ExportError` (`inputUnreadable`, `notMedia`, ...).
    public static func probe(path: String) throws -> MediaInfo { try MediaProbe.probe(path: path) }
}

extension FormatCatalog {
    /// The containers and codecs mediaexport writes and reads with the FFmpeg libraries it runs on
    /// (`mediaexport formats`).
    public static func current() -> FormatCatalog { FormatQuery.catalog() }
}
