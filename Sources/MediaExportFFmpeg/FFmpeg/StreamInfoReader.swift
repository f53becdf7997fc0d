internal import CFFmpeg
import MediaExportCore

/// Reads a file's stream information (`avformat_find_stream_info`) without decoding what its header already says.
///
/// libavformat decodes a first frame of each stream to learn what the container leaves out. For H.264 it always
/// does: its decoder delay is only "guessed" after frames are decoded. A camera's 1080p keyframe costs about 0.1 s,
/// more than the whole remux of a 4 s clip, and the ffmpeg CLI pays it too. In a MOV/MP4 the sample table stores
/// every packet's decoding and presentation time, so the delay is never needed there, and what the decoder would
/// report (pixel format, bit depth, colour description, chroma siting, sample aspect ratio) is in the sequence
/// parameter set of the `avcC` record.
///
/// So, for an H.264 stream (`avc1`) of a MOV/MP4 whose single SPS parses and agrees with the sample description's
/// size, those fields are set from the SPS as FFmpeg 5.1's decoder sets them (`h264_slice.c`, `get_pixel_format`),
/// and the stream's probe decoder is refused (a `codec_whitelist` of none, its error shifted out of every level).
/// Any other stream, or any doubt, is probed by decoding. Matroska, MPEG-TS, AVI and FLV keep the decode: their
/// decoding times are derived with that delay.
enum StreamInfoReader {
    /// `avformat_find_stream_info` on `context`, with the H.264 header read described above. Returns its code.
    static func read(_ context: UnsafeMutablePointer<AVFormatContext>) -> Int32 {
        let prepared = prepareHeaderRead(context)
        guard !prepared.isEmpty else { return avformat_find_stream_info(context, nil) }
        var options = [OpaquePointer?](repeating: nil, count: Int(context.pointee.nb_streams))
        for i in prepared {
            av_dict_set(&options[i], "codec_whitelist", "none", 0)
            // "Codec (h264) not on whitelist" is logged at the error level: shifted out of every level's reach (and so
            // never taken for the file's last error either).
            av_dict_set(&options[i], "log_level_offset", "64", 0)
        }
        defer { for i in options.indices { av_dict_free(&options[i]) } }
        return options.withUnsafeMutableBufferPointer { avformat_find_stream_info(context, $0.baseAddress) }
    }

    /// Sets the decoder-reported fields of each H.264 stream that qualifies (see the type); returns their indices.
    static func prepareHeaderRead(_ context: UnsafeMutablePointer<AVFormatContext>) -> [Int] {
        guard let name = context.pointee.iformat?.pointee.name, String(cString: name) == "mov,mp4,m4a,3gp,3g2,mj2" else { return [] }
        var prepared: [Int] = []
        for i in 0..<Int(context.pointee.nb_streams) {
            // `avc1` only: its parameter sets are the sample entry's (`avc3` may change them in the stream).
            guard let par = context.pointee.streams[i]?.pointee.codecpar, par.pointee.codec_id == AV_CODEC_ID_H264,
                  par.pointee.codec_tag == cff_mktag(0x61, 0x76, 0x63, 0x31),
                  par.pointee.extradata_size > 0, let extradata = par.pointee.extradata,
                  setDecoderFields(extradata: Array(UnsafeBufferPointer(start: extradata, count: Int(par.pointee.extradata_size))), on: par)
            else { continue }
            prepared.append(i)
        }
        return prepared
    }

    /// Sets on `par` (what the container says) the fields FFmpeg 5.1's H.264 decoder reports for a stream with this
    /// `avcC`. False, setting nothing, when the SPS is missing, several, unreadable, or describes what the header read
    /// leaves to the decoder (monochrome, separate colour planes, unequal or unsupported bit depths, a size other
    /// than the container's).
    static func setDecoderFields(extradata: [UInt8], on par: UnsafeMutablePointer<AVCodecParameters>) -> Bool {
        guard let sets = H264SequenceParameters.sequenceParameterSets(extradata: extradata), sets.count == 1,
              let sps = H264SequenceParameters(rbsp: sets[0]) else { return false }
        let depth = sps.bitDepthLuma
        guard !sps.separateColourPlanes, (1...3).contains(sps.chromaFormat), sps.bitDepthChroma == depth, [8, 9, 10, 12, 14].contains(depth),
              sps.width == Int(par.pointee.width), sps.height == Int(par.pointee.height) else { return false }
        par.pointee.bits_per_raw_sample = Int32(depth)
        // h264_init_ps: the VUI's video signal type and colour description replace the container's.
        if let full = sps.fullRange { par.pointee.color_range = full ? AVCOL_RANGE_JPEG : AVCOL_RANGE_MPEG }
        if let c = sps.colour {
            let p = AVColorPrimaries(UInt32(c.primaries)), t = AVColorTransferCharacteristic(UInt32(c.transfer))
            let m = AVColorSpace(UInt32(c.matrix))
            par.pointee.color_primaries = av_color_primaries_name(p) != nil ? p : AVCOL_PRI_UNSPECIFIED
            par.pointee.color_trc = av_color_transfer_name(t) != nil ? t : AVCOL_TRC_UNSPECIFIED
            par.pointee.color_space = av_color_space_name(m) != nil ? m : AVCOL_SPC_UNSPECIFIED
        }
        // h264_ps.c: chroma_sample_loc_type_top_field + 1, else left (the standard's default, type 0).
        if let location = sps.chromaSampleLocation {
            par.pointee.chroma_location = AVChromaLocation(UInt32(location + 1))  // location ≤ 5, colour code points are 8 bits (the SPS reader)
        } else if par.pointee.chroma_location == AVCHROMA_LOC_UNSPECIFIED {
            par.pointee.chroma_location = AVCHROMA_LOC_LEFT
        }
        if let sar = sps.sampleAspectRatio, sar.num > 0, sar.den > 0 {
            var r = AVRational()
            av_reduce(&r.num, &r.den, Int64(sar.num), Int64(sar.den), Int64(Int32.max))
            par.pointee.sample_aspect_ratio = r
        }
        par.pointee.format = pixelFormat(depth: depth, chroma: sps.chromaFormat, full: par.pointee.color_range == AVCOL_RANGE_JPEG,
                                         rgb: par.pointee.color_space == AVCOL_SPC_RGB).rawValue
        return true
    }

    /// `get_pixel_format` of FFmpeg 5.1's `h264_slice.c`, without hardware decoding. Deeper than 8 bits the
    /// formats are native-endian (`AV_PIX_FMT_YUV420P10` and the like are macros Swift cannot import).
    static func pixelFormat(depth: Int, chroma: Int, full: Bool, rgb: Bool) -> AVPixelFormat {
        switch (depth, chroma) {
        case (8, 3): return rgb ? AV_PIX_FMT_GBRP : full ? AV_PIX_FMT_YUVJ444P : AV_PIX_FMT_YUV444P
        case (8, 2): return full ? AV_PIX_FMT_YUVJ422P : AV_PIX_FMT_YUV422P
        case (8, _): return full ? AV_PIX_FMT_YUVJ420P : AV_PIX_FMT_YUV420P
        default:
            let layout = chroma == 3 ? (rgb ? "gbrp" : "yuv444p") : chroma == 2 ? "yuv422p" : "yuv420p"
            return av_get_pix_fmt("\(layout)\(depth)\(UInt16(1).littleEndian == 1 ? "le" : "be")")
        }
    }
}
