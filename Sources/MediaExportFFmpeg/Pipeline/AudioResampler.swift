internal import CFFmpeg
import MediaExportCore

/// Stage 3 (audio): resamples decoded audio to the encoder's rate, layout and sample format with swresample,
/// and cuts it into frames of exactly the encoder's frame size through an `AVAudioFifo`.
///
/// Timestamps come from a running sample count anchored at the first kept sample, and the audio stays where its
/// own timestamps put it (as `aresample=async=1` keeps it, by hard compensation only): a frame that starts more
/// than `tolerance` after the audio before it ends (packets missing: a lost cluster, zeroed bytes, a jump ahead)
/// gets silence in front of it; one that starts more than that before (timestamps going back over audio already
/// placed) loses its overlapping samples. Each break is kept in `gaps`, for the warnings. Smaller differences
/// are jitter (rounded container timestamps, a lost frame or two): the frame follows the previous one.
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
    /// Where the next frame starts (seconds, output timeline): the first frame's timestamp plus the duration of
    /// all audio (and silence) placed since.
    private var continuousNext: Double?
    /// A frame further than this from where the audio before it ends is a break, bridged (`aresample`'s
    /// `min_hard_comp`, there 0.1 s). 40 ms: the most audio may lead its pictures unnoticed (EBU R37: +40 ms,
    /// ITU-R BT.1359 detects +45 ms), so an unbridged difference never shows; yet more than any one codec
    /// frame (AAC 21-23 ms, MP3 24-26 ms, AC-3 32 ms, Opus 20 ms), so one lost packet is not bridged and container
    /// rounding (1 ms in Matroska) never is. Differences below it add up until they pass it.
    static let tolerance = 0.04
    /// The breaks bridged so far, in order (stream 0: the stage names its stream).
    private(set) var gaps: [AudioGap] = []
    /// Silence still owed before `waiting` (samples at its rate), made a second at a time as the FIFO empties: a
    /// long gap is never in memory whole (an hour of stereo float would be 1.4 GB).
    private var owedSilence: Int64 = 0
    /// The frame after a gap, converted once the silence before it is made.
    private var waiting: Frame?
    /// True once the trim end has been reached.
    var isFinished: Bool { finished }

    init(encoder: UnsafeMutablePointer<AVCodecContext>, startSeconds: Double, endSeconds: Double?, path: String) throws {
        self.path = path
        outRate = encoder.pointee.sample_rate
        outFormat = encoder.pointee.sample_fmt
        let caps = encoder.pointee.codec.pointee.capabilities
        frameSize = (caps & Int32(AV_CODEC_CAP_VARIABLE_FRAME_SIZE)) != 0 || encoder.pointee.frame_size <= 0 ? 1024 : encoder.pointee.frame_size
        startSample = 0
        endSample = endSeconds.map { Self.sampleIndex($0 - startSeconds, rate: Double(encoder.pointee.sample_rate)) }
        // Four frames is where the FIFO starts (it grows as needed); the size is the encoder's, not a constant.
        let (capacity, overflow) = frameSize.multipliedReportingOverflow(by: 4)
        guard !overflow, let f = av_audio_fifo_alloc(outFormat, encoder.pointee.ch_layout.nb_channels, capacity) else {
            throw ExportError.ffmpeg(stage: .filter, path: path, code: cff_averror(ENOMEM), message: "no audio FIFO of 4 frames of \(frameSize) samples")
        }
        fifo = f
        av_channel_layout_copy(&outLayout, &encoder.pointee.ch_layout)
    }

    /// The sample index of `seconds` at `rate`, within ±2⁵³ (6 000 years at 48 kHz) so that sums and differences
    /// of indices never overflow; NaN gives 0. Timestamps come from the file and may be anything.
    static func sampleIndex(_ seconds: Double, rate: Double) -> Int64 {
        Int64(saturating: min(max((seconds * rate).rounded(), -0x1p53), 0x1p53))
    }

    deinit {
        swr_free(&swr)
        av_audio_fifo_free(fifo)
        av_channel_layout_uninit(&outLayout)
    }

    /// Adds a decoded frame whose first sample sits at `startTime` seconds on the output timeline (`nil`: the
    /// frame has no timestamp and simply follows). True when that was a break, bridged with silence in front of
    /// the frame or by dropping its overlapping samples (recorded in `gaps`).
    @discardableResult
    func push(_ frame: Frame, startTime: Double?) throws -> Bool {
        if finished { return false }
        while try makeOwed() {}
        let f = frame.pointer
        try configure(for: f)
        let stamped = startTime ?? continuousNext ?? 0
        if continuousNext == nil {
            continuousNext = stamped
            fifoHeadSample = Self.sampleIndex(stamped, rate: Double(outRate))
        }
        let gapsBefore = gaps.count
        let skip = bridge(to: stamped, like: frame)
        let count = f.pointee.nb_samples - skip
        if count > 0 {
            let input = skip > 0 ? try AudioTempo.slice(frame, from: skip, count: count, path: path) : frame
            if f.pointee.sample_rate > 0 { continuousNext = (continuousNext ?? stamped) + Double(count) / Double(f.pointee.sample_rate) }
            if owedSilence > 0 {
                let held = Frame()
                try check(av_frame_ref(held.pointer, input.pointer), .filter, path, "holding audio after a gap")
                waiting = held
            } else {
                try convert(input: input.pointer, maxOut: swr_get_out_samples(swr, count))
            }
        }
        return gaps.count > gapsBefore || skip > 0
    }

    /// (Re)opens swresample when the frame's rate, format or layout is not the one it was opened for.
    private func configure(for f: UnsafeMutablePointer<AVFrame>) throws {
        let signature = (f.pointee.sample_rate, f.pointee.format, f.pointee.ch_layout.u.mask, f.pointee.ch_layout.nb_channels)
        if let current = inputSignature, current == signature { return }
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

    /// Bridges a break before a frame stamped `stamped`: silence owed (made through swresample, so it lands after
    /// what the resampler still holds) when the frame starts more than `tolerance` later than the audio before it
    /// ends; when it starts that much earlier, how many of its first samples to drop (all of them when it lies
    /// wholly under audio already placed). Silence past the trim end is not owed.
    private func bridge(to stamped: Double, like frame: Frame) -> Int32 {
        let next = continuousNext ?? stamped
        let drift = stamped - next
        let rate = Double(frame.pointer.pointee.sample_rate)
        guard abs(drift) > Self.tolerance, rate > 0 else { return 0 }
        // Past the trim end nothing is placed: no break to bridge or name.
        if let end = endSample, next * Double(outRate) >= Double(end) { return 0 }
        if drift < 0 {
            let drop = Int32(min(Double(frame.pointer.pointee.nb_samples), (-drift * rate).rounded()))  // in 0...nb_samples: drift < -tolerance, rate > 0
            note(at: next, seconds: -Double(drop) / rate)
            return drop
        }
        // No gap is longer than ffmpeg's `-dts_error_threshold` (the demuxer's repair offsets such jumps before).
        let room = min(endSample.map { Double($0) / Double(outRate) - next } ?? drift, TimestampRepair.errorThreshold)
        let silence = Int64((min(drift, max(0, room)) * rate).rounded())  // at most errorThreshold s: drift is not NaN, max(0, NaN) is 0
        guard silence > 0 else { return 0 }
        note(at: next, seconds: Double(silence) / rate)
        continuousNext = next + Double(silence) / rate
        owedSilence = silence
        return 0
    }

    /// Makes up to a second of the silence owed before `waiting`, or, when none is left, converts `waiting`; false
    /// when nothing is owed.
    private func makeOwed() throws -> Bool {
        guard let frame = waiting else { return false }
        if owedSilence > 0 {
            let n = Int32(min(owedSilence, Int64(max(1, frame.pointer.pointee.sample_rate))))
            let pad = try AudioTempo.silence(like: frame, count: n, path: path)
            try convert(input: pad.pointer, maxOut: swr_get_out_samples(swr, n))
            owedSilence -= Int64(n)
        } else {
            waiting = nil
            try convert(input: frame.pointer, maxOut: swr_get_out_samples(swr, frame.pointer.pointee.nb_samples))
        }
        return true
    }

    /// Records a break at `at` (output seconds); a drop that goes on where the previous one stopped (a frame
    /// wholly overlapped, then the next) is one break. What lies before the output's start is not in it.
    private func note(at: Double, seconds: Double) {
        if seconds < 0, let last = gaps.last, last.seconds < 0, last.at == max(0, at) {
            gaps[gaps.count - 1].seconds += seconds
            return
        }
        let hidden = max(0, -at)
        guard abs(seconds) > hidden else { return }
        gaps.append(AudioGap(stream: 0, at: max(0, at), seconds: seconds > 0 ? seconds - hidden : seconds + hidden))
    }

    /// Flushes the resampler's delay into the FIFO at end of stream.
    func drain() throws {
        guard swr != nil, !finished else { return }
        while try makeOwed() {}
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
        let drop = Int32(min(Int64(av_audio_fifo_size(fifo)), startSample - head))  // indices within ±2⁵³ (sampleIndex)
        if drop > 0 {
            av_audio_fifo_drain(fifo, drop)
            head += Int64(drop)
            fifoHeadSample = head
        }
    }

    /// Pops the next encoder-sized frame, or a shorter last one when `flushing`. `nil` when there is not enough audio.
    func pull(flushing: Bool) throws -> Frame? {
        guard fifoHeadSample != nil, !finished else { return nil }
        while av_audio_fifo_size(fifo) < frameSize, try makeOwed() {}
        guard var head = fifoHeadSample else { return nil }
        var available = av_audio_fifo_size(fifo)
        if let end = endSample {
            let left = end - head
            if left <= 0 { finished = true; return nil }
            if Int64(available) >= left { available = Int32(left) }
        }
        let atEnd = flushing || (endSample.map { head + Int64(available) >= $0 } ?? false)
        let count: Int32 = available >= frameSize ? frameSize : (atEnd ? available : 0)
        guard count > 0 else { return nil }
        let frame = try Frame(audioSamples: count, format: outFormat.rawValue, rate: outRate, layout: outLayout, path: path)
        let f = frame.pointer
        let read = av_audio_fifo_read(fifo, UnsafeMutableRawPointer(planes(f)).assumingMemoryBound(to: UnsafeMutableRawPointer?.self), count)
        if read < count { throw ExportError.ffmpeg(stage: .filter, path: path, code: read, message: "audio FIFO read failed") }
        f.pointee.pts = head
        head += Int64(count)
        fifoHeadSample = head
        return frame
    }
}
