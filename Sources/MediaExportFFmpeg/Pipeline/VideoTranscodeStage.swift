internal import CFFmpeg
import Foundation
import MediaExportCore

/// decode → (filter graph: deinterlace, crop, scale, tone map | crop/scale with swscale) → encode, for the main
/// video stream; its packets go back to the executor.
///
/// Pull-driven: `send` only hands the packet to the decoder; each `receive` first offers a packet the encoder
/// has ready, and only when it has none decodes one more frame and encodes it. The FFmpeg calls come in the
/// same order as a push pipeline's (send, then drain the decoder, each frame's packets written before the
/// next frame), so the output is the same, and nothing queues up between the stages.
final class VideoTranscodeStage: StreamStage, ClockedStage, MeasuresHoles {
    let inputIndex: Int32
    private(set) var isDone = false
    let outputStream: UnsafeMutablePointer<AVStream>
    let encoder: StreamEncoder
    /// Where the decoder runs: called on this thread, or on a thread of its own (`pipelined`: `DecodeThread`).
    enum Decoding {
        case inline(StreamDecoder)
        case threaded(DecodeThread)

        /// The decoder when it is called on the stage's thread.
        var inlineDecoder: StreamDecoder? { if case .inline(let decoder) = self { decoder } else { nil } }
    }
    let decoding: Decoding
    /// The input clock's reading for the frame being placed (a threaded decoder's frame carries its packet's).
    private var frameClock: InputClock.Reading?
    /// How the decoder, encoder and filter graph run (`CodecRun`: threads, deterministic).
    private let codecs: CodecRun
    private let scaler: VideoScaler
    let path: String
    private let frame = Frame()
    let plan: VideoPlan
    /// Measures the encode as it runs (`Transcoder.scoring`); nil: nothing is measured.
    var scoring: ScoringTap?
    /// The filter graph, when the plan needs one (built from the first frame); nil: swscale alone.
    private var graph: FilterGraph?
    /// The first frame has been seen and the graph built or not.
    private var graphDecided = false
    /// A frame taken from the graph.
    private let filtered = Frame()
    /// Brings a frame whose size or format changed mid-stream back to what the graph was built for (the graph's
    /// filters are configured once; fftools rebuilds its graph instead, which would lose the frames a deinterlacer
    /// holds). Untouched frames pass through it without a copy.
    private var graphInput: VideoScaler?
    private let frameRate: AVRational
    /// What the stage decided while running that the plan could not (e.g. frames flagged interlaced), and how many
    /// frames the frame-rate cap left out.
    var notes: [String] { decided + (decimator.map { [$0.note] } ?? []) }
    private var decided: [String] = []
    /// What the stage repaired in the source's description (a frame rate broken by orders of magnitude), as warnings.
    let warnings: [String]
    /// `video.maxFrameRate`: which frames are kept, on the output's timeline (nil: every one).
    private lazy var decimator = plan.frameRateCap.map { FrameRateCap.Decimator(maxFrameRate: $0.maxFrameRate, tick: av_q2d(inTimeBase)) }
    /// `video.keyframeInterval`: which frames are forced keyframes (nil: the encoder places them all).
    lazy var keyframes = plan.settings.keyframeInterval.map { KeyframeSchedule(interval: $0) }
    /// The one packet this stage hands to the executor, reused for every encoded packet.
    private let outPacket = Packet()
    private let originTS: Int64
    private let endTS: Int64?
    private let timeline: Timeline
    private let frameDuration: Int64
    let inTimeBase: AVRational
    /// Timestamp (input time base) of the latest frame given to the encoder; `.min` before the first.
    private var lastPTS: Int64 = Int64.min
    /// The steps between consecutive frames placed: where the stream's timestamps jump ahead (`FrameHoles`).
    private var holes: FrameHoles
    /// The holes in the timestamps of a stream of constant frame rate (`FrameHoles`' rule); nil at a variable rate.
    var measuredHoles: FrameHoles? { variableRate ? nil : holes }
    /// Where a variable-rate source holds a frame longer than its base rate (`SourceStream.variableRate`): no loss, but
    /// an MP4 output states its length without those steps' extra time, which the verifier allows for.
    var heldLonger: [LostFrames] { variableRate ? holes.steps(stream: Int(inputIndex)) : [] }
    /// The whole source's index shows a variable rate (`SourceStream.variableRate`): a hole is no frame lost.
    private var variableRate = false
    /// Where the input's reading is (given by the executor's `TimestampRepair`): a re-stamped frame must not
    /// run away from the audio.
    var inputClock: InputClock?
    private let crop: PixelRect?
    private var phase = TranscodePhase.running
    /// The decoder has nothing more until the next packet (it said so, or reported corrupt data, after which
    /// the push pipeline also stopped asking until the next packet).
    private var decoderIdle = false
    /// No keyframe was sent yet: packets before it and before the start cannot decode (a seek landed between
    /// keyframes) and are not sent, so the decoder reports no damage for frames that are never shown.
    private var awaitingKeyframe = true

