internal import CFFmpeg
import Foundation
import MediaExportCore

extension VideoPlan {
    /// Sets the encoder up for this plan: picture, time base and `frameRate` (as shown), the source's colour
    /// description (or the plan's output colour), field order, threads, rate control and the two-pass flags.
    func setUp(_ enc: UnsafeMutablePointer<AVCodecContext>, input par: AVCodecParameters, frameRate: AVRational, timeBase: AVRational,
               pixelFormat: AVPixelFormat, pass: Transcoder.EncoderPass?, codecs: CodecRun) {
        enc.pointee.width = Int32(width)
        enc.pointee.height = Int32(height)
        enc.pointee.pix_fmt = pixelFormat
        enc.pointee.sample_aspect_ratio = AVRational(num: 1, den: 1)
        // The input's own time base keeps variable-frame-rate timestamps exact.
        enc.pointee.time_base = timeBase
        enc.pointee.framerate = frameRate
        enc.pointee.color_range = par.color_range
        enc.pointee.color_primaries = par.color_primaries
        enc.pointee.color_trc = par.color_trc
        enc.pointee.colorspace = par.color_space
        enc.pointee.chroma_sample_location = par.chroma_location
        if let out = outputColor {
            // Tone-mapped to BT.709, or HDR kept with BT.2020 filled in where the source left it unsaid.
            if let p = out.primaries, case let v = av_color_primaries_from_name(p), v >= 0 { enc.pointee.color_primaries = AVColorPrimaries(rawValue: UInt32(v)) }
            if let t = out.transfer, case let v = av_color_transfer_from_name(t), v >= 0 { enc.pointee.color_trc = AVColorTransferCharacteristic(rawValue: UInt32(v)) }
            if let m = out.matrix, case let v = av_color_space_from_name(m), v >= 0 { enc.pointee.colorspace = AVColorSpace(rawValue: UInt32(v)) }
            if let r = out.range, case let v = av_color_range_from_name(r), v >= 0 { enc.pointee.color_range = AVColorRange(rawValue: UInt32(v)) }
        }
        if deinterlace != .off || par.field_order == AV_FIELD_PROGRESSIVE { enc.pointee.field_order = AV_FIELD_PROGRESSIVE }
        enc.pointee.thread_count = encoderThreads(codecs)
        if let max = settings.maxBitrate {
            // CRF capped by the VBV, as `-maxrate`/`-bufsize` (both encoders read them from the context).
            enc.pointee.rc_max_rate = Int64(max)
            enc.pointee.rc_buffer_size = Int32(clamping: settings.bufferSize ?? 2 * max)
            if let fill = vbvInitialFill {
                enc.pointee.rc_initial_buffer_occupancy = Int32(clamping: Int((Double(enc.pointee.rc_buffer_size) * fill).rounded()))
            }
        }
        if let bitrate = settings.bitrate { enc.pointee.bit_rate = Int64(bitrate) }
        switch pass {
        case .first: enc.pointee.flags |= cff_codec_flag_pass1()
        case .second: enc.pointee.flags |= cff_codec_flag_pass2()
        case nil: break
        }
    }

    /// The encoder's thread count: 0 as the ffmpeg CLI, threads=auto (x264: 1.5 frame threads a core, plus lookahead
    /// threads), else the count given (x264 derives its lookahead threads from it: 1 runs it on the exporting thread
    /// alone); 1 when a VBV caps the rate of an encoder whose VBV reads its other frame threads' progress.
    func encoderThreads(_ codecs: CodecRun) -> Int32 {
        settings.maxBitrate != nil && settings.codec.profile.determinism.vbvOnOneThread ? 1 : codecs.count
    }

    /// The encoder options this plan asks for, each naming the preset field behind it, so that an option the
    /// encoder does not use is reported against that field: the speed and CRF, then its family's driver's.
    func encoderOptions(pass: Transcoder.EncoderPass? = nil, codecs: CodecRun = CodecRun()) -> [EncoderOption] {
        let profile = settings.codec.profile
        var options = [EncoderOption(key: "preset", value: settings.encoderPreset, field: "video.encoderPreset")]
        // An average bit rate replaces the CRF (every wrapper lets a given `crf` win over `bit_rate`).
        if settings.bitrate == nil { options.append(EncoderOption(key: "crf", value: String(settings.crf), field: "video.crf")) }
        // A keyframe the stage asks for (`pict_type` I) is an IDR, never an open-GOP I frame a segment cannot start with.
        if settings.keyframeInterval != nil && profile.family != .svtAV1 {
            options.append(EncoderOption(key: "forced-idr", value: "1", field: "video.keyframeInterval"))
        }
        switch profile.family {
        case .x264: return options + x264Options(profile, pass: pass, codecs: codecs)
        case .x265: return options + x265Options(profile, pass: pass, codecs: codecs)
        case .svtAV1: return options + svtAV1Options(profile, codecs: codecs)
        case .audio: return options
        }
    }

