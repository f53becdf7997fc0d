internal import CFFmpeg

/// Owns one `AVFrame` and frees it exactly once.
final class Frame {
    let pointer: UnsafeMutablePointer<AVFrame>
    init() {
        guard let p = av_frame_alloc() else { fatalError("av_frame_alloc: out of memory") }
        pointer = p
    }
    deinit {
        var p: UnsafeMutablePointer<AVFrame>? = pointer
        av_frame_free(&p)
    }
    /// Drops the frame's buffers so the frame can be reused.
    func unref() { av_frame_unref(pointer) }

    /// True when the decoder marked the frame as damaged (errors concealed).
    var isCorrupt: Bool { (pointer.pointee.flags & AV_FRAME_FLAG_CORRUPT) != 0 || pointer.pointee.decode_error_flags != 0 }

    /// A new audio frame of `count` samples in this sample format, rate and channel layout (contents undefined).
    convenience init(audioSamples count: Int32, format: Int32, rate: Int32, layout: AVChannelLayout, path: String) throws {
        self.init()
        var layout = layout
        pointer.pointee.format = format
        pointer.pointee.sample_rate = rate
        pointer.pointee.nb_samples = count
        try check(av_channel_layout_copy(&pointer.pointee.ch_layout, &layout), .filter, path, "copying a channel layout")
        try check(av_frame_get_buffer(pointer, 0), .filter, path, "allocating audio")
    }
}

/// Owns one `AVPacket` and frees it exactly once.
final class Packet {
    let pointer: UnsafeMutablePointer<AVPacket>
    init() {
        guard let p = av_packet_alloc() else { fatalError("av_packet_alloc: out of memory") }
        pointer = p
    }
    deinit {
        var p: UnsafeMutablePointer<AVPacket>? = pointer
        av_packet_free(&p)
    }
    /// Drops the packet's buffers so the packet can be reused.
    func unref() { av_packet_unref(pointer) }
}

func pixelFormatName(_ f: AVPixelFormat) -> String {
    av_get_pix_fmt_name(f).map { String(cString: $0) } ?? "unknown"
}

/// `frame->data` as the `uint8_t *const[]` swscale takes. The frame lives on FFmpeg's heap, so the address is stable.
func planes(_ frame: UnsafeMutablePointer<AVFrame>) -> UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?> {
    UnsafeMutableRawPointer(frame).advanced(by: MemoryLayout<AVFrame>.offset(of: \AVFrame.data)!)
        .assumingMemoryBound(to: UnsafeMutablePointer<UInt8>?.self)
}

/// `frame->linesize` as an `int[]`.
func lineSizes(_ frame: UnsafeMutablePointer<AVFrame>) -> UnsafeMutablePointer<Int32> {
    UnsafeMutableRawPointer(frame).advanced(by: MemoryLayout<AVFrame>.offset(of: \AVFrame.linesize)!)
        .assumingMemoryBound(to: Int32.self)
}

/// `frame->data` as `const uint8_t *const[]`.
func constPlanes(_ frame: UnsafeMutablePointer<AVFrame>) -> UnsafeMutablePointer<UnsafePointer<UInt8>?> {
    UnsafeMutableRawPointer(planes(frame)).assumingMemoryBound(to: UnsafePointer<UInt8>?.self)
}