    /// `pipelined` decodes on a thread of its own (`DecodeThread`, whose waits `cancel` ends): the same frames, overlapped
    /// with the encoding.
    init(input stream: UnsafeMutablePointer<AVStream>, plan: VideoPlan, muxer: Muxer, timeline: Timeline, strict: Bool, path: String,
         pass: Transcoder.EncoderPass? = nil, pipelined: Bool = false, cancel: CancelToken = CancelToken(), codecs: CodecRun = CodecRun(),
         source: SourceInfo? = nil) throws {
        inputIndex = stream.pointee.index
        self.codecs = codecs
        crop = plan.crop
        self.plan = plan
        let decoder = try StreamDecoder(stream: stream, path: path, strict: strict, codecs: codecs)
        decoding = pipelined ? .threaded(DecodeThread(decoder: decoder, cancel: cancel)) : .inline(decoder)
        self.path = muxer.path
        let inTimeBase = stream.pointee.time_base
        self.inTimeBase = inTimeBase
        originTS = timeline.origin(in: inTimeBase)
        endTS = timeline.end(in: inTimeBase)
        self.timeline = timeline

        let pixFmt = av_get_pix_fmt(plan.pixelFormat)
        scaler = VideoScaler(width: Int32(plan.width), height: Int32(plan.height), format: pixFmt, path: path)
        let profile = plan.settings.codec.profile
        encoder = try StreamEncoder(encoderName: profile.encoder, path: muxer.path, closesOnlyAfterAFrame: profile.closesOnlyAfterAFrame)
        let enc = encoder.context
        let guessed = Self.frameRate(of: stream, source: source)
        let rate = guessed.rate
        warnings = guessed.warnings
        frameRate = rate
        plan.setUp(enc, input: stream.pointee.codecpar.pointee, frameRate: Self.shownRate(rate, plan), timeBase: inTimeBase, pixelFormat: pixFmt,
                   pass: pass, codecs: codecs)
        if muxer.needsGlobalHeader { enc.pointee.flags |= cff_codec_flag_global_header() }
        try encoder.open(plan.encoderOptions(pass: pass, codecs: codecs))
        frameDuration = max(1, av_rescale_q(1, av_inv_q(rate), inTimeBase))
        // The base rate every timestamp is on (FFmpeg's `r_frame_rate`) measures the holes; the guess if it is unknown.
        // A video whose index shows a variable rate over the whole file has no holes to count (a range of it may look
        // constant but for the step where the rate changes: `SourceStream.variableRate`).
        let base = stream.pointee.r_frame_rate
        variableRate = source.map { s in s.streams.indices.contains(Int(stream.pointee.index)) && s.streams[Int(stream.pointee.index)].variableRate } ?? false
        holes = FrameHoles(frameDuration: base.num > 0 && base.den > 0 ? av_q2d(av_inv_q(base)) : av_q2d(av_inv_q(rate)),
                           reorderDepth: Int(stream.pointee.codecpar.pointee.video_delay))

        outputStream = try muxer.addStream()
        try check(avcodec_parameters_from_context(outputStream.pointee.codecpar, enc), .mux, muxer.path, "stream parameters")
        if let tag = plan.settings.codec.profile.quickTimeTag, muxer.container.isQuickTimeFamily {
            outputStream.pointee.codecpar.pointee.codec_tag = tag.utf8.reversed().reduce(0) { $0 << 8 | UInt32($1) }  // MKTAG
        }
        outputStream.pointee.time_base = enc.pointee.time_base
        outputStream.pointee.avg_frame_rate = Self.shownRate(rate, plan)
        copyStreamInfo(from: stream, to: outputStream, displayMatrix: plan.displayMatrix ?? sourceMatrix(stream))
        if let out = plan.outputColor, out.isHDR { ColorProbe.addHDRSideData(out, to: outputStream) }
    }

