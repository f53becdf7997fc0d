internal import CFFmpeg
import MediaExportCore

/// Stage 2: turns one input stream's packets into frames.
final class StreamDecoder {
    let context: UnsafeMutablePointer<AVCodecContext>
    let path: String
    let streamIndex: Int32

    /// Opens a decoder for `stream`, on `codecs.threads` (default: FFmpeg's automatic count, as the ffmpeg CLI uses).
    /// `strict` makes the decoder report every bitstream error instead of concealing it.
    init(stream: UnsafeMutablePointer<AVStream>, path: String, strict: Bool = false, codecs: CodecRun = CodecRun()) throws {
        self.path = path
        streamIndex = stream.pointee.index
        let params = stream.pointee.codecpar!
        guard let codec = avcodec_find_decoder(params.pointee.codec_id) else {
            let name = codecName(params.pointee)
            throw ExportError.ffmpeg(stage: .decode, path: path, code: cff_averror_decoder_not_found(),
                                     message: "no decoder for \(name) (stream #\(stream.pointee.index)) in this FFmpeg build")
        }
        guard let ctx = avcodec_alloc_context3(codec) else { fatalError("avcodec_alloc_context3: out of memory") }
        context = ctx
        try check(avcodec_parameters_to_context(ctx, params), .decode, path, "decoder parameters")
        ctx.pointee.pkt_timebase = stream.pointee.time_base
        ctx.pointee.thread_count = codecs.count
        // Frame threads conceal a damaged picture from whichever neighbour is decoded by then: slices only when the
        // bytes must not depend on timing.
        if codecs.deterministic { ctx.pointee.thread_type = FF_THREAD_SLICE }
        if strict { ctx.pointee.err_recognition |= AV_EF_EXPLODE | AV_EF_CRCCHECK | AV_EF_BITSTREAM }
        if params.pointee.codec_type == AVMEDIA_TYPE_VIDEO {
            ctx.pointee.framerate = av_guess_frame_rate(nil, stream, nil)
        }
        DecodeWatch.noteDecoder()
        try check(avcodec_open2(ctx, codec, nil), .decode, path, "opening \(String(cString: codec.pointee.name)) decoder")
    }

    deinit {
        var c: UnsafeMutablePointer<AVCodecContext>? = context
        avcodec_free_context(&c)
    }

    /// Sends a packet (or `nil` to start draining).
    func send(_ packet: Packet?) throws {
        let code = avcodec_send_packet(context, packet?.pointer)
        // Checked before any message is built: this runs for every packet.
        if code >= 0 || code == AVCode.eof { return }  // EOF: already draining
        if AVCode.isDamage(code) {
            throw ExportError.ffmpeg(stage: .decode, path: path, code: code, message: "stream #\(streamIndex): \(ffmpegMessage(code))")
        }
        try check(code, .decode, path, "stream #\(streamIndex)")
    }

    /// Receives the next decoded frame into `frame`.
    func receive(into frame: Frame) throws -> Received {
        try received(avcodec_receive_frame(context, frame.pointer), .decode, path, "stream #\(streamIndex)")
    }
}
