internal import CFFmpeg
import Foundation
import MediaExportCore

/// Reads container and stream properties with libavformat (no decoding).
public enum MediaProbe {
    /// Probes `path`; throws `ExportError.inputUnreadable` / `.notMedia` for files FFmpeg cannot open, and
    /// `.notMedia` for inputs that are not in a format of `InputFormats.allowed` (playlists, lists, images ...).
    ///
    /// `frameMetadata`: also decode the first frame of a PQ stream for the HDR10 metadata its SEI carries (what
    /// `probe` and `regress` report); callers that want only the container, codecs and tags leave it out.
    public static func probe(path: String, frameMetadata: Bool = true) throws -> MediaInfo {
        let demuxer = try Demuxer(path: path, cancel: nil)
        let ctx = demuxer.context.pointee
        let tags = demuxer.metadata
        // The size of the file that was opened (fstat on its descriptor), not of whatever the name points at now.
        let size = demuxer.fileSize
        var streams = demuxer.streams.map { describe($0, in: demuxer.context) }
        // HDR10 metadata carried only in the first frames' SEI (as ffprobe shows it with -show_frames).
        for i in streams.indices where frameMetadata && streams[i].type == "video" && !streams[i].isAttachedPicture {
            guard var color = streams[i].color, color.isHDR else { continue }
            ColorProbe.addFirstFrameMetadata(to: &color, path: path, streamIndex: i)
            streams[i].color = color
        }
        return MediaInfo(path: path, container: String(cString: ctx.iformat.pointee.name), duration: demuxer.duration,
                         size: size, bitRate: ctx.bit_rate > 0 ? ctx.bit_rate : nil,
                         creationTime: tags["creation_time"] ?? tags["com.apple.quicktime.creationdate"],
                         location: tags["location"] ?? tags["com.apple.quicktime.location.ISO6709"],
                         streams: streams, tags: tags,
                         format: format(demuxer.context, filename: path, size: size, tags: tags),
                         chapters: chapters(demuxer.context))
    }

    /// ffprobe's `format` section (fftools/ffprobe.c `show_format`).
    static func format(_ fmt: UnsafeMutablePointer<AVFormatContext>, filename: String, size: Int64, tags: [String: String]) -> FormatInfo {
        let ctx = fmt.pointee
        return FormatInfo(filename: filename, nbStreams: Int(ctx.nb_streams), nbPrograms: Int(ctx.nb_programs),
                          formatName: String(cString: ctx.iformat.pointee.name),
                          formatLongName: ctx.iformat.pointee.long_name.map { String(cString: $0) },
                          startTime: FFprobeText.time(ctx.start_time, AVRational(num: 1, den: AV_TIME_BASE)),
                          duration: FFprobeText.time(ctx.duration, AVRational(num: 1, den: AV_TIME_BASE)),
                          size: size >= 0 ? String(size) : nil,
                          bitRate: ctx.bit_rate > 0 ? String(ctx.bit_rate) : nil,
                          probeScore: Int(ctx.probe_score), tags: tags.isEmpty ? nil : tags)
    }

    /// ffprobe's `chapters` section (`show_chapters`).
    static func chapters(_ fmt: UnsafeMutablePointer<AVFormatContext>) -> [ChapterInfo] {
        (0..<Int(fmt.pointee.nb_chapters)).compactMap { i in
            guard let c = fmt.pointee.chapters[i]?.pointee else { return nil }
            let tags = Demuxer.dictionary(c.metadata)
            return ChapterInfo(id: c.id, timeBase: FFprobeText.q(c.time_base, "/"),
                               start: c.start, startTime: FFprobeText.time(c.start, c.time_base) ?? "",
                               end: c.end, endTime: FFprobeText.time(c.end, c.time_base) ?? "",
                               tags: tags.isEmpty ? nil : tags)
        }
    }

    /// ffprobe's dispositions, in its order (FFmpeg 5.1 `print_dispositions`), with their flag bits.
    static let dispositions: [(String, Int32)] = [
        ("default", 1 << 0), ("dub", 1 << 1), ("original", 1 << 2), ("comment", 1 << 3), ("lyrics", 1 << 4),
        ("karaoke", 1 << 5), ("forced", 1 << 6), ("hearing_impaired", 1 << 7), ("visual_impaired", 1 << 8),
        ("clean_effects", 1 << 9), ("attached_pic", 1 << 10), ("timed_thumbnails", 1 << 11), ("captions", 1 << 16),
        ("descriptions", 1 << 17), ("metadata", 1 << 18), ("dependent", 1 << 19), ("still_image", 1 << 20),
    ]

