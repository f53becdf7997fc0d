/// The manifests of a streaming package, as text for the caller to write: the HLS master playlist, each rung's media
/// and I-frame playlists, and the DASH MPD. Pure: the same renditions give the same files.
public enum StreamingManifests {
    /// The margin over the measured peak segment bit rate that `BANDWIDTH` (and the MPD's `bandwidth`) declares: 2 %.
    /// A checker may take a segment's duration from its `EXTINF` (written to a microsecond), from `tfdt`
    /// differences, or from the audio track's samples, which in a muxed segment can end up to one audio frame
    /// (about 21 ms, 0.5 % of 4 s) away from the video's; 2 % over the peak stays above every such reading and far
    /// under the 10 % ceiling (`PackageValidator`).
    public static let bandwidthMargin = 0.02

    /// The names of the manifests: the root's master playlist and MPD, and each rung's playlists in its folder.
    public struct Names: Equatable, Sendable {
        /// The HLS master playlist, at the root.
        public var master = "master.m3u8"
        /// The DASH MPD, at the root.
        public var mpd = "manifest.mpd"
        /// Each rung's media playlist, in its folder.
        public var media = "media.m3u8"
        /// Each rung's I-frame playlist, in its folder.
        public var iFrames = "iframes.m3u8"
        /// The usual names.
        public init() {}
    }

    /// What the manifests declare of one rung, in bit/s (for a package record and for `PackageValidator`).
    public struct Declared: Equatable, Sendable {
        /// The rung's `Rendition.id`.
        public var id: String
        /// `BANDWIDTH`: the peak segment bit rate with the margin, rounded up.
        public var bandwidth: Int
        /// `AVERAGE-BANDWIDTH`: the average bit rate, rounded up.
        public var averageBandwidth: Int
        /// The I-frame variant's `BANDWIDTH`, nil for a rung without video.
        public var iFrameBandwidth: Int?
        /// The measured peak segment bit rate it was derived from.
        public var peak: Double
    }

    /// One file: its path relative to the package's root (`720p/media.m3u8`) and its text.
    public struct File: Equatable, Sendable {
        /// The path relative to the package's root.
        public var name: String
        /// The whole text, ending in a newline.
        public var text: String
    }

    /// The declared `BANDWIDTH` for a measured peak: peak × (1 + `bandwidthMargin`), rounded up.
    public static func bandwidth(peak: Double) -> Int { Int(saturating: (peak * (1 + bandwidthMargin)).rounded(.up)) }

    /// What the manifests declare of `rendition`. With `audio`, the separate audio rendition a video-only rung is
    /// played with (HLS's `EXT-X-MEDIA` group), the variant's figures are the sums of both, as a player fetches both.
    public static func declared(_ rendition: Rendition, audio: Rendition? = nil) -> Declared {
        let iFrames = rendition.hasVideo && rendition.segments.contains { $0.firstVideoSample != nil }
        let peak = rendition.peakBitRate + (audio?.peakBitRate ?? 0)
        let average = rendition.averageBitRate + (audio?.averageBitRate ?? 0)
        return Declared(id: rendition.id, bandwidth: bandwidth(peak: peak), averageBandwidth: Int(saturating: average.rounded(.up)),
                        iFrameBandwidth: iFrames ? bandwidth(peak: rendition.iFramePeakBitRate) : nil, peak: peak)
    }

    /// Every manifest of the package: per rung its media playlist and (with video) its I-frame playlist, then the
    /// master playlist and the MPD. `audio`, when given, is a separate audio-only rendition (its own folder) that
    /// every rung, then video-only, is played with: an `EXT-X-MEDIA` audio group in HLS, an audio AdaptationSet in
    /// DASH. Without it each rung carries its own sound (muxed), or none.
    public static func files(for renditions: [Rendition], audio: Rendition? = nil, names: Names = Names()) -> [File] {
        let declared = renditions.map { Self.declared($0, audio: audio) }
        var files: [File] = []
        for rendition in renditions + (audio.map { [$0] } ?? []) {
            files.append(File(name: ManifestText.join(rendition.folder, names.media), text: HLSPlaylist.media(rendition)))
            if let text = HLSPlaylist.iFrames(rendition) {
                files.append(File(name: ManifestText.join(rendition.folder, names.iFrames), text: text))
            }
        }
        files.append(File(name: names.master, text: HLSPlaylist.master(renditions, declared: declared, audio: audio, names: names)))
        let audioSet = audio.map { ($0, Self.declared($0)) }
        files.append(File(name: names.mpd, text: DASHManifest.mpd(renditions, declared: declared, audio: audioSet)))
        return files
    }
}
