internal import CFFmpeg
import Foundation
import MediaExportCore

/// The output timeline: input time `origin` becomes output time 0; output time `length` (if any) ends it.
struct Timeline {
    /// Input seconds (container clock) that map to output time 0.
    var origin: Double
    /// Output seconds to stop at; `nil` runs to the end.
    var length: Double?

    func origin(in tb: AVRational) -> Int64 { Timeline.timestamp(origin, in: tb) }

    /// The end (`length`) in a stream's time base, if there is one.
    func end(in tb: AVRational) -> Int64? { length.map { Timeline.timestamp($0, in: tb) } }

    /// Seconds as a timestamp in `tb` (through AV_TIME_BASE, as libavformat rounds).
    static func timestamp(_ seconds: Double, in tb: AVRational) -> Int64 {
        av_rescale_q(Int64((seconds * Double(AV_TIME_BASE)).rounded()), cff_time_base_q(), tb)
    }
}

/// Counters the routes share with the transcoder's progress reporting.
final class PipelineStats {
    /// Furthest output time written, in seconds.
    var outputTime: Double = 0
    /// Video frames sent to an encoder.
    var videoFrames: Int = 0
    /// Corrupt packets the decoders rejected and the pipeline skipped, plus frames decoders flagged corrupt.
    var skippedPackets: Int = 0
    /// Decode under the strict error policy.
    var strict = false

    /// Counts a decoded frame the decoder marked as damaged (concealed errors).
    func inspect(_ frame: Frame) {
        if (frame.pointer.pointee.flags & AV_FRAME_FLAG_CORRUPT) != 0 || frame.pointer.pointee.decode_error_flags != 0 {
            skippedPackets += 1
        }
    }
}

/// One input stream's way from demuxer to muxer.
protocol StreamRoute: AnyObject {
    /// Input stream index.
    var inputIndex: Int32 { get }
    /// True once the route has everything it needs (trim end reached).
    var isDone: Bool { get }
    /// Takes one demuxed packet of its stream.
    func send(_ packet: Packet) throws
    /// End of input: drains the decoder, filters and encoder.
    func flush() throws
}

/// Encoded packets → muxer, with timestamps moved to the output stream's time base.
private func writeEncoded(_ encoder: StreamEncoder, _ stream: UnsafeMutablePointer<AVStream>, _ muxer: Muxer, _ packet: Packet,
                          _ stats: PipelineStats, defaultDuration: Int64) throws {
    while case .packet = try encoder.receive(into: packet) {
        let p = packet.pointer
        p.pointee.stream_index = stream.pointee.index
        if p.pointee.duration <= 0 { p.pointee.duration = defaultDuration }
        av_packet_rescale_ts(p, encoder.context.pointee.time_base, stream.pointee.time_base)
        if p.pointee.pts != AVCode.noPTS {
            let end = Double(p.pointee.pts + p.pointee.duration) * av_q2d(stream.pointee.time_base)
            stats.outputTime = max(stats.outputTime, end)
        }
        try muxer.write(packet)
        packet.unref()
    }
}

/// Sends a packet to a decoder, skipping packets it rejects as corrupt (as the ffmpeg CLI does) and counting them.
private func decode(_ decoder: StreamDecoder, _ packet: Packet?, _ stats: PipelineStats) throws {
    do { try decoder.send(packet) } catch let ExportError.ffmpeg(_, _, code, _) where code == AVCode.invalidData {
        stats.skippedPackets += 1
    }
}

/// Receives a frame; a decoder that reports corrupt data while draining counts it and goes on.
private func receiveFrame(_ decoder: StreamDecoder, _ frame: Frame, _ stats: PipelineStats) throws -> StreamDecoder.Output {
    do { return try decoder.receive(into: frame) } catch let ExportError.ffmpeg(_, _, code, _) where code == AVCode.invalidData {
        stats.skippedPackets += 1
        return .needsInput
    }
}

/// demux → decode → scale/convert → encode → mux, for the main video stream.
final class VideoTranscodeRoute: StreamRoute {
    let inputIndex: Int32
    private(set) var isDone = false
    private let decoder: StreamDecoder
    private let scaler: VideoScaler
    let encoder: StreamEncoder
    private let outStream: UnsafeMutablePointer<AVStream>
    private let muxer: Muxer
    private let timeline: Timeline
    private let stats: PipelineStats
    private let frame = Frame()
    private let outPacket = Packet()
    private let inTimeBase: AVRational
    private let originTS: Int64
    private let endTS: Int64?
    private let frameDuration: Int64
    private var lastPTS: Int64 = Int64.min
    private let crop: PixelRect?

