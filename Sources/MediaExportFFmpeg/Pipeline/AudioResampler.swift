internal import CFFmpeg
import MediaExportCore

/// Stage 3 (audio): resamples decoded audio to the encoder's rate, layout and sample format with swresample,
/// and cuts it into frames of exactly the encoder's frame size through an `AVAudioFifo`.
///
/// Timestamps come from a running sample count (like the ffmpeg CLI without `async`), anchored at the first
/// kept sample, so audio stays continuous and starts with the video: a frame whose timestamp repeats, goes back
/// or jumps ahead is placed right after the previous one all the same (no sample is dropped, no gap opened),
/// and `push` says so, to be counted as a timestamp repair. Differences up to `tolerance` are jitter (rounded
/// container timestamps), not repairs.
final class AudioResampler {
    private var swr: OpaquePointer?
    private let fifo: OpaquePointer
    private let outRate: Int32
    private let outFormat: AVSampleFormat
    private var outLayout = AVChannelLayout()
    private let frameSize: Int32
    private let path: String
    private let converted = Frame()
    private var inputSignature: (Int32, Int32, UInt64, Int32)?
    /// Output-rate sample index (on the output timeline) of the FIFO's first sample; nil until audio arrives.
    private var fifoHeadSample: Int64?
    /// Output samples before this index are dropped (trim start); samples at or after `endSample` too.
    private let startSample: Int64
    private let endSample: Int64?
    private var finished = false
    /// Where the next frame starts on the continuous timeline (seconds, output timeline): the first frame's
    /// timestamp plus the duration of all audio pushed since.
    private var continuousNext: Double?
    /// How far the timestamps are from the continuous timeline since the latest repair (seconds).
    private var acceptedDrift = 0.0
    /// A larger change of that distance is a discontinuity (as `aresample`'s `min_hard_comp`): one repair each
    /// time, whether the timestamps jump at once or slide (a run of repeated timestamps).
    static let tolerance = 0.1
    /// True once the trim end has been reached.
    var isFinished: Bool { finished }

    init(encoder: UnsafeMutablePointer<AVCodecContext>, startSeconds: Double, endSeconds: Double?, path: String) throws {
        self.path = path
        outRate = encoder.pointee.sample_rate
        outFormat = encoder.pointee.sample_fmt
        av_channel_layout_copy(&outLayout, &encoder.pointee.ch_layout)
        let caps = encoder.pointee.codec.pointee.capabilities
        frameSize = (caps & Int32(AV_CODEC_CAP_VARIABLE_FRAME_SIZE)) != 0 || encoder.pointee.frame_size == 0 ? 1024 : encoder.pointee.frame_size
        startSample = 0
        let rate = Double(encoder.pointee.sample_rate)
        endSample = endSeconds.map { Int64((($0 - startSeconds) * rate).rounded()) }
        guard let f = av_audio_fifo_alloc(outFormat, outLayout.nb_channels, frameSize * 4) else { fatalError("av_audio_fifo_alloc: out of memory") }
        fifo = f
    }

    deinit {
        swr_free(&swr)
        av_audio_fifo_free(fifo)
        av_channel_layout_uninit(&outLayout)
    }

    /// Adds a decoded frame whose first sample sits at `startTime` seconds on the output timeline (`nil`: the
    /// frame has no timestamp and simply follows). True when the timestamps moved away from the continuous
    /// timeline by more than `tolerance` since the latest repair: the frame follows the previous one all the
    /// same (a repaired timestamp).
    @discardableResult
    func push(_ frame: Frame, startTime: Double?) throws -> Bool {
        if finished { return false }
        let f = frame.pointer
        var repaired = false
        let stamped: Double
        if let next = continuousNext {
            stamped = startTime ?? next + acceptedDrift
            let drift = stamped - next
            if abs(drift - acceptedDrift) > AudioResampler.tolerance {
                repaired = true
                acceptedDrift = drift
            }
        } else {
            stamped = startTime ?? 0
            continuousNext = stamped
        }
        if f.pointee.sample_rate > 0 { continuousNext! += Double(f.pointee.nb_samples) / Double(f.pointee.sample_rate) }
        let signature = (f.pointee.sample_rate, f.pointee.format, f.pointee.ch_layout.u.mask, f.pointee.ch_layout.nb_channels)
        if inputSignature == nil || inputSignature! != signature {
            swr_free(&swr)
            var inLayout = AVChannelLayout()
            defer { av_channel_layout_uninit(&inLayout) }
            if f.pointee.ch_layout.order == AV_CHANNEL_ORDER_UNSPEC || f.pointee.ch_layout.nb_channels == 0 {
                cff_default_layout(&inLayout, max(f.pointee.ch_layout.nb_channels, 1))
            } else {
                av_channel_layout_copy(&inLayout, &f.pointee.ch_layout)
            }
            try check(swr_alloc_set_opts2(&swr, &outLayout, outFormat, outRate,
                                          &inLayout, AVSampleFormat(rawValue: f.pointee.format), f.pointee.sample_rate, 0, nil),
                      .filter, path, "configuring the audio resampler")
            try check(swr_init(swr), .filter, path, "opening the audio resampler")
            inputSignature = signature
        }
        if fifoHeadSample == nil {
            fifoHeadSample = Int64((stamped * Double(outRate)).rounded())
        }
        let maxOut = swr_get_out_samples(swr, f.pointee.nb_samples)
        try convert(input: f, maxOut: maxOut)
        return repaired
    }