    /// The stream's frame rate (30 when FFmpeg cannot guess one), and the warning when it had to be repaired: a rate
    /// that makes a frame last longer than the stream by orders of magnitude gives way to the frame's share of it.
    private static func frameRate(of stream: UnsafeMutablePointer<AVStream>, source: SourceInfo?) -> (rate: AVRational, warnings: [String]) {
        var rate = av_guess_frame_rate(nil, stream, nil)
        if rate.num <= 0 || rate.den <= 0 { rate = AVRational(num: 30, den: 1) }
        guard let frame = source?.boundedFrame(av_q2d(av_inv_q(rate)), stream: Int(stream.pointee.index)) else { return (rate, []) }
        let warning = String(format: "video stream #%d: its frame rate makes a frame last %.0f s, longer than the stream by orders of magnitude: "
                             + "each frame lasts %.3f s instead (its share of the stream's length)", stream.pointee.index, av_q2d(av_inv_q(rate)), frame)
        return (av_d2q(1 / frame, 1 << 20), [warning])
    }

    func send(_ packet: Packet) throws -> StageTally {
        guard !isDone else { return .none }
        if awaitingKeyframe {
            let p = packet.pointer.pointee
            if (p.flags & AV_PKT_FLAG_KEY) == 0 && p.pts != AVCode.noPTS && p.pts < originTS { return .none }
            awaitingKeyframe = false
        }
        decoderIdle = false
        switch decoding {
        case .inline(let decoder): return try decoder.sendSkippingDamage(packet) ? .oneDamaged : .none
        case .threaded(let thread):
            thread.send(packet, clock: inputClock?.reading)
            return .none
        }
    }

    func sendEndOfStream() throws -> StageTally {
        guard phase == .running else { return .none }
        // Past the trim end the decoder's remaining frames are not wanted: straight to the filters' and encoder's end.
        if isDone {
            phase = .drainingDecoder
            try finishUpstream()
            return .none
        }
        decoderIdle = false
        phase = .drainingDecoder
        switch decoding {
        case .inline(let decoder): return try decoder.sendSkippingDamage(nil) ? .oneDamaged : .none
        case .threaded(let thread):
            thread.sendEndOfStream(clock: inputClock?.reading)
            return .none
        }
    }

    func receive() throws -> StageOutput {
        while true {
            if phase == .finished { return .finished }
            // Encoder output first: a ready packet goes to the muxer before more work is fed in.
            if let encoded = try takeEncoded() { return encoded }
            guard phase == .running || phase == .drainingDecoder else {
                // Nothing more will come once the encoder has been told the stream ended.
                phase = .finished
                return .finished
            }
            // The filter graph's output next: one frame at a time, each encoded before the next is taken.
            if let graph {
                switch try graph.pull(into: filtered) {
                case .ready:
                    let f = filtered.pointer
                    f.pointee.pts = av_rescale_q(f.pointee.pts, graph.outputTimeBase, inTimeBase)
                    f.pointee.pict_type = pictureType(pts: f.pointee.pts)
                    try scoring?.reference(filtered)
                    try encoder.send(filtered)
                    filtered.unref()
                    return .tally(StageTally(videoFrames: 1))
                case .ended:
                    try startDrainingEncoder()
                    continue
                case .needsInput:
                    break
                }
            }
            if isDone || decoderIdle {
                if phase == .running { return .needsInput }
                try finishUpstream()
                continue
            }
            if let output = try decodeAndEncode() { return output }
        }
    }

