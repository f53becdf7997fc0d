internal import CFFmpeg
internal import CFFmpegLog
import MediaExportCore

/// One option an encoder is opened with, and the preset field that asked for it (named when it goes unused).
struct EncoderOption: Equatable {
    /// The AVOption name, e.g. `crf`.
    var key: String
    /// Its value as text, as `av_dict_set` takes it.
    var value: String
    /// The preset's JSON field behind it, e.g. `video.crf`.
    var field: String
}

/// Stage 4: turns frames into packets for one output stream.
///
/// An encoder is never flushed before it has taken a frame: the end of a stream that gave it none ends it at once,
/// without a call into the library (SVT-AV1 1.4 waits forever for the packet of an end of stream that follows no
/// frame). An encoder whose library cannot be closed either before it took a frame
/// (`EncoderProfile.closesOnlyAfterAFrame`) is given one black frame when freed, its packets dropped.
final class StreamEncoder {
    let context: UnsafeMutablePointer<AVCodecContext>
    let path: String
    /// The encoder's name (`libx264`, `aac` …), for messages.
    let name: String
    /// `EncoderProfile.closesOnlyAfterAFrame`.
    private let closesOnlyAfterAFrame: Bool
    /// `avcodec_open2` succeeded.
    private var opened = false
    /// Frames the encoder has taken.
    private var framesSent = 0
    /// The end of stream came before any frame: nothing more comes out, and the library was not asked.
    private var endedEmpty = false

    /// Allocates a context for the named encoder; the caller fills it in and calls `open`.
    init(encoderName: String, path: String, closesOnlyAfterAFrame: Bool = false) throws {
        self.path = path
        self.closesOnlyAfterAFrame = closesOnlyAfterAFrame
        guard let codec = avcodec_find_encoder_by_name(encoderName) else {
            throw ExportError.ffmpeg(stage: .encode, path: path, code: cff_averror_encoder_not_found(),
                                     message: "encoder \(encoderName) is not in this FFmpeg build")
        }
        guard let ctx = avcodec_alloc_context3(codec) else { fatalError("avcodec_alloc_context3: out of memory") }
        context = ctx
        name = String(cString: codec.pointee.name)
    }

    deinit {
        if opened && framesSent == 0 && closesOnlyAfterAFrame { closeAfterBlankFrame() }
        var c: UnsafeMutablePointer<AVCodecContext>? = context
        avcodec_free_context(&c)
    }

    /// Opens the encoder with options that come from no preset (each key names itself in errors).
    func open(options: [String: String]) throws {
        try open(options.sorted { $0.key < $1.key }.map { EncoderOption(key: $0.key, value: $0.value, field: $0.key) })
    }

    /// Opens the encoder with options (e.g. `preset`, `crf`). Every option must be used: `avcodec_open2` leaves
    /// in the dictionary what neither the codec context nor the encoder knows, and such a leftover means the
    /// preset asked for something that would silently not happen (fftools' `assert_avoptions`: "Option … not
    /// found" is fatal there too). An option the encoder knows but refuses fails inside `avcodec_open2` instead.
    func open(_ options: [EncoderOption]) throws {
        // Capabilities are a thread's own: the thread that opens an encoder gives up real-time priority (for itself and
        // the threads it starts, as SVT-AV1's workers) before the library can take it (`cff_drop_realtime_priority`).
        _ = cff_drop_realtime_priority()
        var dict: OpaquePointer? = nil
        for option in options { av_dict_set(&dict, option.key, option.value, 0) }
        defer { av_dict_free(&dict) }
        try check(avcodec_open2(context, context.pointee.codec, &dict), .encode, path, "opening \(name) encoder")
        opened = true
        try StreamEncoder.requireUsed(options, leftover: Demuxer.dictionary(dict), encoder: name, path: path)
    }

    /// Throws `invalidPreset` naming the preset field behind the first option the encoder left unused.
    /// `leftover` is what `avcodec_open2` handed back; `path` is the file the error is reported against.
    static func requireUsed(_ options: [EncoderOption], leftover: [String: String], encoder: String, path: String) throws {
        guard !leftover.isEmpty else { return }
        let unused = options.filter { leftover[$0.key] != nil }
        // `avcodec_open2` hands back only keys it was given, so `unused` is never empty in practice; if it were,
        // the leftover keys themselves are named rather than letting the export succeed without them.
        let field = unused.first?.field ?? leftover.keys.sorted()[0]
        let keys = unused.isEmpty ? leftover.keys.sorted() : unused.map(\.key)
        throw ExportError.invalidPreset(path: path, field: field,
                                        reason: "the \(encoder) encoder has no option \(keys.map { "'\($0)'" }.joined(separator: ", ")); it would be ignored")
    }

    /// Sends a frame (or `nil` to flush; after no frame, the encoder just ends).
    func send(_ frame: Frame?) throws {
        if frame == nil && framesSent == 0 {
            endedEmpty = true
            return
        }
        let code = avcodec_send_frame(context, frame?.pointer)
        // Checked before building the message: this runs for every frame.
        if code >= 0 || code == AVCode.eof {
            if frame != nil { framesSent += 1 }
            return
        }
        try check(code, .encode, path, name)
    }

    /// Receives the next encoded packet.
    func receive(into packet: Packet) throws -> Received {
        if endedEmpty { return .ended }
        return try received(avcodec_receive_packet(context, packet.pointer), .encode, path, name)
    }

    /// Gives the encoder one black frame of its picture and drains it, dropping the packets: the library then closes
    /// (SVT-AV1 1.4 waits forever at its close for an end of stream it can only reach after a frame). Bounded: one
    /// frame's packets.
    private func closeAfterBlankFrame() {
        let blank = Frame(), f = blank.pointer
        (f.pointee.width, f.pointee.height, f.pointee.format) = (context.pointee.width, context.pointee.height, context.pointee.pix_fmt.rawValue)
        guard context.pointee.codec_type == AVMEDIA_TYPE_VIDEO, av_frame_get_buffer(f, 0) >= 0 else { return }
        withUnsafeMutableBytes(of: &f.pointee.buf) { refs in
            for case let ref? in refs.bindMemory(to: UnsafeMutablePointer<AVBufferRef>?.self) { memset(ref.pointee.data, 0, Int(ref.pointee.size)) }
        }
        f.pointee.pts = 0
        guard avcodec_send_frame(context, f) >= 0, avcodec_send_frame(context, nil) >= 0 else { return }
        let packet = Packet()
        var drained = 0
        while drained < 64, avcodec_receive_packet(context, packet.pointer) >= 0 {
            packet.unref()
            drained += 1
        }
    }
}
