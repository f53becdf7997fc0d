internal import CFFmpeg
import MediaExportCore

/// Stage 3 (video): converts decoded pictures to the encoder's size and pixel format with swscale.
/// When the source already matches, frames pass through untouched.
final class VideoScaler {
    let width: Int32
    let height: Int32
    let format: AVPixelFormat
    private var context: OpaquePointer?
    private let output = Frame()
    private let path: String

    init(width: Int32, height: Int32, format: AVPixelFormat, path: String) {
        self.width = width; self.height = height; self.format = format; self.path = path
    }

    deinit { sws_freeContext(context) }

    /// Returns a frame in the target geometry: `input` itself when nothing needs converting, else a reused buffer.
    /// `keepAspect` keeps the input's sample aspect ratio (for a frame going on into a filter graph, which squares
    /// the pixels itself); otherwise the output's pixels are square (the plan's size already accounts for them).
    func convert(_ input: Frame, keepAspect: Bool = false) throws -> Frame {
        let src = input.pointer.pointee
        let srcFormat = AVPixelFormat(rawValue: src.format)
        if src.width == width && src.height == height && srcFormat == format { return input }
        // Bicubic, as the ffmpeg CLI's scale filter uses by default, so quality matches the peer we compare against.
        context = sws_getCachedContext(context, src.width, src.height, srcFormat, width, height, format,
                                       SWS_BICUBIC, nil, nil, nil)
        guard let context else {
            throw ExportError.ffmpeg(stage: .filter, path: path, code: -1,
                                     message: "cannot convert \(src.width)x\(src.height) \(pixelFormatName(srcFormat)) to \(width)x\(height) \(pixelFormatName(format))")
        }
        let out = output.pointer
        if out.pointee.buf.0 == nil || av_frame_is_writable(out) == 0 {
            av_frame_unref(out)
            out.pointee.width = width
            out.pointee.height = height
            out.pointee.format = format.rawValue
            try check(av_frame_get_buffer(out, 0), .filter, path, "allocating a picture")
        }
        let rows = sws_scale(context, constPlanes(input.pointer), lineSizes(input.pointer), 0, src.height,
                             planes(out), lineSizes(out))
        if rows <= 0 {
            throw ExportError.ffmpeg(stage: .filter, path: path, code: rows, message: "scaling failed")
        }
        try check(av_frame_copy_props(out, input.pointer), .filter, path, "copying frame properties")
        if !keepAspect { out.pointee.sample_aspect_ratio = AVRational(num: 1, den: 1) }
        return output
    }
}
