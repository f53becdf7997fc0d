internal import CFFmpeg
import MediaExportCore

/// Reads a video stream's colour description: codec parameters (primaries, transfer, matrix, range, pixel
/// format's bit depth, field order), stream side data (mastering display, content light level, Dolby Vision
/// configuration) and, for an HDR stream whose container carries no HDR10 metadata, its first frame's side data
/// (HEVC sends it in SEI messages, which only decoding reads).
enum ColorProbe {
    /// The stream's colour, without decoding; nil for a stream that is not video.
    static func color(_ stream: UnsafeMutablePointer<AVStream>) -> VideoColor? {
        let par = stream.pointee.codecpar.pointee
        guard par.codec_type == AVMEDIA_TYPE_VIDEO else { return nil }
        var c = VideoColor()
        if par.color_primaries != AVCOL_PRI_UNSPECIFIED { c.primaries = text(av_color_primaries_name(par.color_primaries)) }
        if par.color_trc != AVCOL_TRC_UNSPECIFIED { c.transfer = text(av_color_transfer_name(par.color_trc)) }
        if par.color_space != AVCOL_SPC_UNSPECIFIED { c.matrix = text(av_color_space_name(par.color_space)) }
        if par.color_range != AVCOL_RANGE_UNSPECIFIED { c.range = text(av_color_range_name(par.color_range)) }
        if par.format >= 0, let desc = av_pix_fmt_desc_get(AVPixelFormat(rawValue: par.format)) {
            c.bitDepth = Int(desc.pointee.comp.0.depth)
        }
        c.fieldOrder = fieldOrder(par.field_order)
        var size = 0
        if let data = av_stream_get_side_data(stream, AV_PKT_DATA_MASTERING_DISPLAY_METADATA, &size),
           size >= MemoryLayout<AVMasteringDisplayMetadata>.size {
            c.mastering = data.withMemoryRebound(to: AVMasteringDisplayMetadata.self, capacity: 1) { mastering($0.pointee) }
        }
        if let data = av_stream_get_side_data(stream, AV_PKT_DATA_CONTENT_LIGHT_LEVEL, &size),
           size >= MemoryLayout<AVContentLightMetadata>.size {
            c.contentLight = data.withMemoryRebound(to: AVContentLightMetadata.self, capacity: 1) { light($0.pointee) }
        }
        if let data = av_stream_get_side_data(stream, AV_PKT_DATA_DOVI_CONF, &size),
           size >= MemoryLayout<AVDOVIDecoderConfigurationRecord>.size {
            c.dolbyVision = data.withMemoryRebound(to: AVDOVIDecoderConfigurationRecord.self, capacity: 1) { p in
                DolbyVision(profile: Int(p.pointee.dv_profile), level: Int(p.pointee.dv_level),
                            compatibility: Int(p.pointee.dv_bl_signal_compatibility_id), rpu: p.pointee.rpu_present_flag != 0)
            }
        }
        return c
    }

    /// Adds what the first frame of `streamIndex` says (HDR10 metadata from SEI) to a PQ stream's colour when
    /// the container had none. Reads at most a few hundred packets from a fresh demuxer (the caller's stays where it
    /// is); anything that fails leaves `color` as it was: this only ever adds detail.
    static func addFirstFrameMetadata(to color: inout VideoColor, path: String, streamIndex: Int) {
        // PQ only: HLG needs no static metadata (and hardly ever has any). One thread: a frame-threaded decoder would
        // start a pool to decode one frame (a quarter of a second of CPU for a 1080p HEVC stream).
        guard color.transferKind == .pq, color.mastering == nil, color.contentLight == nil,
              let demuxer = try? Demuxer(path: path, cancel: nil), streamIndex < demuxer.streams.count,
              let decoder = try? StreamDecoder(stream: demuxer.streams[streamIndex], path: path, codecs: CodecRun(threads: 1)) else { return }
        let packet = Packet(), frame = Frame()
        var gotFrame = false
        for _ in 0..<300 {
            guard let read = try? demuxer.read(into: packet), case .packet = read else { break }
            defer { packet.unref() }
            guard Int(packet.pointer.pointee.stream_index) == streamIndex, (try? decoder.send(packet)) != nil else { continue }
            if (try? decoder.receive(into: frame)) == .ready { gotFrame = true; break }
        }
        if !gotFrame {
            // A short stream: its first frame may only come out when the decoder is drained.
            try? decoder.send(nil)
            gotFrame = (try? decoder.receive(into: frame)) == .ready
        }
        guard gotFrame else { return }
        defer { frame.unref() }
        if let sd = av_frame_get_side_data(frame.pointer, AV_FRAME_DATA_MASTERING_DISPLAY_METADATA),
           sd.pointee.size >= MemoryLayout<AVMasteringDisplayMetadata>.size {
            color.mastering = sd.pointee.data.withMemoryRebound(to: AVMasteringDisplayMetadata.self, capacity: 1) { mastering($0.pointee) }
        }
        if let sd = av_frame_get_side_data(frame.pointer, AV_FRAME_DATA_CONTENT_LIGHT_LEVEL),
           sd.pointee.size >= MemoryLayout<AVContentLightMetadata>.size {
            color.contentLight = sd.pointee.data.withMemoryRebound(to: AVContentLightMetadata.self, capacity: 1) { light($0.pointee) }
        }
    }