    /// The packet the encoder has ready (its duration as shown), or `.finished` once it is drained; nil when it
    /// needs a frame.
    private func takeEncoded() throws -> StageOutput? {
        switch try encoder.receive(into: outPacket) {
        case .ready:
            let pts = outPacket.pointer.pointee.pts
            if pts != AVCode.noPTS && (timeline.slowMotion != nil || decimator != nil) {
                // A frame in a slowed region is shown 1/rate times as long, one kept under the frame-rate cap
                // until its slot ends (the last one's duration is the file's end).
                outPacket.pointer.pointee.duration = shownDuration(at: pts)
            }
            try scoring?.encoded(outPacket)
            prepareEncoded(outPacket, from: encoder, to: outputStream, defaultDuration: frameDuration)
            return .packet(outPacket)
        case .ended:
            phase = .finished
            return .finished
        case .needsInput:
            return nil
        }
    }

    /// Decodes one more frame and encodes it: what that did, or nil when there is nothing to tell (the decoder
    /// needs a packet, or the frame changed no count).
    private func decodeAndEncode() throws -> StageOutput? {
        let decoded: Frame
        switch decoding {
        case .threaded(let thread):
            switch try thread.receive() {
            case .frame(let f, let clock):
                decoded = f
                frameClock = clock
            case .needsInput, .drained:
                decoderIdle = true
                return nil
            case .damaged:
                // Frames of later packets may follow: the thread has stopped for this packet already.
                return .tally(.oneDamaged)
            }
        case .inline(let decoder):
            switch try decoder.receiveSkippingDamage(into: frame) {
            case .frame:
                decoded = frame
                frameClock = inputClock?.reading
            case .noFrame:
                decoderIdle = true
                return nil
            case .damaged:
                decoderIdle = true
                return .tally(.oneDamaged)
            }
        }
        // A frame before the start is never shown: the open GOP's first frames after a seek are not damage.
        let time = decoded.pointer.pointee.best_effort_timestamp
        let damaged = decoded.isCorrupt && (time == AVCode.noPTS || time >= originTS)
        var tally = try encode(decoded)
        if damaged { tally.damaged += 1 }
        decoded.unref()
        return tally != .none ? .tally(tally) : nil
    }

    private func startDrainingEncoder() throws {
        phase = .drainingEncoder
        try encoder.send(nil)
    }

    /// The decoder has given its last frame (or the trim end is reached): the filter graph, if there is one, gives
    /// up what it holds first; the encoder is drained once the graph says it has ended.
    private func finishUpstream() throws {
        if let graph, !graph.flushed {
            try graph.flush()  // its `.ended` starts the encoder's drain
        } else {
            try startDrainingEncoder()
        }
    }

