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
