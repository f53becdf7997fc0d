internal import CFFmpeg
import Foundation
import MediaExportCore

/// A packed 8-bit RGB picture in memory (small: a thumbnail).
struct RGBPicture {
    var width: Int
    var height: Int
    var pixels: [UInt8]

    /// swscale's flags for a picture looked at closely (a thumbnail), and for a small tile many times smaller than
    /// the frame (scrub previews: an area average, a fraction of the cost).
    static let closeFlags = SWS_BICUBIC | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT, tileFlags = SWS_AREA

    /// Crops `frame`, converts it to full-range RGB with the stream's colour matrix and range, and scales it.
    static func scale(frame: Frame, crop: PixelRect, width: Int, height: Int, path: String,
                      flags: Int32 = closeFlags) throws -> RGBPicture {
        let f = frame.pointer
        f.pointee.crop_left = Int(crop.left)
        f.pointee.crop_top = Int(crop.top)
        f.pointee.crop_right = max(0, Int(f.pointee.width) - crop.left - crop.width)
        f.pointee.crop_bottom = max(0, Int(f.pointee.height) - crop.top - crop.height)
        try check(av_frame_apply_cropping(f, Int32(AV_FRAME_CROP_UNALIGNED)), .filter, path, "cropping")
        let format = AVPixelFormat(rawValue: f.pointee.format)
        guard let sws = sws_getContext(f.pointee.width, f.pointee.height, format, Int32(width), Int32(height), AV_PIX_FMT_RGB24,
                                       flags, nil, nil, nil) else {
            throw ExportError.ffmpeg(stage: .filter, path: path, code: -1, message: "cannot convert \(pixelFormatName(format)) to RGB")
        }
        defer { sws_freeContext(sws) }
        // Limited-range ("TV") YUV in, full-range RGB out, with the stream's matrix (BT.709 for HD, else BT.601).
        let space = f.pointee.colorspace
        let matrix: Int32
        switch space {
        case AVCOL_SPC_BT709: matrix = SWS_CS_ITU709
        case AVCOL_SPC_BT2020_NCL, AVCOL_SPC_BT2020_CL: matrix = SWS_CS_BT2020
        case AVCOL_SPC_UNSPECIFIED: matrix = f.pointee.height >= 720 ? SWS_CS_ITU709 : SWS_CS_ITU601
        default: matrix = SWS_CS_ITU601
        }
        let srcFull: Int32 = f.pointee.color_range == AVCOL_RANGE_JPEG || format == AV_PIX_FMT_YUVJ420P || format == AV_PIX_FMT_YUVJ444P ? 1 : 0
        let coefficients = sws_getCoefficients(matrix)
        _ = sws_setColorspaceDetails(sws, coefficients, srcFull, sws_getCoefficients(SWS_CS_DEFAULT), 1, 0, 1 << 16, 1 << 16)
        var out = RGBPicture(width: width, height: height, pixels: [UInt8](repeating: 0, count: width * height * 3))
        out.pixels.withUnsafeMutableBufferPointer { buf in
            var dst: [UnsafeMutablePointer<UInt8>?] = [buf.baseAddress, nil, nil, nil]
            var stride: [Int32] = [Int32(width * 3), 0, 0, 0]
            _ = sws_scale(sws, constPlanes(f), lineSizes(f), 0, f.pointee.height, &dst, &stride)
        }
        return out
    }

    /// A limited-range 8-bit luma plane as a full-range gray RGB picture, scaled down (aspect kept) to at most
    /// `fittingWidth` wide.
    static func luma(_ luma: [UInt8], width: Int, height: Int, fittingWidth: Int, path: String) throws -> RGBPicture {
        let outW = min(width, fittingWidth)
        let outH = max(1, Int((Double(height) * Double(outW) / Double(width)).rounded()))
        guard let sws = sws_getContext(Int32(width), Int32(height), AV_PIX_FMT_GRAY8, Int32(outW), Int32(outH), AV_PIX_FMT_RGB24,
                                       SWS_AREA | SWS_ACCURATE_RND, nil, nil, nil) else {
            throw ExportError.ffmpeg(stage: .filter, path: path, code: -1, message: "cannot convert luma to RGB")
        }
        defer { sws_freeContext(sws) }
        let coefficients = sws_getCoefficients(SWS_CS_DEFAULT)
        _ = sws_setColorspaceDetails(sws, coefficients, 0, coefficients, 1, 0, 1 << 16, 1 << 16)
        var out = RGBPicture(width: outW, height: outH, pixels: [UInt8](repeating: 0, count: outW * outH * 3))
        luma.withUnsafeBufferPointer { src in
            out.pixels.withUnsafeMutableBufferPointer { buf in
                var srcPlanes: [UnsafePointer<UInt8>?] = [src.baseAddress, nil, nil, nil]
                var srcStride: [Int32] = [Int32(width), 0, 0, 0]
                var dst: [UnsafeMutablePointer<UInt8>?] = [buf.baseAddress, nil, nil, nil]
                var stride: [Int32] = [Int32(outW * 3), 0, 0, 0]
                _ = sws_scale(sws, &srcPlanes, &srcStride, 0, Int32(height), &dst, &stride)
            }
        }
        return out
    }