    /// Places a decoded frame on the output timeline and gives it to the encoder; says what that did. A frame
    /// before the trim start, or at or past the trim end (which ends the stage), is left out (the trim: not
    /// counted). A frame without a timestamp, or whose timestamp repeats or goes back (the muxer would reject
    /// its packet), is placed one frame after the previous one, as the ffmpeg CLI's video sync does, and
    /// counted as a repair; unless that would put it further ahead of the audio read so far than
    /// `TimestampRepair.maxLead`: then it is dropped, and counted.
    private func encode(_ frame: Frame) throws -> StageTally {
        let f = frame.pointer
        var tally = StageTally.none
        var ts = f.pointee.best_effort_timestamp
        var repaired = false
        if ts == AVCode.noPTS {
            ts = lastPTS == Int64.min ? originTS : lastPTS &+ frameDuration
            repaired = true
        } else if lastPTS != Int64.min && ts <= lastPTS {
            let restamped = lastPTS &+ frameDuration
            if let clock = frameClock, clock.runsAway(Double(restamped) * av_q2d(inTimeBase)) {
                tally.droppedFrames = 1
                return tally
            }
            ts = restamped
            repaired = true
        } else if ts < originTS {
            return tally  // before the trim start
        }
        let outTS = ts &- originTS
        if let endTS, outTS >= endTS { isDone = true; return tally }
        if lastPTS != Int64.min, lastPTS >= originTS {
            holes.note(from: Double(lastPTS &- originTS) * av_q2d(inTimeBase), to: Double(outTS) * av_q2d(inTimeBase))
        }
        lastPTS = ts
        if repaired { tally.timestampRepairs = 1 }
        if !graphDecided { try decideGraph(first: frame) }
        // Where the frame lands in the output: later and further apart in a slow-motion region.
        let shownTS = timeline.outputTimestamp(outTS, in: inTimeBase)
        // `video.maxFrameRate`: a frame in the slot of the last one kept is left out — planned, so not counted as
        // dropped (the note counts it). Before the filter graph, whose work it saves (a deinterlacer then takes its
        // neighbours among the frames kept).
        if decimator?.keeps(Double(shownTS) * av_q2d(inTimeBase)) == false { return tally }
        if let graph {
            // Counted as encoded when it comes out of the graph (one frame per frame: `bwdif` in send_frame mode).
            f.pointee.pts = shownTS
            try graph.push(graphInput?.convert(frame, keepAspect: true) ?? frame)
            return tally
        }
        if let crop { try applyCrop(crop, to: frame) }
        let converted = try scaler.convert(frame)
        converted.pointer.pointee.pts = shownTS
        converted.pointer.pointee.pict_type = pictureType(pts: shownTS)
        try scoring?.reference(converted)
        try encoder.send(converted)
        tally.videoFrames = 1
        return tally
    }

    /// The output's nominal frame rate: the source's, at most the frame-rate cap.
    private static func shownRate(_ rate: AVRational, _ plan: VideoPlan) -> AVRational {
        guard let cap = plan.frameRateCap?.maxFrameRate else { return rate }
        let q = av_d2q(cap, 100_000)
        return av_cmp_q(q, rate) < 0 ? q : rate
    }

    /// How long the frame shown at `pts` (output timeline, input time base) lasts: a source frame, 1/rate times as
    /// long in a slowed region; under the frame-rate cap until its slot ends at least, so that the last frame kept
    /// ends where the source's frames do.
    private func shownDuration(at pts: Int64) -> Int64 {
        let tick = av_q2d(inTimeBase), seconds = Double(pts) * tick
        var own = Double(frameDuration) * tick
        if let slow = timeline.slowMotion { own /= slow.rate(atOutput: seconds) }
        if let decimator { own = decimator.shownDuration(at: seconds, own: own) }
        return max(1, Int64(saturating: (own / tick).rounded()))
    }

    /// Builds the filter graph the plan needs for pictures like `first` (none when swscale does it all). A stream
    /// that does not say how it is scanned is deinterlaced when its first frame says it is interlaced.
    private func decideGraph(first frame: Frame) throws {
        graphDecided = true
        let f = frame.pointer.pointee
        let flagged = f.interlaced_frame != 0
        guard let description = PictureProcessing.filterGraph(plan, sourceWidth: Int(f.width), sourceHeight: Int(f.height),
                                                              flaggedInterlaced: flagged) else { return }
        if plan.deinterlace == .flaggedFrames && flagged {
            decided.append("interlaced frames (\(f.top_field_first != 0 ? "top" : "bottom") field first, flagged by the decoder): deinterlaced (bwdif)")
        }
        graph = try FilterGraph(video: description, first: frame.pointer, timeBase: inTimeBase, frameRate: frameRate, path: path,
                                threads: codecs.count)
        graphInput = VideoScaler(width: f.width, height: f.height, format: AVPixelFormat(rawValue: f.format), path: path)
    }

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
        try check(av_frame_apply_cropping(f, Int32(AV_FRAME_CROP_UNALIGNED)), .filter, path, "cropping")
    }
}
