import MediaExportCore
/// The container formats mediaexport opens, and why others are refused.
///
/// Inputs are uploads: files strangers send. FFmpeg picks a demuxer by content, whatever the name, and
/// some demuxers open further files or URLs named inside the input (`hls`, `dash`, `concat`, `image2`,
/// `imf`, `vobsub`, `sdp`/`rtp`/`rtsp`): an "upload.mov" that is an HLS playlist naming `/etc/…` or another
/// user's file would export that file. So an input opens only when FFmpeg detects one of the demuxers below,
/// each of which reads the one file it is given and nothing else. (QuickTime's external data references are
/// the one exception FFmpeg has in this list, and it only follows them when `enable_drefs` is set, which we
/// never do; the guard refuses any open a demuxer asks for anyway — see `InputGuard.h`.)
///
/// The list is also short on purpose: it holds what phones, cameras, editors and common tools write.
/// Everything else (exotic game and tracker formats, subtitles, still images, raw PCM guesses) is refused
/// with `ExportError.notMedia`, which also keeps rarely exercised demuxers away from untrusted bytes.
public enum InputFormats {
    /// FFmpeg demuxer names allowed, matched like FFmpeg's `format_whitelist`: a demuxer whose name is a
    /// list (`mov,mp4,m4a,3gp,3g2,mj2`, `matroska,webm`) matches when any part of it is here.
    public static let allowed: [String] = [
        // Video containers.
        "mov", "mp4", "m4a", "3gp", "3g2", "mj2",  // QuickTime / MP4 family: phones, cameras, our own outputs
        "matroska", "webm",  // MKV / WebM (our .mkv outputs)
        "mpegts",  // MPEG-TS (.ts, .m2ts, .mts from camcorders)
        "mpeg",  // MPEG program stream (.mpg, .vob)
        "avi", "flv", "asf",  // AVI, Flash video, Windows Media (.wmv/.wma)
        "mxf", "dv",  // broadcast cameras, DV camcorders (FFmpeg's MXF demuxer opens no external essence)
        "nut", "rm", "ogg",  // NUT, RealMedia, Ogg (Theora/Vorbis/Opus/FLAC)
        "gif",  // animated GIF is video
        "yuv4mpegpipe",  // .y4m raw video from tools
        "ivf",  // VP8/VP9/AV1 in IVF (libvpx/libaom tools)
        // Raw elementary streams (a camera or encoder's bare output).
        "h264", "hevc", "m4v", "mpegvideo",
        // Audio.
        "wav", "w64", "aiff", "caf", "mp3", "flac", "aac", "ac3", "eac3", "dts", "amr", "wv", "ape", "tta", "au",
    ]

    /// The whitelist as FFmpeg takes it.
    static let whitelist = allowed.joined(separator: ",")

    /// True when a demuxer name (as `MediaInfo.container` reports it) is one mediaexport opens.
    public static func isAllowed(_ container: String) -> Bool {
        let parts = container.split(separator: ",").map(String.init)
        return parts.contains { allowed.contains($0) }
    }

    /// Demuxers that open other files or network streams named inside the input, with what the input is.
    static let referencing: [String: String] = [
        "hls": "an HLS playlist",
        "dash": "a DASH manifest",
        "webm_dash_manifest": "a WebM DASH manifest",
        "concat": "a concat list",
        "image2": "an image sequence",
        "imf": "an IMF composition playlist",
        "vobsub": "a VobSub index",
        "sdp": "an SDP session description",
        "rtp": "an RTP session description",
        "rtsp": "an RTSP session",
        "sap": "a SAP announcement",
    ]

    /// Why an input detected as `name` (FFmpeg's demuxer name; `longName` its description) is refused: one
    /// line, naming the demuxer.
    static func refusal(name: String, longName: String) -> String {
        if let what = referencing[name] {
            let named = ["sdp", "rtp", "rtsp", "sap"].contains(name) ? "network streams" : "other files"
            return "is \(what) (\(name)): inputs that name \(named) are refused"
        }
        if name.hasSuffix("_pipe") || ["image2pipe", "alias_pix", "brender_pix"].contains(name) {
            return "is a still image (\(name)), not video or audio"
        }
        let described = longName.isEmpty ? name : "\(longName) (\(name))"
        return "was detected as \(described), a format mediaexport does not open"
    }

    /// Why an input that asked to open another file (`url`, as written in the input) is refused.
    static func nestedOpenRefusal(url: String) -> String {
        "names another file (\(FileName.display(FileName.clip(url, limit: 120)))): inputs that name other files are refused"
    }
}