    /// Flushes the resampler's delay into the FIFO at end of stream.
    func drain() throws {
        guard swr != nil, !finished else { return }
        let maxOut = swr_get_out_samples(swr, 0)
        if maxOut > 0 { try convert(input: nil, maxOut: maxOut) }
    }

    private func convert(input: UnsafeMutablePointer<AVFrame>?, maxOut: Int32) throws {
        guard maxOut > 0 else { return }
        let out = converted.pointer
        av_frame_unref(out)
        out.pointee.nb_samples = maxOut
        out.pointee.format = outFormat.rawValue
        out.pointee.sample_rate = outRate
        try check(av_channel_layout_copy(&out.pointee.ch_layout, &outLayout), .filter, path, "channel layout")
        try check(av_frame_get_buffer(out, 0), .filter, path, "allocating audio buffer")
        let inData: UnsafeMutablePointer<UnsafePointer<UInt8>?>? = input.map {
            UnsafeMutableRawPointer(planes($0)).assumingMemoryBound(to: UnsafePointer<UInt8>?.self)
        }
        let n = swr_convert(swr, planes(out), maxOut, inData, input?.pointee.nb_samples ?? 0)
        try check(n, .filter, path, "resampling audio")
        guard n > 0 else { return }
        let written = av_audio_fifo_write(fifo, UnsafeMutableRawPointer(planes(out)).assumingMemoryBound(to: UnsafeMutableRawPointer?.self), n)
        if written < n { throw ExportError.ffmpeg(stage: .filter, path: path, code: written, message: "audio FIFO write failed") }
        try dropBeforeStart()
    }

    /// Drops samples that lie before the trim start.
    private func dropBeforeStart() throws {
        guard var head = fifoHeadSample, head < startSample else { return }
        let drop = Int32(min(Int64(av_audio_fifo_size(fifo)), startSample - head))
        if drop > 0 {
            av_audio_fifo_drain(fifo, drop)
            head += Int64(drop)
            fifoHeadSample = head
        }
    }

    /// Pops the next encoder-sized frame, or a shorter last one when `flushing`. `nil` when there is not enough audio.
    func pull(flushing: Bool) throws -> Frame? {
        guard var head = fifoHeadSample, !finished else { return nil }
        var available = av_audio_fifo_size(fifo)
        if let end = endSample {
            let left = end - head
            if left <= 0 { finished = true; return nil }
            if Int64(available) >= left { available = Int32(left) }
        }
        let atEnd = flushing || (endSample.map { head + Int64(available) >= $0 } ?? false)
        let count: Int32 = available >= frameSize ? frameSize : (atEnd ? available : 0)
        guard count > 0 else { return nil }
        let frame = Frame()
        let f = frame.pointer
        f.pointee.nb_samples = count
        f.pointee.format = outFormat.rawValue
        f.pointee.sample_rate = outRate
        try check(av_channel_layout_copy(&f.pointee.ch_layout, &outLayout), .filter, path, "channel layout")
        try check(av_frame_get_buffer(f, 0), .filter, path, "allocating audio frame")
        let read = av_audio_fifo_read(fifo, UnsafeMutableRawPointer(planes(f)).assumingMemoryBound(to: UnsafeMutableRawPointer?.self), count)
        if read < count { throw ExportError.ffmpeg(stage: .filter, path: path, code: read, message: "audio FIFO read failed") }
        f.pointee.pts = head
        head += Int64(count)
        fifoHeadSample = head
        return frame
    }
}