    /// The stream's values under ffprobe's names, computed as `show_stream` does.
    static func addFFprobeFields(_ info: inout StreamInfo, _ f: StreamFacts, _ stream: UnsafeMutablePointer<AVStream>, in fmt: UnsafeMutablePointer<AVFormatContext>) {
        let st = stream.pointee
        let par = st.codecpar.pointee
        if let d = avcodec_descriptor_get(par.codec_id) {
            info.codecName = String(cString: d.pointee.name)
            info.codecLongName = d.pointee.long_name.map { String(cString: $0) }
        }
        info.codecType = av_get_media_type_string(par.codec_type).map { String(cString: $0) }
        var tag = [CChar](repeating: 0, count: Int(AV_FOURCC_MAX_STRING_SIZE))
        av_fourcc_make_string(&tag, par.codec_tag)
        info.codecTagString = cText(tag)
        if par.codec_type == AVMEDIA_TYPE_VIDEO {
            info.level = Int(par.level)
            let sar = av_guess_sample_aspect_ratio(fmt, stream, nil)
            if sar.num != 0 {
                info.sampleAspectRatio = FFprobeText.q(sar, ":")
                var num: Int32 = 0, den: Int32 = 0
                av_reduce(&num, &den, Int64(par.width) * Int64(sar.num), Int64(par.height) * Int64(sar.den), 1024 * 1024)
                info.displayAspectRatio = FFprobeText.q(AVRational(num: num, den: den), ":")
            }
            if par.format >= 0 { info.pixFmt = av_get_pix_fmt_name(AVPixelFormat(rawValue: par.format)).map { String(cString: $0) } }
            // The names the colour description read (`ColorProbe.color`: unspecified is none), as ffprobe's.
            info.colorRange = f.color?.range
            info.colorSpace = f.color?.matrix
            info.colorTransfer = f.color?.transfer
            info.colorPrimaries = f.color?.primaries
            info.fieldOrder = f.color?.fieldOrder?.rawValue
        } else if par.codec_type == AVMEDIA_TYPE_AUDIO {
            info.sampleFmt = av_get_sample_fmt_name(AVSampleFormat(rawValue: par.format)).map { String(cString: $0) }
            info.sampleRateText = String(par.sample_rate)
            if par.ch_layout.order != AV_CHANNEL_ORDER_UNSPEC { info.channelLayoutName = info.channelLayout }
        }
        info.rFrameRate = FFprobeText.q(st.r_frame_rate, "/")
        info.avgFrameRate = FFprobeText.q(st.avg_frame_rate, "/")
        info.timeBase = FFprobeText.q(st.time_base, "/")
        info.startTime = FFprobeText.time(st.start_time, st.time_base)
        if st.duration != AVCode.noPTS { info.durationTS = st.duration }
        if st.nb_frames != 0 { info.nbFrames = String(st.nb_frames) }
        if par.bit_rate > 0 { info.bitRateText = String(par.bit_rate) }
        info.disposition = Dictionary(uniqueKeysWithValues: dispositions.map { ($0.0, st.disposition & $0.1 != 0 ? 1 : 0) })
        if !f.tags.isEmpty { info.streamTags = f.tags }
    }

    static func describe(_ stream: UnsafeMutablePointer<AVStream>, in fmt: UnsafeMutablePointer<AVFormatContext>) -> StreamInfo {
        let f = StreamFacts(stream)
        let par = stream.pointee.codecpar.pointee
        var info = StreamInfo(index: f.index, type: f.kind.rawValue, codec: f.codec, language: f.language, bitRate: f.bitRate,
                              duration: f.headerDuration, isAttachedPicture: f.isAttachedPicture)
        if let p = avcodec_profile_name(par.codec_id, par.profile) { info.profile = String(cString: p) }
        if f.isChapterTrack { info.isChapterTrack = true }
        if f.isTimecodeTrack { info.isTimecodeTrack = true }
        if f.kind == .attachment { info.fileName = f.tags["filename"]; info.mimeType = f.tags["mimetype"] }
        if f.kind == .video {
            info.width = f.width; info.height = f.height
            info.pixelFormat = f.pixelFormat
            info.frameRate = f.frameRate
            info.rotation = f.rotation
            let shown = PixelSize.displayed(width: f.width, height: f.height, sampleAspect: f.sampleAspect, rotation: f.rotation)
            info.displayWidth = shown.width
            info.displayHeight = shown.height
            info.displaySize = shown
            info.color = f.color
            info.hdr = f.color?.hdrKind
        } else if f.kind == .audio {
            info.channels = f.channels
            info.sampleRate = f.sampleRate
            var buf = [CChar](repeating: 0, count: 64)
            var layout = par.ch_layout
            if av_channel_layout_describe(&layout, &buf, buf.count) > 0 { info.channelLayout = cText(buf) }
        }
        addFFprobeFields(&info, f, stream, in: fmt)
        return info
    }
}


/// Values written as fftools/ffprobe.c writes them.
enum FFprobeText {
    /// `print_q`: "num/den" or "num:den".
    static func q(_ r: AVRational, _ separator: Character) -> String { "\(r.num)\(separator)\(r.den)" }

    /// `print_time`: seconds as `%f`, nil for AV_NOPTS_VALUE (ffprobe's JSON leaves the key out).
    static func time(_ ts: Int64, _ timeBase: AVRational) -> String? {
        guard ts != AVCode.noPTS else { return nil }
        return String(format: "%f", Double(ts) * av_q2d(timeBase))
    }
}