    init(input stream: UnsafeMutablePointer<AVStream>, plan: VideoPlan, muxer: Muxer, timeline: Timeline, stats: PipelineStats, path: String) throws {
        inputIndex = stream.pointee.index
        crop = plan.crop
        let width = Int32(plan.width), height = Int32(plan.height), settings = plan.settings
        decoder = try StreamDecoder(stream: stream, path: path, strict: stats.strict)
        self.muxer = muxer; self.timeline = timeline; self.stats = stats
        inTimeBase = stream.pointee.time_base
        originTS = timeline.origin(in: inTimeBase)
        endTS = timeline.end(in: stream.pointee.time_base)

        let pixFmt = av_get_pix_fmt(settings.pixelFormat)
        scaler = VideoScaler(width: width, height: height, format: pixFmt, path: path)
        encoder = try StreamEncoder(encoderName: settings.codec.encoderName, path: muxer.path)
        let enc = encoder.context
        let par = stream.pointee.codecpar.pointee
        var rate = av_guess_frame_rate(nil, stream, nil)
        if rate.num <= 0 || rate.den <= 0 { rate = AVRational(num: 30, den: 1) }
        enc.pointee.width = width
        enc.pointee.height = height
        enc.pointee.pix_fmt = pixFmt
        enc.pointee.sample_aspect_ratio = AVRational(num: 1, den: 1)
        // The input's own time base keeps variable-frame-rate timestamps exact.
        enc.pointee.time_base = inTimeBase
        enc.pointee.framerate = rate
        enc.pointee.color_range = par.color_range
        enc.pointee.color_primaries = par.color_primaries
        enc.pointee.color_trc = par.color_trc
        enc.pointee.colorspace = par.color_space
        enc.pointee.chroma_sample_location = par.chroma_location
        enc.pointee.thread_count = 0  // as the ffmpeg CLI: threads=auto
        if muxer.needsGlobalHeader { enc.pointee.flags |= cff_codec_flag_global_header() }
        var options = ["preset": settings.encoderPreset, "crf": String(settings.crf)]
        if settings.codec == .hevc { options["x265-params"] = "log-level=error" }
        try encoder.open(options: options)
        frameDuration = max(1, av_rescale_q(1, av_inv_q(rate), inTimeBase))

        outStream = try muxer.addStream()
        try check(avcodec_parameters_from_context(outStream.pointee.codecpar, enc), .mux, muxer.path, "stream parameters")
        if settings.codec == .hevc && muxer.container.isQuickTimeFamily {
            outStream.pointee.codecpar.pointee.codec_tag = cff_mktag(0x68, 0x76, 0x63, 0x31)  // 'hvc1' for Apple players
        }
        outStream.pointee.time_base = enc.pointee.time_base
        outStream.pointee.avg_frame_rate = rate
        copyStreamInfo(from: stream, to: outStream, displayMatrix: plan.displayMatrix ?? sourceMatrix(stream))
    }

    func send(_ packet: Packet) throws {
        guard !isDone else { return }
        try decode(decoder, packet, stats)
        try drainDecoder()
    }

    func flush() throws {
        if !isDone {
            try decode(decoder, nil, stats)
            try drainDecoder()
        }
        try encoder.send(nil)
        try writeEncoded(encoder, outStream, muxer, outPacket, stats, defaultDuration: frameDuration)
    }

    private func receive() throws -> StreamDecoder.Output { try receiveFrame(decoder, frame, stats) }

    private func drainDecoder() throws {
        while !isDone, case .frame = try receive() {
            stats.inspect(frame)
            try encode(frame)
            frame.unref()
        }
    }

    private func encode(_ frame: Frame) throws {
        let f = frame.pointer
        var ts = f.pointee.best_effort_timestamp
        if ts == AVCode.noPTS { ts = lastPTS == Int64.min ? originTS : lastPTS + frameDuration }
        let outTS = ts - originTS
        if outTS < 0 { return }  // before the trim start
        if let endTS, outTS >= endTS { isDone = true; return }
        if ts <= lastPTS { return }  // duplicate or backwards timestamp: the muxer would reject it
        lastPTS = ts
        if let crop { try applyCrop(crop, to: frame) }
        let converted = try scaler.convert(frame)
        converted.pointer.pointee.pts = outTS
        converted.pointer.pointee.pict_type = AV_PICTURE_TYPE_NONE  // let the encoder choose; never force keyframes
        try encoder.send(converted)
        stats.videoFrames += 1
        try writeEncoded(encoder, outStream, muxer, outPacket, stats, defaultDuration: frameDuration)
    }
}