    /// x264's driver: the profile's parameters for the same bytes (always on, so every export is the same bytes every
    /// time) and its statistics file for two passes (`x264_2pass.log` in the working folder unless told).
    private func x264Options(_ profile: EncoderProfile, pass: Transcoder.EncoderPass?, codecs: CodecRun) -> [EncoderOption] {
        var options = [EncoderOption(key: "x264-params", value: Self.determinism(profile, codecs).joined(separator: ":"),
                                     field: codecs.deterministic ? "deterministic" : "reproducible")]
        switch pass {
        case .first(let log), .second(let log): options.append(EncoderOption(key: "stats", value: log, field: "video.twoPass"))
        case nil: break
        }
        return options
    }

    /// x265's driver: everything in `x265-params`. Its own logging quietened (it writes to stderr itself); the VBV's
    /// initial fill and the HDR10 metadata kept (libavcodec 5.1's wrapper passes on neither), and its own
    /// `pass`/`stats` (the wrapper ignores the pass flags); then the profile's parameters for the same bytes.
    private func x265Options(_ profile: EncoderProfile, pass: Transcoder.EncoderPass?, codecs: CodecRun) -> [EncoderOption] {
        var params = ["log-level=error"]
        if let fill = vbvInitialFill, settings.maxBitrate != nil { params.append(String(format: "vbv-init=%.3f", fill)) }
        params += hdrParams(profile, mastering: \.x265Value)
        switch pass {
        case .first(let log): params += ["pass=1", "stats=\(log)"]
        case .second(let log): params += ["pass=2", "stats=\(log)"]
        case nil: break
        }
        params += Self.determinism(profile, codecs)
        return [EncoderOption(key: "x265-params", value: params.joined(separator: ":"), field: "video.codec")]
    }

    /// SVT-AV1's driver (`svtav1-params`): the HDR10 metadata kept (libavcodec 5.1's wrapper passes the colour
    /// description but no side data; SVT writes them as AV1 metadata OBUs), then the profile's parameters for the
    /// same bytes; no option when there is nothing to say.
    private func svtAV1Options(_ profile: EncoderProfile, codecs: CodecRun) -> [EncoderOption] {
        let params = hdrParams(profile, mastering: \.svtAV1Value) + Self.determinism(profile, codecs)
        return params.isEmpty ? [] : [EncoderOption(key: "svtav1-params", value: params.joined(separator: ":"), field: "video.codec")]
    }

    /// The HDR10 metadata of an HDR output, under the profile's parameter names (mastering display written by `mastering`).
    private func hdrParams(_ profile: EncoderProfile, mastering: (MasteringDisplay) -> String?) -> [String] {
        guard let hdr = profile.hdr, let out = outputColor, out.isHDR else { return [] }
        var params: [String] = []
        if let master = out.mastering.flatMap(mastering) { params.append("\(hdr.masteringKey)=\(master)") }
        if let light = out.contentLight { params.append("\(hdr.contentLightKey)=\(light.maxCLL),\(light.maxFALL)") }
        return params
    }

    /// The profile's parameters for the same bytes every run, plus, under `--deterministic`, its SIMD level pinned and
    /// its pool sized by the thread count.
    private static func determinism(_ profile: EncoderProfile, _ codecs: CodecRun) -> [String] {
        let d = profile.determinism
        guard codecs.deterministic else { return d.always }
        return d.always + d.pinned + (d.poolsKey.flatMap { key in codecs.threads.map { "\(key)=\($0)" } }.map { [$0] } ?? [])
    }
}

extension AudioPlan {
    /// The audio driver: sets the encoder up for this plan (the profile's sample format, the rate, layout and bit rate,
    /// time base one sample, threads).
    func setUp(_ enc: UnsafeMutablePointer<AVCodecContext>, codecs: CodecRun) {
        enc.pointee.sample_fmt = av_get_sample_fmt(settings.codec.profile.sampleFormat ?? "fltp")
        enc.pointee.sample_rate = Int32(settings.sampleRate)
        cff_default_layout(&enc.pointee.ch_layout, Int32(channels))  // a validated preset's: 1–8 channels
        enc.pointee.bit_rate = Int64(settings.bitrate)
        enc.pointee.time_base = AVRational(num: 1, den: Int32(settings.sampleRate))
        enc.pointee.thread_count = codecs.count
    }
}