    private static func fieldOrder(_ f: AVFieldOrder) -> FieldOrder? {
        switch f {
        case AV_FIELD_PROGRESSIVE: return .progressive
        case AV_FIELD_TT: return .tt
        case AV_FIELD_BB: return .bb
        case AV_FIELD_TB: return .tb
        case AV_FIELD_BT: return .bt
        default: return nil
        }
    }

    static func mastering(_ m: AVMasteringDisplayMetadata) -> MasteringDisplay? {
        guard m.has_primaries != 0 || m.has_luminance != 0 else { return nil }
        var out = MasteringDisplay()
        if m.has_primaries != 0 {
            let p = m.display_primaries
            func xy(_ pair: (AVRational, AVRational)) -> [Double] { [q(pair.0), q(pair.1)] }
            out.red = xy(p.0); out.green = xy(p.1); out.blue = xy(p.2)
            out.whitePoint = [q(m.white_point.0), q(m.white_point.1)]
        }
        if m.has_luminance != 0 {
            out.minLuminance = q(m.min_luminance)
            out.maxLuminance = q(m.max_luminance)
        }
        return out
    }

    static func light(_ l: AVContentLightMetadata) -> ContentLightLevel {
        ContentLightLevel(maxCLL: Int(l.MaxCLL), maxFALL: Int(l.MaxFALL))
    }

    /// A rational as a number; 0 for an invalid one (0/0).
    private static func q(_ r: AVRational) -> Double { r.den != 0 ? av_q2d(r) : 0 }

    private static func text(_ p: UnsafePointer<CChar>?) -> String? { p.map { String(cString: $0) } }

    /// Writes `color`'s HDR10 metadata as stream side data of an output stream (MP4 `mdcv`/`clli` where the muxer
    /// writes them, Matroska's colour elements).
    static func addHDRSideData(_ color: VideoColor, to stream: UnsafeMutablePointer<AVStream>) {
        if let m = color.mastering, let dst = av_stream_new_side_data(stream, AV_PKT_DATA_MASTERING_DISPLAY_METADATA,
                                                                     MemoryLayout<AVMasteringDisplayMetadata>.size) {
            memset(dst, 0, MemoryLayout<AVMasteringDisplayMetadata>.size)
            dst.withMemoryRebound(to: AVMasteringDisplayMetadata.self, capacity: 1) { p in
                func r(_ x: Double, _ den: Int32) -> AVRational { AVRational(num: Int32(saturating: (x * Double(den)).rounded()), den: den) }
                if m.red.count == 2, m.green.count == 2, m.blue.count == 2, m.whitePoint.count == 2 {
                    p.pointee.display_primaries = ((r(m.red[0], 50_000), r(m.red[1], 50_000)),
                                                   (r(m.green[0], 50_000), r(m.green[1], 50_000)),
                                                   (r(m.blue[0], 50_000), r(m.blue[1], 50_000)))
                    p.pointee.white_point = (r(m.whitePoint[0], 50_000), r(m.whitePoint[1], 50_000))
                    p.pointee.has_primaries = 1
                }
                if let minL = m.minLuminance, let maxL = m.maxLuminance {
                    p.pointee.min_luminance = r(minL, 10_000)
                    p.pointee.max_luminance = r(maxL, 10_000)
                    p.pointee.has_luminance = 1
                }
            }
        }
        if let l = color.contentLight, let dst = av_stream_new_side_data(stream, AV_PKT_DATA_CONTENT_LIGHT_LEVEL,
                                                                        MemoryLayout<AVContentLightMetadata>.size) {
            dst.withMemoryRebound(to: AVContentLightMetadata.self, capacity: 1) { p in
                p.pointee.MaxCLL = UInt32(clamping: l.maxCLL)
                p.pointee.MaxFALL = UInt32(clamping: l.maxFALL)
            }
        }
    }
}
