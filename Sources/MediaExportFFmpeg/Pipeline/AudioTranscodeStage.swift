internal import CFFmpeg
import Foundation
import MediaExportCore

/// decode → resample (+ FIFO) → encode, for one audio stream; its packets go back to the executor.
///
/// Pull-driven like `VideoTranscodeStage`. The resampler's FIFO sits between decoder and encoder because AAC
/// takes exactly `frame_size` samples a frame: all frames the decoder has for a packet go into it first, then
/// encoder-sized frames come out one by one, each one's packets handed back before the next is encoded (the
/// order a push pipeline would call FFmpeg in, so the output is the same). The FIFO holds at most one
/// packet's worth of audio beyond a frame.
final class AudioTranscodeStage: StreamStage {
    let inputIndex: Int32
    var isDone: Bool { resampler.isFinished }
    let outputStream: UnsafeMutablePointer<AVStream>
    private let decoder: StreamDecoder
    private let resampler: AudioResampler
    private let encoder: StreamEncoder
    private let timeline: Timeline
    private let frame = Frame()
    /// The one packet this stage hands to the executor, reused for every encoded packet.
    private let outPacket = Packet()
    private let inTimeBase: AVRational
    private let gain: Float
    private var phase = TranscodePhase.running
    /// The decoder has nothing more until the next packet (see `VideoTranscodeStage`).
    private var decoderIdle = false

    init(input stream: UnsafeMutablePointer<AVStream>, plan: AudioPlan, muxer: Muxer, timeline: Timeline, strict: Bool, path: String) throws {
        inputIndex = stream.pointee.index
        self.gain = Float(plan.gain)
        let channels = Int32(plan.channels), settings = plan.settings
        decoder = try StreamDecoder(stream: stream, path: path, strict: strict)
        self.timeline = timeline
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
        try encoder.open([])
        resampler = try AudioResampler(encoder: enc, startSeconds: 0, endSeconds: timeline.length, path: path)

        outputStream = try muxer.addStream()
        try check(avcodec_parameters_from_context(outputStream.pointee.codecpar, enc), .mux, muxer.path, "stream parameters")
        outputStream.pointee.time_base = enc.pointee.time_base
        copyStreamInfo(from: stream, to: outputStream, displayMatrix: nil)
    }

    func send(_ packet: Packet) throws -> StageTally {
        guard !isDone else { return .none }
        decoderIdle = false
        return try decoder.sendSkippingDamage(packet)
    }

    func sendEndOfStream() throws -> StageTally {
        guard phase == .running else { return .none }
        // Past the trim end nothing the decoder or resampler still holds is wanted: straight to the encoder's end.
        if isDone {
            try startDrainingEncoder()
            return .none
        }
        decoderIdle = false
        phase = .drainingDecoder
        return try decoder.sendSkippingDamage(nil)
    }

    func receive() throws -> StageOutput {
        while true {
            if phase == .finished { return .finished }
            // Encoder output first: a ready packet goes to the muxer before more work is fed in.
            switch try encoder.receive(into: outPacket) {
            case .packet:
                prepareEncoded(outPacket, from: encoder, to: outputStream, defaultDuration: 0)
                return .packet(outPacket)
            case .drained:
                phase = .finished
                return .finished
            case .needsInput:
                break
            }
            switch phase {
            case .drainingEncoder, .finished:
                // Nothing more will come once the encoder has been told the stream ended.
                phase = .finished
                return .finished
            case .drainingResampler:
                // The FIFO's tail, the last frame short.
                if let f = try resampler.pull(flushing: true) {
                    try encode(f)
                } else {
                    try startDrainingEncoder()
                }
            case .running, .drainingDecoder:
                // Every frame the decoder has goes into the FIFO before any comes out.
                if !decoderIdle {
                    switch try decoder.receiveSkippingDamage(into: frame) {
                    case .frame:
                        let damaged = StreamDecoder.isDamaged(frame)
                        let repaired = try pushDecoded(frame)
                        frame.unref()
                        if damaged || repaired { return .tally(StageTally(damaged: damaged ? 1 : 0, timestampRepairs: repaired ? 1 : 0)) }
                        continue
                    case .noFrame:
                        decoderIdle = true
                    case .damaged:
                        decoderIdle = true
                        return .tally(.oneDamaged)
                    }
                }
                if phase == .drainingDecoder {
                    // The decoder is drained: the resampler gives up its delay, then the FIFO its tail.
                    try resampler.drain()
                    phase = .drainingResampler
                } else if let f = try resampler.pull(flushing: false) {
                    try encode(f)
                } else {
                    return .needsInput
                }
            }
        }
    }

    private func startDrainingEncoder() throws {
        phase = .drainingEncoder
        try encoder.send(nil)
    }

    /// Puts a decoded frame into the resampler, which keeps the audio continuous; true when its timestamp said
    /// otherwise (repeated, backwards or ahead: a repaired timestamp). One without a timestamp just follows.
    private func pushDecoded(_ frame: Frame) throws -> Bool {
        var ts = frame.pointer.pointee.best_effort_timestamp
        if ts == AVCode.noPTS { ts = frame.pointer.pointee.pts }
        let start = ts == AVCode.noPTS ? nil : Double(ts) * av_q2d(inTimeBase) - timeline.origin
        return try resampler.push(frame, startTime: start)
    }

    private func encode(_ frame: Frame) throws {
        if gain != 1 { applyGain(frame) }
        try encoder.send(frame)
    }

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
