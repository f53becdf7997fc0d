internal import CFFmpeg
import Foundation
import MediaExportCore

/// decode → resample (+ FIFO) → encode, for one audio stream; its packets go back to the executor.
///
/// Pull-driven like `VideoTranscodeStage`. The resampler's FIFO sits between decoder and encoder because AAC
/// takes exactly `frame_size` samples a frame: all frames the decoder has for a packet go into it first, then
/// encoder-sized frames come out one by one, each one's packets handed back before the next is encoded (the
/// order a push pipeline would call FFmpeg in, so the output is the same). The FIFO holds at most one
/// packet's worth of audio beyond a frame (or a second of the silence that fills a gap in the stream).
final class AudioTranscodeStage: StreamStage {
    let inputIndex: Int32
    var isDone: Bool { resampler.isFinished }
    let outputStream: UnsafeMutablePointer<AVStream>
    private let decoder: StreamDecoder
    /// Seconds of audio the freshly opened decoder drops before its first output, wherever reading starts, plus the
    /// pre-roll it needs to converge after a seek: an Opus decoder skips its header's pre-skip (libavcodec sets
    /// `delay` from it), 1.365 s in mutagen-example.opus. A range must be read that much before its start.
    var decoderLead: Double {
        let c = decoder.context.pointee
        guard c.sample_rate > 0 else { return 0 }
        return Double(max(0, c.delay)) / Double(c.sample_rate) + Double(max(0, c.seek_preroll)) / Double(c.sample_rate)
    }
    private let resampler: AudioResampler
    private let encoder: StreamEncoder
    private let timeline: Timeline
    private let frame = Frame()
    /// The one packet this stage hands to the executor, reused for every encoded packet.
    private let outPacket = Packet()
    private let inTimeBase: AVRational
    private let gain: Float
    /// A loudness target's `loudnorm` (`LoudnessNormalisation.filter`), made on the first frame; a gain is `gain`.
    private let loudnessFilter: String?
    private var leveller: LoudnessFilter?
    private var phase = TranscodePhase.running
    /// The decoder has nothing more until the next packet (see `VideoTranscodeStage`).
    private var decoderIdle = false
    /// Slow motion: the current region's tempo graph, and where the input is (seconds from the origin, the
    /// source's clock).
    private var tempo: AudioTempo?
    private var inputPosition: Double?
    private let tempoOut = Frame()
    /// The timeline's start in the input's time base, and whether the packet sent last ends before it.
    private let originTS: Int64
    private var sentBeforeStart: Bool

    /// `codecs`: how the decoder and encoder run (`CodecRun`).
    init(input stream: UnsafeMutablePointer<AVStream>, plan: AudioPlan, muxer: Muxer, timeline: Timeline, strict: Bool, path: String,
         codecs: CodecRun = CodecRun()) throws {
        inputIndex = stream.pointee.index
        self.path = path
        self.gain = Float(plan.gain)
        loudnessFilter = plan.loudness?.filter
        decoder = try StreamDecoder(stream: stream, path: path, strict: strict, codecs: codecs)
        self.timeline = timeline
        inTimeBase = stream.pointee.time_base
        originTS = timeline.origin(in: stream.pointee.time_base)
        // After a seek (the start is later than the stream's), reading begins before the start.
        sentBeforeStart = stream.pointee.start_time != AVCode.noPTS && originTS > stream.pointee.start_time
        encoder = try StreamEncoder(encoderName: plan.settings.codec.profile.encoder, path: muxer.path)
        let enc = encoder.context
        plan.setUp(enc, codecs: codecs)
        if muxer.needsGlobalHeader { enc.pointee.flags |= cff_codec_flag_global_header() }
        try encoder.open([])
        resampler = try AudioResampler(encoder: enc, startSeconds: 0, endSeconds: timeline.outputLength, path: path)

        outputStream = try muxer.addStream()
        try check(avcodec_parameters_from_context(outputStream.pointee.codecpar, enc), .mux, muxer.path, "stream parameters")
        outputStream.pointee.time_base = enc.pointee.time_base
        copyStreamInfo(from: stream, to: outputStream, displayMatrix: nil)
    }

    func send(_ packet: Packet) throws -> StageTally {
        guard !isDone else { return .none }
        decoderIdle = false
        let p = packet.pointer.pointee
        // A packet without a time (the parser's second frame of a PES packet) goes with the one before it.
        if p.pts != AVCode.noPTS { sentBeforeStart = p.pts &+ max(p.duration, 1) <= originTS }
        return unlessBeforeStart(try decoder.sendSkippingDamage(packet) ? .oneDamaged : .none)
    }