extension VideoTranscodeRoute {
    /// Crops the decoded picture in place (moves the plane pointers; no copy).
    private func applyCrop(_ rect: PixelRect, to frame: Frame) throws {
        let f = frame.pointer
        let w = Int(f.pointee.width), h = Int(f.pointee.height)
        let left = min(max(0, rect.left), w - 2), top = min(max(0, rect.top), h - 2)
        let width = min(rect.width, w - left), height = min(rect.height, h - top)
        f.pointee.crop_left = left
        f.pointee.crop_top = top
        f.pointee.crop_right = w - left - width
        f.pointee.crop_bottom = h - top - height
        try check(av_frame_apply_cropping(f, Int32(AV_FRAME_CROP_UNALIGNED)), .filter, muxer.path, "cropping")
    }
}

/// demux → decode → resample (+ FIFO) → encode → mux, for one audio stream.
final class AudioTranscodeRoute: StreamRoute {
    let inputIndex: Int32
    var isDone: Bool { resampler.isFinished }
    private let decoder: StreamDecoder
    private let resampler: AudioResampler
    private let encoder: StreamEncoder
    private let outStream: UnsafeMutablePointer<AVStream>
    private let muxer: Muxer
    private let timeline: Timeline
    private let stats: PipelineStats
    private let frame = Frame()
    private let outPacket = Packet()
    private let inTimeBase: AVRational
    private let gain: Float

    init(input stream: UnsafeMutablePointer<AVStream>, plan: AudioPlan, muxer: Muxer, timeline: Timeline, stats: PipelineStats, path: String) throws {
        inputIndex = stream.pointee.index
        self.gain = Float(plan.gain)
        let channels = Int32(plan.channels), settings = plan.settings
        decoder = try StreamDecoder(stream: stream, path: path, strict: stats.strict)
        self.muxer = muxer; self.timeline = timeline; self.stats = stats
        inTimeBase = stream.pointee.time_base
        encoder = try StreamEncoder(encoderName: "aac", path: muxer.path)
        let enc = encoder.context
        enc.pointee.sample_fmt = AV_SAMPLE_FMT_FLTP
        enc.pointee.sample_rate = Int32(settings.sampleRate)
        cff_default_layout(&enc.pointee.ch_layout, channels)
        enc.pointee.bit_rate = Int64(settings.bitrate)
        enc.pointee.time_base = AVRational(num: 1, den: Int32(settings.sampleRate))
        enc.pointee.thread_count = 0
        if muxer.needsGlobalHeader { enc.pointee.flags |= cff_codec_flag_global_header() }
        try encoder.open(options: [:])
        resampler = try AudioResampler(encoder: enc, startSeconds: 0, endSeconds: timeline.length, path: path)

        outStream = try muxer.addStream()
        try check(avcodec_parameters_from_context(outStream.pointee.codecpar, enc), .mux, muxer.path, "stream parameters")
        outStream.pointee.time_base = enc.pointee.time_base
        copyStreamInfo(from: stream, to: outStream, displayMatrix: nil)
    }

    func send(_ packet: Packet) throws {
        guard !isDone else { return }
        try decode(decoder, packet, stats)
        try drainDecoder()
        try encodeAvailable(flushing: false)
    }

    func flush() throws {
        if !isDone {
            try decode(decoder, nil, stats)
            try drainDecoder()
            try resampler.drain()
            try encodeAvailable(flushing: true)
        }
        try encoder.send(nil)
        try writeEncoded(encoder, outStream, muxer, outPacket, stats, defaultDuration: 0)
    }

    private func receive() throws -> StreamDecoder.Output { try receiveFrame(decoder, frame, stats) }

    private func drainDecoder() throws {
        while case .frame = try receive() {
            stats.inspect(frame)
            var ts = frame.pointer.pointee.best_effort_timestamp
            if ts == AVCode.noPTS { ts = frame.pointer.pointee.pts }
            let start = ts == AVCode.noPTS ? 0 : Double(ts) * av_q2d(inTimeBase) - timeline.origin
            try resampler.push(frame, startTime: start)
            frame.unref()
        }
    }

    private func encodeAvailable(flushing: Bool) throws {
        while let f = try resampler.pull(flushing: flushing) {
            if gain != 1 { applyGain(f) }
            try encoder.send(f)
            try writeEncoded(encoder, outStream, muxer, outPacket, stats, defaultDuration: 0)
        }
    }
}

extension AudioTranscodeRoute {
    /// Scales planar float samples (the AAC encoder's format) by the edit's linear gain, clipping to ±1.
    private func applyGain(_ frame: Frame) {
        let f = frame.pointer
        let count = Int(f.pointee.nb_samples)
        for ch in 0..<Int(f.pointee.ch_layout.nb_channels) {
            guard let raw = f.pointee.extended_data[ch] else { continue }
            let samples = UnsafeMutableRawPointer(raw).assumingMemoryBound(to: Float.self)
            for i in 0..<count { samples[i] = min(1, max(-1, samples[i] * gain)) }
        }
    }
}