    /// Turned clockwise by 0, 90, 180 or 270 degrees.
    func rotated(clockwise degrees: Int) -> RGBPicture {
        let d = Rotation.normalized(degrees)
        if d == 0 { return self }
        let (nw, nh) = d == 180 ? (width, height) : (height, width)
        var out = [UInt8](repeating: 0, count: pixels.count)
        for y in 0..<height {
            for x in 0..<width {
                let (nx, ny): (Int, Int)
                switch d {
                case 90: (nx, ny) = (height - 1 - y, x)
                case 180: (nx, ny) = (width - 1 - x, height - 1 - y)
                default: (nx, ny) = (y, width - 1 - x)
                }
                let s = (y * width + x) * 3, t = (ny * nw + nx) * 3
                out[t] = pixels[s]; out[t + 1] = pixels[s + 1]; out[t + 2] = pixels[s + 2]
            }
        }
        return RGBPicture(width: nw, height: nh, pixels: out)
    }

    /// Mirrored left-right (horizontal) or top-bottom.
    func flipped(horizontal: Bool) -> RGBPicture {
        var out = pixels
        for y in 0..<height {
            for x in 0..<width {
                let (sx, sy) = horizontal ? (width - 1 - x, y) : (x, height - 1 - y)
                let s = (sy * width + sx) * 3, t = (y * width + x) * 3
                out[t] = pixels[s]; out[t + 1] = pixels[s + 1]; out[t + 2] = pixels[s + 2]
            }
        }
        return RGBPicture(width: width, height: height, pixels: out)
    }

    /// Encodes with libavcodec: PNG (RGB24) or JPEG (MJPEG, full-range 4:2:0, high quality).
    func encode(png: Bool, path: String) throws -> Data {
        let encoder = try StreamEncoder(encoderName: png ? "png" : "mjpeg", path: path)
        let ctx = encoder.context
        ctx.pointee.width = Int32(width)
        ctx.pointee.height = Int32(height)
        ctx.pointee.time_base = AVRational(num: 1, den: 25)
        ctx.pointee.pix_fmt = png ? AV_PIX_FMT_RGB24 : AV_PIX_FMT_YUVJ420P
        ctx.pointee.color_range = AVCOL_RANGE_JPEG
        if !png {
            ctx.pointee.flags |= AV_CODEC_FLAG_QSCALE
            ctx.pointee.global_quality = 2 * FF_QP2LAMBDA
        }
        try encoder.open(options: [:])
        let frame = Frame()
        let f = frame.pointer
        f.pointee.width = Int32(width)
        f.pointee.height = Int32(height)
        f.pointee.format = ctx.pointee.pix_fmt.rawValue
        f.pointee.pts = 0
        try check(av_frame_get_buffer(f, 0), .encode, path, "allocating a picture")
        try pixels.withUnsafeBufferPointer { src in
            if png {
                for y in 0..<height {
                    memcpy(f.pointee.data.0! + y * Int(f.pointee.linesize.0), src.baseAddress! + y * width * 3, width * 3)
                }
            } else {
                guard let sws = sws_getContext(Int32(width), Int32(height), AV_PIX_FMT_RGB24, Int32(width), Int32(height), AV_PIX_FMT_YUVJ420P,
                                               SWS_BICUBIC | SWS_ACCURATE_RND, nil, nil, nil) else {
                    throw ExportError.ffmpeg(stage: .encode, path: path, code: -1, message: "cannot convert RGB to JPEG's YUV")
                }
                defer { sws_freeContext(sws) }
                var srcPlanes: [UnsafePointer<UInt8>?] = [src.baseAddress, nil, nil, nil]
                var srcStride: [Int32] = [Int32(width * 3), 0, 0, 0]
                _ = sws_scale(sws, &srcPlanes, &srcStride, 0, Int32(height), planes(f), lineSizes(f))
            }
        }
        try encoder.send(frame)
        try encoder.send(nil)
        var data = Data()
        let packet = Packet()
        while case .ready = try encoder.receive(into: packet) {
            data.append(packet.pointer.pointee.data, count: Int(packet.pointer.pointee.size))
            packet.unref()
        }
        guard !data.isEmpty else { throw ExportError.ffmpeg(stage: .encode, path: path, code: -1, message: "the encoder produced nothing") }
        return data
    }
}
