internal import CFFmpeg
import Foundation
import MediaExportCore

/// Cuts an exported rendition into CMAF fragmented-MP4 segments: every stream copied (no decoding) through
/// FFmpeg's `hls` muxer in its `fmp4` mode, which writes `init.mp4` and `seg_00000.m4s`, … into the rendition's
/// folder, a segment starting at the first video keyframe at or after each multiple of the target length (the
/// keyframes the encoder was told to place there: `VideoSettings.keyframeInterval`). The muxer's own playlist is
/// written too and is replaced by the caller's, which states measured durations and bandwidths.
package enum SegmentedCopy {
    /// The name of the init segment in each rendition's folder.
    package static let initName = "init.mp4"
    /// The `printf` pattern of the media segments' names (numbered from 0).
    package static let segmentPattern = "seg_%05d.m4s"
    /// The muxer's own playlist, left for the caller to replace or remove.
    package static let muxerPlaylist = "muxer.m3u8"

    /// Copies `input` into segments of about `seconds` in `folder` (which exists and is empty). Returns the number
    /// of packets copied. Throws `ExportError` (a cancelled copy: `.cancelled`); the folder then holds a part.
    @discardableResult
    package static func write(input: String, folder: String, seconds: Double, cancel: CancelToken? = nil) throws -> Int {
        let demuxer = try Demuxer(path: input, cancel: cancel)
        let output = try HLSOutput(folder: folder, cancel: cancel)
        let source = demuxer.context
        var mapping = [Int32](repeating: -1, count: Int(source.pointee.nb_streams))
        for i in 0..<Int(source.pointee.nb_streams) {
            guard let stream = source.pointee.streams[i] else { continue }
            let kind = stream.pointee.codecpar.pointee.codec_type
            guard kind == AVMEDIA_TYPE_VIDEO || kind == AVMEDIA_TYPE_AUDIO else { continue }
            if stream.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC != 0 { continue }
            mapping[i] = try output.addStream(copying: stream)
        }
        try output.writeHeader(seconds: seconds)
        let packet = Packet()
        var copied = 0
        while try demuxer.read(into: packet) == .packet {
            defer { packet.unref() }
            let index = Int(packet.pointer.pointee.stream_index)
            guard index < mapping.count, mapping[index] >= 0, let stream = source.pointee.streams[index] else { continue }
            try output.write(packet, from: stream.pointee.time_base, to: mapping[index])
            copied += 1
        }
        try output.finish()
        return copied
    }
}

/// The `hls` muxer's context, owned once and freed once.
private final class HLSOutput {
    let context: UnsafeMutablePointer<AVFormatContext>
    let folder: String
    private let cancel: CancelToken?
    private var headerWritten = false

    init(folder: String, cancel: CancelToken?) throws {
        self.folder = folder
        self.cancel = cancel
        var ctx: UnsafeMutablePointer<AVFormatContext>? = nil
        let url = folder + "/" + SegmentedCopy.muxerPlaylist
        let code = avformat_alloc_output_context2(&ctx, nil, "hls", url)
        guard code >= 0, let ctx else {
            throw ExportError.outputUnwritable(path: folder, reason: "cannot create the segmenter: \(ffmpegMessage(code))")
        }
        context = ctx
        // The mp4 fragments without the library's version or a random identifier: the same bytes every run.
        ctx.pointee.flags |= AVFMT_FLAG_BITEXACT
        if let cancel { cff_set_interrupt(ctx, cancel.pointer) }
    }

    deinit { avformat_free_context(context) }

    func addStream(copying source: UnsafeMutablePointer<AVStream>) throws -> Int32 {
        guard let stream = avformat_new_stream(context, nil) else {
            throw ExportError.ffmpeg(stage: .mux, path: folder, code: -1, message: "cannot add a stream")
        }
        _ = try check(avcodec_parameters_copy(stream.pointee.codecpar, source.pointee.codecpar), .mux, folder, "copying stream parameters")
        stream.pointee.codecpar.pointee.codec_tag = 0
        stream.pointee.time_base = source.pointee.time_base
        return stream.pointee.index
    }

    func writeHeader(seconds: Double) throws {
        var options: OpaquePointer? = nil
        defer { av_dict_free(&options) }
        let settings: [(String, String)] = [
            ("hls_time", String(format: "%.3f", seconds)), ("hls_playlist_type", "vod"), ("hls_segment_type", "fmp4"),
            ("hls_fmp4_init_filename", SegmentedCopy.initName),
            ("hls_segment_filename", folder + "/" + SegmentedCopy.segmentPattern), ("hls_list_size", "0"),
        ]
        for (key, value) in settings { av_dict_set(&options, key, value, 0) }
        let code = avformat_write_header(context, &options)
        if code < 0 { throw Muxer.writeError(code, "starting the segments", path: folder) }
        headerWritten = true
    }

    func write(_ packet: Packet, from timeBase: AVRational, to index: Int32) throws {
        let p = packet.pointer
        p.pointee.stream_index = index
        guard let stream = context.pointee.streams[Int(index)] else { return }
        av_packet_rescale_ts(p, timeBase, stream.pointee.time_base)
        p.pointee.pos = -1
        let code = av_interleaved_write_frame(context, p)
        if code < 0 { throw Muxer.writeError(code, "writing a segment", path: folder) }
    }

    func finish() throws {
        guard headerWritten else { return }
        let code = av_write_trailer(context)
        if code < 0 { throw Muxer.writeError(code, "finishing the segments", path: folder) }
    }
}