/// The bypass: demux → mux with no decoding (passthrough, or subtitles the container can hold).
final class StreamCopyRoute: StreamRoute {
    let inputIndex: Int32
    private(set) var isDone = false
    private let outStream: UnsafeMutablePointer<AVStream>
    private let muxer: Muxer
    private let stats: PipelineStats
    private let inTimeBase: AVRational
    private let originTS: Int64
    private let endTS: Int64?
    private var lastDTS: Int64 = Int64.min
    /// Cutting at a start point: packets wholly before it are dropped (untrimmed, negative-time priming is kept).
    private let trimmed: Bool

    init(input stream: UnsafeMutablePointer<AVStream>, displayMatrix: [Int32]?, muxer: Muxer, timeline: Timeline, trimmed: Bool,
         stats: PipelineStats) throws {
        self.trimmed = trimmed
        inputIndex = stream.pointee.index
        self.muxer = muxer; self.stats = stats
        inTimeBase = stream.pointee.time_base
        originTS = timeline.origin(in: inTimeBase)
        endTS = timeline.end(in: stream.pointee.time_base)
        outStream = try muxer.addStream()
        try check(avcodec_parameters_copy(outStream.pointee.codecpar, stream.pointee.codecpar), .mux, muxer.path, "copying stream parameters")
        // Let the muxer pick its own tag for the codec (e.g. a .mov tag that is not valid in .mp4).
        if !(stream.pointee.codecpar.pointee.codec_id == AV_CODEC_ID_HEVC && muxer.container.isQuickTimeFamily) {
            outStream.pointee.codecpar.pointee.codec_tag = 0
        }
        outStream.pointee.time_base = inTimeBase
        outStream.pointee.avg_frame_rate = stream.pointee.avg_frame_rate
        outStream.pointee.r_frame_rate = stream.pointee.r_frame_rate
        copyStreamInfo(from: stream, to: outStream, displayMatrix: displayMatrix ?? sourceMatrix(stream))
    }

    func send(_ packet: Packet) throws {
        guard !isDone else { return }
        let p = packet.pointer
        let dts = p.pointee.dts != AVCode.noPTS ? p.pointee.dts : p.pointee.pts
        if dts != AVCode.noPTS {
            if let endTS, dts - originTS >= endTS { isDone = true; return }
            if trimmed && p.pointee.pts != AVCode.noPTS && p.pointee.pts + max(p.pointee.duration, 1) <= originTS {
                return  // wholly before the cut point
            }
            if dts <= lastDTS { return }  // non-monotonic: the muxer would reject it
            lastDTS = dts
        }
        if p.pointee.pts != AVCode.noPTS { p.pointee.pts -= originTS }
        if p.pointee.dts != AVCode.noPTS { p.pointee.dts -= originTS }
        p.pointee.stream_index = outStream.pointee.index
        p.pointee.pos = -1
        av_packet_rescale_ts(p, inTimeBase, outStream.pointee.time_base)
        if p.pointee.pts != AVCode.noPTS {
            stats.outputTime = max(stats.outputTime, Double(p.pointee.pts + p.pointee.duration) * av_q2d(outStream.pointee.time_base))
        }
        try muxer.write(packet)
    }

    func flush() throws {}
}

/// Carries over what belongs to a stream beyond its codec: language and other tags, disposition, and the
/// display matrix (rotation). The matrix is kept rather than rotating pixels — never both.
private func copyStreamInfo(from input: UnsafeMutablePointer<AVStream>, to output: UnsafeMutablePointer<AVStream>, displayMatrix: [Int32]?) {
    av_dict_copy(&output.pointee.metadata, input.pointee.metadata, 0)
    av_dict_set(&output.pointee.metadata, "encoder", nil, 0)
    av_dict_set(&output.pointee.metadata, "rotate", nil, 0)
    output.pointee.disposition = input.pointee.disposition
    if let displayMatrix, displayMatrix.count == 9,
       let dst = av_stream_new_side_data(output, AV_PKT_DATA_DISPLAYMATRIX, 36) {
        dst.withMemoryRebound(to: Int32.self, capacity: 9) { p in
            for i in 0..<9 { p[i] = displayMatrix[i] }
        }
    }
}

/// The source stream's display matrix, if it has one.
func sourceMatrix(_ stream: UnsafeMutablePointer<AVStream>) -> [Int32]? {
    var size: Int = 0
    guard let data = av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, &size), size >= 36 else { return nil }
    return data.withMemoryRebound(to: Int32.self, capacity: 9) { Array(UnsafeBufferPointer(start: $0, count: 9)) }
}
