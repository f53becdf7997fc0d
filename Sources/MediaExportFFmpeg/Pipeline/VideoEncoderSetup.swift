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
        // 0 as the ffmpeg CLI: threads=auto (x264: 1.5 frame threads a core, plus lookahead threads). A count given is
        // x264's `threads`; its lookahead threads are derived from it, so 1 runs x264 on the exporting thread alone.
        enc.pointee.thread_count = codecs.count
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

    /// The encoder options this plan asks for, each naming the preset field behind it, so that an option the
    /// encoder does not use is reported against that field.
    func encoderOptions(pass: Transcoder.EncoderPass? = nil, codecs: CodecRun = CodecRun()) -> [EncoderOption] {
        var options = [EncoderOption(key: "preset", value: settings.encoderPreset, field: "video.encoderPreset")]
        // An average bit rate replaces the CRF (both wrappers let a given `crf` win over `bit_rate`).
        if settings.bitrate == nil { options.append(EncoderOption(key: "crf", value: String(settings.crf), field: "video.crf")) }
        if settings.codec == .av1 { return options + svtAV1Options(codecs: codecs) }
        if settings.codec == .hevc {
            // Quiet x265's own logging (it writes to stderr itself); asked for by choosing the codec. HDR10 metadata
            // kept goes into x265's SEI (libavcodec 5.1's wrapper does not pass frame side data on).
            var params = ["log-level=error"]
            // libavcodec 5.1's x265 wrapper does not pass the initial occupancy on (x264's reads the context's).
            if let fill = vbvInitialFill, settings.maxBitrate != nil { params.append(String(format: "vbv-init=%.3f", fill)) }
            if let out = outputColor, out.isHDR {
                if let master = out.mastering?.x265Value { params.append("master-display=\(master)") }
                if let light = out.contentLight { params.append("max-cll=\(light.maxCLL),\(light.maxFALL)") }
            }
            // libavcodec 5.1's x265 wrapper ignores the pass flags: x265 is told itself (its own `--pass`/`--stats`).
            switch pass {
            case .first(let log): params += ["pass=1", "stats=\(log)"]
            case .second(let log): params += ["pass=2", "stats=\(log)"]
            case nil: break
            }
            // x265's frame threads make its rate control depend on timing: a starved process (a busy machine, a
            // batch's parallel jobs) gave 3 other bitstreams in 24 runs. One frame at a time, its rows in parallel
            // (wavefront): the same bytes every run, the same CPU time (measured: docs/reproducible-outputs.md).
            params.append("frame-threads=1")
            // Its SIMD kernels decide differently from level to level (AVX2 and SSE4.2 give other bitstreams):
            // x86-64-v2's everywhere (SSE2 alone would leave most of x265 in C: 3.5 times the CPU time, measured),
            // and its pool sized by the thread count instead of the cores.
            if codecs.deterministic, let threads = codecs.threads { params += ["asm=sse4.2", "pools=\(threads)"] }
            options.append(EncoderOption(key: "x265-params", value: params.joined(separator: ":"), field: "video.codec"))
            return options
        }
        // x264's own promise of the same bitstream on every CPU (some of its SIMD takes other decisions than its C) —
        // and, on one CPU, from run to run: without it, its macroblock-tree propagation (the SIMD kind) reads heap
        // memory it never wrote, so the same clip gives other bytes as the process's heap differs (a second export
        // in one process; any `MALLOC_PERTURB_`: measured with the ffmpeg CLI too, `-threads 1`; `mbtree=0` or this
        // option cure it). Always on, so every export is the same bytes every time.
        options.append(EncoderOption(key: "x264-params", value: "cpu-independent=1", field: codecs.deterministic ? "deterministic" : "reproducible"))
        if let pass {
            // x264's statistics file (`x264_2pass.log` in the working folder unless told), as ffmpeg's `-passlogfile`.
            switch pass {
            case .first(let log), .second(let log): options.append(EncoderOption(key: "stats", value: log, field: "video.twoPass"))
            }
        }
        return options
    }

    /// SVT-AV1's own parameters (`svtav1-params`): the HDR10 metadata kept (libavcodec 5.1's wrapper passes the colour
    /// description but no side data; SVT writes them as AV1 metadata OBUs), and under `--deterministic` its SIMD
    /// level pinned like x265's (SVT picks it from CPUID: AVX2 and AVX-512 machines would take other paths).
    private func svtAV1Options(codecs: CodecRun) -> [EncoderOption] {
        var params: [String] = []
        if let out = outputColor, out.isHDR {
            if let master = out.mastering?.svtAV1Value { params.append("mastering-display=\(master)") }
            if let light = out.contentLight { params.append("content-light=\(light.maxCLL),\(light.maxFALL)") }
        }
        if codecs.deterministic { params.append("asm=sse4_2") }
        return params.isEmpty ? [] : [EncoderOption(key: "svtav1-params", value: params.joined(separator: ":"), field: "video.codec")]
    }
}
