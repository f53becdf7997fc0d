/// HLS playlists (RFC 8216, version 7 for fragmented MP4) over measured renditions: a media playlist and an I-frame
/// playlist per rung (each in the rung's folder, naming its files relatively), and the master playlist at the root.
/// The text is the same for the same facts on every machine.
public enum HLSPlaylist {
    /// `#EXT-X-TARGETDURATION`: the longest `EXTINF` (as written, to 6 places) rounded up.
    public static func targetDuration(_ durations: [Double]) -> Int {
        let longest = durations.map { (($0 * 1e6).rounded() / 1e6) }.max() ?? 0
        return max(1, Int(saturating: longest.rounded(.up)))
    }

    /// The media playlist of `rendition`: `EXT-X-MAP` to its init segment, one `EXTINF` per segment from the measured
    /// durations, VOD, independent segments.
    public static func media(_ rendition: Rendition) -> String {
        var lines = header(targetDuration: targetDuration(rendition.durations))
        lines += ["#EXT-X-INDEPENDENT-SEGMENTS", "#EXT-X-MAP:URI=\"\(ManifestText.uri(rendition.initName))\""]
        for (segment, duration) in zip(rendition.segments, rendition.durations) {
            lines += [extinf(duration), ManifestText.uri(segment.name)]
        }
        return (lines + ["#EXT-X-ENDLIST"]).joined(separator: "\n") + "\n"
    }

    /// The I-frame playlist of a rung with video: one entry per segment, the byte range from its `moof` to the end of
    /// its first (key) frame, lasting until the next entry; nil for an audio-only rung.
    public static func iFrames(_ rendition: Rendition) -> String? {
        guard rendition.hasVideo else { return nil }
        let entries = iFrameEntries(rendition)
        guard !entries.isEmpty else { return nil }
        var lines = header(targetDuration: targetDuration(entries.map(\.duration)))
        lines += ["#EXT-X-I-FRAMES-ONLY", "#EXT-X-INDEPENDENT-SEGMENTS",
                  "#EXT-X-MAP:URI=\"\(ManifestText.uri(rendition.initName))\""]
        for entry in entries {
            lines += [extinf(entry.duration), "#EXT-X-BYTERANGE:\(entry.range.length)@\(entry.range.offset)",
                      ManifestText.uri(entry.name)]
        }
        return (lines + ["#EXT-X-ENDLIST"]).joined(separator: "\n") + "\n"
    }

    /// The entries of an I-frame playlist: each segment's first video sample, lasting to the next one's start (the
    /// last to its segment's end).
    static func iFrameEntries(_ rendition: Rendition) -> [(name: String, range: SegmentFacts.ByteRange, duration: Double)] {
        let starts = rendition.starts, durations = rendition.durations
        return rendition.segments.indices.compactMap { i in
            guard let range = rendition.segments[i].firstVideoSample else { return nil }
            let duration = i + 1 < starts.count ? starts[i + 1] - starts[i] : durations[i]
            return (rendition.segments[i].name, range, duration)
        }
    }

    /// The group id of the separate audio rendition.
    static let audioGroup = "audio"

    /// The master playlist: a variant per rung, highest `BANDWIDTH` first, and an I-frame variant per rung with video.
    /// `declared` gives each rung's bandwidths (`StreamingManifests.declared`), `names` the playlists' file names;
    /// `audio`, a separate audio rendition, becomes an `EXT-X-MEDIA` group every variant names.
    public static func master(_ renditions: [Rendition], declared: [StreamingManifests.Declared], audio: Rendition? = nil,
                              names: StreamingManifests.Names) -> String {
        var lines = ["#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-INDEPENDENT-SEGMENTS"]
        if let audio {
            let uri = ManifestText.uri(ManifestText.join(audio.folder, names.media))
            lines.append("#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"\(audioGroup)\",NAME=\"\(ManifestText.uri(audio.id))\",DEFAULT=YES,"
                + "AUTOSELECT=YES,URI=\"\(uri)\"")
        }
        let ordered = zip(renditions, declared).sorted { $0.1.bandwidth > $1.1.bandwidth }
        for (rendition, figures) in ordered {
            let codecs = rendition.codecs + (audio?.codecs ?? [])
            var attributes = ["BANDWIDTH=\(figures.bandwidth)", "AVERAGE-BANDWIDTH=\(figures.averageBandwidth)",
                              "CODECS=\"\(codecs.joined(separator: ","))\""]
            attributes += picture(rendition)
            if let rate = rendition.frameRate { attributes.append("FRAME-RATE=" + ManifestText.fixed(rate, places: 3)) }
            if audio != nil { attributes.append("AUDIO=\"\(audioGroup)\"") }
            lines += ["#EXT-X-STREAM-INF:" + attributes.joined(separator: ","),
                      ManifestText.uri(ManifestText.join(rendition.folder, names.media))]
        }
        for (rendition, figures) in ordered {
            guard let bandwidth = figures.iFrameBandwidth,
                  let video = rendition.initSegment.tracks.first(where: { $0.kind == .video }) else { continue }
            var attributes = ["BANDWIDTH=\(bandwidth)", "CODECS=\"\(video.codec ?? "")\""] + picture(rendition)
            attributes.append("URI=\"\(ManifestText.uri(ManifestText.join(rendition.folder, names.iFrames)))\"")
            lines.append("#EXT-X-I-FRAME-STREAM-INF:" + attributes.joined(separator: ","))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func header(targetDuration: Int) -> [String] {
        ["#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-TARGETDURATION:\(targetDuration)", "#EXT-X-MEDIA-SEQUENCE:0",
         "#EXT-X-PLAYLIST-TYPE:VOD"]
    }

    private static func extinf(_ seconds: Double) -> String { "#EXTINF:" + ManifestText.fixed(seconds, places: 6) + "," }

    private static func picture(_ rendition: Rendition) -> [String] {
        guard let width = rendition.width, let height = rendition.height else { return [] }
        return ["RESOLUTION=\(width)x\(height)"]
    }
}
