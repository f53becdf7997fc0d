internal import CFFmpeg
import MediaExportCore

/// Stage 4: turns frames into packets for one output stream.
final class StreamEncoder {
    let context: UnsafeMutablePointer<AVCodecContext>
    let path: String

    /// Allocates a context for the named encoder; the caller fills it in and calls `open`.
    init(encoderName: String, path: String) throws {
        self.path = path
        guard let codec = avcodec_find_encoder_by_name(encoderName) else {
            throw ExportError.ffmpeg(stage: .encode, path: path, code: cff_averror_encoder_not_found(),
                                     message: "encoder \(encoderName) is not in this FFmpeg build")
        }
        guard let ctx = avcodec_alloc_context3(codec) else { fatalError("avcodec_alloc_context3: out of memory") }
        context = ctx
    }

    deinit {
        var c: UnsafeMutablePointer<AVCodecContext>? = context
        avcodec_free_context(&c)
    }

    /// Opens the encoder with private options (e.g. `preset`, `crf`).
    func open(options: [String: String]) throws {
        var dict: OpaquePointer? = nil
        for (k, v) in options { av_dict_set(&dict, k, v, 0) }
        defer { av_dict_free(&dict) }
        try check(avcodec_open2(context, context.pointee.codec, &dict), .encode, path,
                  "opening \(String(cString: context.pointee.codec.pointee.name)) encoder")
    }

    /// Sends a frame (or `nil` to flush).
    func send(_ frame: Frame?) throws {
        let code = avcodec_send_frame(context, frame?.pointer)
        if code == AVCode.eof { return }
        try check(code, .encode, path, String(cString: context.pointee.codec.pointee.name))
    }

    /// What `receive` produced.
    enum Output { case packet, needsInput, drained }

    /// Receives the next encoded packet.
    func receive(into packet: Packet) throws -> Output {
        let code = avcodec_receive_packet(context, packet.pointer)
        if code == AVCode.again { return .needsInput }
        if code == AVCode.eof { return .drained }
        try check(code, .encode, path, String(cString: context.pointee.codec.pointee.name))
        return .packet
    }
}