    /// Damage in audio that ends before the start is never heard: a seek lands inside a frame (MPEG audio's first
    /// packet after it is cut), and the decoder's complaint about it is no damage of the input's.
    private func unlessBeforeStart(_ tally: StageTally) -> StageTally {
        guard sentBeforeStart else { return tally }
        var t = tally
        t.damaged = 0
        return t
    }

    func sendEndOfStream() throws -> StageTally {
        guard phase == .running else { return .none }
        // Past the trim end nothing the decoder or resampler still holds is wanted: to the encoder's end (through what
        // a loudness filter still holds).
        if isDone {
            phase = .drainingResampler
            return .none
        }
        decoderIdle = false
        phase = .drainingDecoder
        return try decoder.sendSkippingDamage(nil) ? .oneDamaged : .none
    }

    func receive() throws -> StageOutput {
        while true {
            if phase == .finished { return .finished }
            // Encoder output first: a ready packet goes to the muxer before more work is fed in.
            switch try encoder.receive(into: outPacket) {
            case .ready:
                prepareEncoded(outPacket, from: encoder, to: outputStream, defaultDuration: 0)
                return .packet(outPacket)
            case .ended:
                phase = .finished
                return .finished
            case .needsInput:
                break
            }
            if try sendLevelled() { continue }
            switch phase {
            case .drainingEncoder, .finished:
                // Nothing more will come once the encoder has been told the stream ended.
                phase = .finished
                return .finished
            case .drainingResampler:
                try drainTail()
            case .running, .drainingDecoder:
                // Every frame the decoder has goes into the FIFO before any comes out.
                if !decoderIdle {
                    switch try decoder.receiveSkippingDamage(into: frame) {
                    case .frame:
                        let damaged = frame.isCorrupt
                        let repaired = try pushDecoded(frame)
                        frame.unref()
                        if damaged || repaired {
                            return .tally(unlessBeforeStart(StageTally(damaged: damaged ? 1 : 0, timestampRepairs: repaired ? 1 : 0)))
                        }
                        continue
                    case .noFrame:
                        decoderIdle = true
                    case .damaged:
                        decoderIdle = true
                        return .tally(unlessBeforeStart(.oneDamaged))
                    }
                }
                if phase == .drainingDecoder {
                    // The decoder is drained: the tempo graph gives up what it holds, the resampler its delay, then
                    // the FIFO its tail.
                    _ = try finishRegion()
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

    /// A loudness filter's next frame to the encoder (before more goes in); false when it has none ready.
    private func sendLevelled() throws -> Bool {
        guard phase != .drainingEncoder && phase != .finished, let levelled = try leveller?.pull() else { return false }
        try encoder.send(levelled)
        return true
    }

    /// The FIFO's tail (the last frame short), then what a loudness filter holds, then the encoder's end.
    private func drainTail() throws {
        if let f = try resampler.pull(flushing: true) {
            try encode(f)
        } else if let leveller, !leveller.flushed {
            try leveller.flush()
        } else {
            try startDrainingEncoder()
        }
    }

    private func startDrainingEncoder() throws {
        phase = .drainingEncoder
        try encoder.send(nil)
    }

    /// The breaks in this stream's timeline the resampler bridged (silence where packets are missing, audio dropped
    /// where timestamps go back), for the warnings.
    var gaps: [AudioGap] { resampler.gaps.map { AudioGap(stream: Int(inputIndex), at: $0.at, seconds: $0.seconds) } }

    /// Puts a decoded frame into the resampler at its timestamp's place, where a break in the stream is bridged
    /// (kept in `gaps`, not a repair); one without a timestamp just follows. True when a timestamp was repaired
    /// (slow motion only: see `pushSlowed`).
    private func pushDecoded(_ frame: Frame) throws -> Bool {
        var ts = frame.pointer.pointee.best_effort_timestamp
        if ts == AVCode.noPTS { ts = frame.pointer.pointee.pts }
        let start = ts == AVCode.noPTS ? nil : Double(ts) * av_q2d(inTimeBase) - timeline.origin
        if let slow = timeline.slowMotion, let motion = slow.slowMotion { return try pushSlowed(frame, start: start, slow: slow, motion: motion) }
        try resampler.push(frame, startTime: start)
        return false
    }

    /// Slow motion: a frame's samples in a slowed region go through that region's tempo graph, the others straight to
    /// the resampler at their place on the output's clock; a frame that straddles a boundary is split there. A region
    /// comes out at its exact slowed length, what `atempo` gives short (its first half-windows) as silence in front.
    private func pushSlowed(_ frame: Frame, start: Double?, slow: PlannedTimeline, motion: SlowMotion) throws -> Bool {
        let f = frame.pointer
        let rateHz = Double(max(1, f.pointee.sample_rate))
        let total = f.pointee.nb_samples
        let begin = start ?? inputPosition ?? 0
        var repaired = false
        // A timestamp that jumps (a gap in the source) is a repair, as the resampler counts one on the plain path.
        if start != nil, let expected = inputPosition, abs(begin - expected) > AudioResampler.tolerance { repaired = true }
        inputPosition = begin + Double(total) / rateHz
        // Samples before the output's start (a seek lands before a trim's start) never reach the tempo graph.
        if begin + Double(total) / rateHz <= 0 { return repaired }
        var offset: Int32 = begin < 0 ? min(total, Int32(saturating: (-begin * rateHz).rounded())) : 0
        // Original-timeline seconds of the frame's first sample.
        let originalStart = timeline.origin - slow.sourceStart + begin
        while offset < total {
            let atStart = originalStart + Double(offset) / rateHz
            // A piece's rate is the one at its first sample's centre: a boundary between two samples is on the right side.
            let slowed = motion.rate(at: atStart + 0.5 / rateHz) != 1
            var count = total - offset
            if let boundary = motion.nextBoundary(after: atStart + 0.5 / rateHz) {
                let samples = Int32(saturating: ((boundary - originalStart) * rateHz).rounded() - Double(offset))
                if samples > 0 && samples < count { count = samples }
            }
            let piece = offset == 0 && count == total ? frame : try AudioTempo.slice(frame, from: offset, count: count, path: path)
            // Where this piece's first sample belongs on the output's clock.
            let outputStart = slow.outputSeconds(begin + Double(offset) / rateHz)
            if slowed {
                if tempo == nil {
                    tempo = try AudioTempo(first: piece.pointer, slowRate: motion.rate, path: path)
                    // The graph gives frames of its input's shape: the padding's, should it give none at all.
                    if lastShape == nil { lastShape = try AudioTempo.silence(like: piece, count: 1, path: path) }
                    // The region's slowed audio is held back (up to `heldLimit`) until its end, when what `atempo` gave
                    // short is known exactly and goes in front as silence: the region's sounds stay on their pictures.
                    regionStart = outputStart
                    held = []
                    heldSamples = 0
                    holding = true
                    regionLead = 0
                }
                try tempo!.push(piece)  // made just above when nil
                if try drainTempo() { repaired = true }
            } else {
                if try finishRegion() { repaired = true }
                if try resampler.push(piece, startTime: outputStart) { repaired = true }
            }
            offset += count
        }
        return repaired
    }

    /// What `atempo` lost at the start of each slowed region (silence in its place).
    private(set) var startLoss = TempoStartLoss()
    /// What the stage says of its audio beside the gaps: the slowed regions' start loss.
    var warnings: [String] { startLoss.warning(stream: Int(inputIndex), sampleRate: Int(decoder.context.pointee.sample_rate)).map { [$0] } ?? [] }

    /// A frame shaped like the tempo graph's output (for padding).
    private var lastShape: Frame?
    /// Where the current region starts on the output's clock.
    private var regionStart: Double?
    /// The current region's slowed frames held back, and how many samples they hold; `holding` until the region
    /// ends or `heldLimit` is passed (then the lead is the loss `atempo` shows on a second of silence).
    private var held: [Frame] = []
    private var heldSamples = 0
    private var holding = false
    /// The silence put before the current region's slowed audio, in samples.
    private var regionLead = 0
    /// At most this many slowed samples are held back per region (30 s at 48 kHz: about 11 MB of stereo float).
    private static let heldLimit = 48_000 * 30
    private let path: String

    /// Moves every frame the tempo graph has ready on: held back while the region's lead is not known, else into the
    /// resampler.
    private func drainTempo() throws -> Bool {
        guard let tempo else { return false }
        var repaired = false
        while try tempo.pull(into: tempoOut) {
            if lastShape == nil { lastShape = try AudioTempo.silence(like: tempoOut, count: 1, path: path) }
            if holding {
                let copy = Frame()
                try check(av_frame_ref(copy.pointer, tempoOut.pointer), .filter, path, "holding slowed audio")
                held.append(copy)
                heldSamples += Int(tempoOut.pointer.pointee.nb_samples)
                tempoOut.unref()
                if heldSamples > Self.heldLimit, let motion = timeline.slowMotion?.slowMotion {
                    // A long region: lead with what atempo loses at its start on silence, and stream the rest.
                    let lead = try AudioTempo.startLoss(like: held[0], slowRate: motion.rate, path: path)
                    if try release(lead: lead) { repaired = true }
                }
                continue
            }
            if try resampler.push(tempoOut, startTime: nil) { repaired = true }
            tempoOut.unref()
        }
        return repaired
    }

    /// Cuts the held frames to at most `samples` (dropping the tail); returns how many they hold now.
    private func trimHeld(to samples: Int) throws -> Int {
        var kept = 0
        var out: [Frame] = []
        for frame in held {
            let n = Int(frame.pointer.pointee.nb_samples)
            if kept + n <= samples {
                out.append(frame); kept += n
            } else {
                let part = samples - kept
                if part > 0 { out.append(try AudioTempo.slice(frame, from: 0, count: Int32(part), path: path)); kept += part }
                break
            }
        }
        held = out
        heldSamples = kept
        return kept
    }

    /// Sends `lead` samples of silence, then the held frames, into the resampler, from the region's start.
    private func release(lead: Int) throws -> Bool {
        holding = false
        regionLead = lead
        var repaired = false
        var start = regionStart
        if lead > 0, let like = held.first ?? lastShape {
            let pad = try AudioTempo.silence(like: like, count: Int32(min(lead, Int(Int32.max))), path: path)
            if try resampler.push(pad, startTime: start) { repaired = true }
            start = nil
        }
        for frame in held {
            if try resampler.push(frame, startTime: start) { repaired = true }
            start = nil
        }
        held = []
        heldSamples = 0
        return repaired
    }

    /// A slowed region has ended (or the input has): its graph gives up the rest, and silence makes up what `atempo`
    /// gave short of the region's exact slowed length — in front of it when it was held back, else at its end.
    private func finishRegion() throws -> Bool {
        guard let region = tempo, let motion = timeline.slowMotion?.slowMotion else { return false }
        try region.flush()
        var repaired = try drainTempo()
        let wanted = Int((Double(region.samplesIn) / motion.rate).rounded())  // rate in 1/16…1 (SlowMotion.problem)
        var given = region.samplesOut
        if holding {
            // In front: what atempo loses at its start (measured on silence; all of a region shorter than that, or of
            // one it gave nothing for). At the end: what it over-produced when flushed is cut, what it still gave
            // short is padded. The region's length is then exact.
            let loss = try held.first.map { try AudioTempo.startLoss(like: $0, slowRate: motion.rate, path: path) } ?? wanted
            let lead = min(wanted, loss)
            given = try trimHeld(to: max(0, wanted - lead))
            if try release(lead: lead) { repaired = true }
        }
        startLoss.add(lost: regionLead, of: wanted)
        if wanted > given + regionLead, let like = lastShape {
            let pad = try AudioTempo.silence(like: like, count: Int32(min(wanted - given - regionLead, Int(Int32.max))), path: path)
            if try resampler.push(pad, startTime: nil) { repaired = true }
        }
        tempo = nil
        regionLead = 0
        return repaired
    }

    private func encode(_ frame: Frame) throws {
        if let loudnessFilter {
            let size = encoder.context.pointee.frame_size
            if leveller == nil { leveller = try LoudnessFilter(filter: loudnessFilter, first: frame, frameSize: size > 0 ? size : 1024, path: path) }
            try leveller?.push(frame)
            return
        }
        if gain != 1 { applyGain(frame) }
        try encoder.send(frame)
    }

    /// Scales float samples (AAC's planar, Opus's interleaved) by the plan's linear gain (the edit's volume, or a
    /// loudness target's), clipping to ±1.
    private func applyGain(_ frame: Frame) {
        let f = frame.pointer
        let planar = av_sample_fmt_is_planar(AVSampleFormat(rawValue: f.pointee.format)) != 0
        let channels = Int(f.pointee.ch_layout.nb_channels)
        let count = Int(f.pointee.nb_samples) * (planar ? 1 : channels)
        for ch in 0..<(planar ? channels : 1) {
            guard let raw = f.pointee.extended_data[ch] else { continue }
            let samples = UnsafeMutableRawPointer(raw).assumingMemoryBound(to: Float.self)
            for i in 0..<count { samples[i] = min(1, max(-1, samples[i] * gain)) }
        }
    }
}
