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
        var streams = demuxer.streams.map { describe($0) }
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
                         streams: streams, tags: tags)
    }

    static func describe(_ stream: UnsafeMutablePointer<AVStream>) -> StreamInfo {
        let par = stream.pointee.codecpar.pointee
        let type = StreamGeometry.typeName(par.codec_type)
        let meta = Demuxer.dictionary(stream.pointee.metadata)
        var info = StreamInfo(index: Int(stream.pointee.index), type: type, codec: codecName(par),
                              isAttachedPicture: (stream.pointee.disposition & cff_disposition_attached_pic()) != 0)
        if let p = avcodec_profile_name(par.codec_id, par.profile) { info.profile = String(cString: p) }
        info.language = meta["language"].flatMap { $0 == "und" ? nil : $0 }
        info.bitRate = par.bit_rate > 0 ? par.bit_rate : nil
        if stream.pointee.discard == AVDISCARD_ALL && Demuxer.isQuickTimeChapterTrack(stream) { info.isChapterTrack = true }
        if stream.pointee.duration > 0 && stream.pointee.duration != AVCode.noPTS {
            info.duration = Double(stream.pointee.duration) * av_q2d(stream.pointee.time_base)
        }
        if par.codec_type == AVMEDIA_TYPE_VIDEO {
            info.width = Int(par.width); info.height = Int(par.height)
            info.pixelFormat = par.format >= 0 ? pixelFormatName(AVPixelFormat(rawValue: par.format)) : nil
            let rate = stream.pointee.avg_frame_rate
            if rate.num > 0 && rate.den > 0 { info.frameRate = av_q2d(rate) }
            let rotation = displayRotation(stream)
            info.rotation = rotation
            var sar = par.sample_aspect_ratio
            if sar.num <= 0 || sar.den <= 0 { sar = AVRational(num: 1, den: 1) }
            let w = Int((Double(par.width) * av_q2d(sar)).rounded()), h = Int(par.height)
            let quarterTurn = abs(rotation) % 180 == 90
            info.displayWidth = quarterTurn ? h : w
            info.displayHeight = quarterTurn ? w : h
            info.color = ColorProbe.color(stream)
            info.hdr = info.color?.hdrKind
        } else if par.codec_type == AVMEDIA_TYPE_AUDIO {
            info.channels = Int(par.ch_layout.nb_channels)
            info.sampleRate = Int(par.sample_rate)
            var buf = [CChar](repeating: 0, count: 64)
            var layout = par.ch_layout
            if av_channel_layout_describe(&layout, &buf, buf.count) > 0 { info.channelLayout = cText(buf) }
        }
        return info
    }

    /// Rotation from the stream's display matrix, rounded to whole degrees (0 when there is none).
    static func displayRotation(_ stream: UnsafeMutablePointer<AVStream>) -> Int {
        var size: Int = 0
        guard let data = av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, &size), size >= 36 else { return 0 }
        let degrees = data.withMemoryRebound(to: Int32.self, capacity: 9) { av_display_rotation_get($0) }
        guard degrees.isFinite else { return 0 }
        return Int(degrees.rounded())
    }
}
