internal import CFFmpeg
import Foundation
import MediaExportCore

/// decode → encode for a text subtitle stream (SubRip, ASS/SSA, WebVTT … → `mov_text` for MP4/MOV/M4V), as the
/// ffmpeg CLI's `transcode_subtitles` / `do_subtitle_out` do: each packet is one cue, decoded into an `AVSubtitle`
/// (ASS lines) with `avcodec_decode_subtitle2` and encoded with `avcodec_encode_subtitle`.
///
/// Timing is the packet's: its presentation time on the output timeline (the trim's origin subtracted, slow motion
/// applied through `Timeline.outputTimestamp`), its length from the cue's `end_display_time` or else the packet's
/// duration. A cue wholly before the start or at or after the trim end is left out (the trim); one that overlaps
/// either is cut to it. A cue is held back until the picture and sound read have passed its end (or the stream
/// ends): at the end of the stream the cues still held are cut where the picture and sound end, so that subtitles
/// running past them do not make the output longer than its media (a cue starting after them is left out).
///
/// ASS styling: the decoder's `subtitle_header` (the script's styles; SubRip's decoder makes a default one) is
/// given to the encoder, as fftools' `init_output_stream` does. `mov_text` has one style per track (the script's
/// `Default` goes into the sample description) plus style records over spans of a cue: other named styles and
/// inline overrides come through as those (font size, colours, bold/italic/underline); what timed text cannot
/// hold is dropped (alignment and positions such as `{\an8}` or `\pos`, animation, karaoke).
final class SubtitleTranscodeStage: StreamStage, ClockedStage {
    let inputIndex: Int32
    /// Past the trim end: a cue at or after it was read, or the picture and sound read are a second past it (cues
    /// are interleaved by their start, so none before the end can still come; without this a sparse subtitle track
    /// would keep the executor reading to the end of the file).
    var isDone: Bool {
        if reachedEnd { return true }
        guard let endTS, let read = readPosition() else { return false }
        return read >= endTS &+ Timeline.timestamp(1, in: inTimeBase)
    }
    private var reachedEnd = false
    let outputStream: UnsafeMutablePointer<AVStream>
    /// Where reading is (given by the executor's `TimestampRepair`): how far the picture and sound have got.
    var inputClock: InputClock?
    private let decoder: StreamDecoder
    private let encoder: StreamEncoder
    private let inTimeBase: AVRational
    private let originTS: Int64
    private let endTS: Int64?
    private let timeline: Timeline
    private let path: String

    /// One encoded cue waiting to be handed on. Times are ticks of the input's time base counted from the origin,
    /// already cut to the trim.
    private struct Cue {
        var data: [UInt8]
        var start: Int64
        /// Equal to `start` when the cue gave no length (shown until the next one).
        var end: Int64
    }
    /// Cues in order, not yet handed on. Short: a cue leaves once reading has passed its end, or when more than
    /// `maxHeld` wait (a source whose picture and sound carry no decode times).
    private var held: [Cue] = []
    private static let maxHeld = 16
    /// The encoder writes into this buffer (fftools' 1 MiB `subtitle_out`); each cue's bytes are copied out.
    private var buffer = [UInt8](repeating: 0, count: 1 << 20)
    /// The one packet this stage hands to the executor, reused for every cue.
    private let outPacket = Packet()
    /// Timestamp (the output stream's time base) of the latest cue handed on: the muxer needs them strictly increasing.
    private var lastStart = Int64.min
    /// `outPacket` holds a placed cue not yet handed on (its repair was reported first).
    private var ready = false
    private var ended = false

    init(input stream: UnsafeMutablePointer<AVStream>, encoderName: String, muxer: Muxer, timeline: Timeline, strict: Bool, path: String) throws {
        inputIndex = stream.pointee.index
        self.path = path
        self.timeline = timeline
        let inTimeBase = stream.pointee.time_base
        self.inTimeBase = inTimeBase
        originTS = timeline.origin(in: inTimeBase)
        endTS = timeline.end(in: inTimeBase)
        decoder = try StreamDecoder(stream: stream, path: path, strict: strict)
        encoder = try StreamEncoder(encoderName: encoderName, path: muxer.path)
        // Text to text only (fftools refuses the rest too: "Subtitle encoding currently only possible from text to
        // text or bitmap to bitmap"). The planner sends only text here; this keeps a bitmap stream from reaching it.
        let textSub = Int32(AV_CODEC_PROP_TEXT_SUB)
        let decodesText = avcodec_descriptor_get(decoder.context.pointee.codec_id).map { ($0.pointee.props & textSub) != 0 } ?? false
        let encodesText = avcodec_descriptor_get(encoder.context.pointee.codec_id).map { ($0.pointee.props & textSub) != 0 } ?? false
        guard decodesText && encodesText else {
            throw ExportError.ffmpeg(stage: .encode, path: muxer.path, code: cff_averror(EINVAL),
                                     message: "stream #\(inputIndex): only text subtitles can be converted to \(encoderName)")
        }
        let enc = encoder.context
        enc.pointee.time_base = inTimeBase
        enc.pointee.width = stream.pointee.codecpar.pointee.width
        enc.pointee.height = stream.pointee.codecpar.pointee.height
        let dec = decoder.context.pointee
        if let header = dec.subtitle_header, dec.subtitle_header_size > 0 {
            // The ASS code reads the header as a C string: one more byte, zeroed. The encoder's context owns the copy
            // (`avcodec_free_context` frees `subtitle_header`).
            let size = Int(dec.subtitle_header_size)
            guard let copy = av_mallocz(size + 1)?.assumingMemoryBound(to: UInt8.self) else {  // size: an Int32's, so + 1 fits
                throw ExportError.ffmpeg(stage: .encode, path: muxer.path, code: cff_averror(ENOMEM), message: "no memory for a subtitle header of \(size) bytes")
            }
            copy.update(from: header, count: size)
            enc.pointee.subtitle_header = copy
            enc.pointee.subtitle_header_size = dec.subtitle_header_size
        }
        if muxer.needsGlobalHeader { enc.pointee.flags |= cff_codec_flag_global_header() }
        try encoder.open(options: [:])

        outputStream = try muxer.addStream()
        try check(avcodec_parameters_from_context(outputStream.pointee.codecpar, enc), .mux, muxer.path, "stream parameters")
        outputStream.pointee.time_base = inTimeBase
        // Language, title and the default/forced dispositions.
        copyStreamInfo(from: stream, to: outputStream, displayMatrix: nil)
    }

    /// Decodes the packet's cue and encodes it; it waits in `held` until `receive` hands it on. A packet without a
    /// timestamp cannot be placed: dropped and counted. One the decoder rejects (bad UTF-8 text …) is damage.
    func send(_ packet: Packet) throws -> StageTally {
        guard !isDone else { return .none }
        let p = packet.pointer
        let pts = p.pointee.pts != AVCode.noPTS ? p.pointee.pts : p.pointee.dts
        guard pts != AVCode.noPTS else { return StageTally(droppedFrames: 1) }
        if let endTS, pts &- originTS >= endTS { reachedEnd = true; return .none }

        var sub = AVSubtitle()
        var got: Int32 = 0
        let code = avcodec_decode_subtitle2(decoder.context, &sub, &got, p)
        if code < 0 {
            if AVCode.isDamage(code) { return .oneDamaged }
            try check(code, .decode, path, "stream #\(inputIndex)")
        }
        guard got != 0 else { return .none }
        defer { avsubtitle_free(&sub) }
        guard sub.num_rects > 0 else { return .none }  // nothing shown (fftools skips these too)

        let ms = AVRational(num: 1, den: 1000)
        var start = pts &+ av_rescale_q(Int64(sub.start_display_time), ms, inTimeBase) &- originTS
        var length: Int64 = 0
        if sub.end_display_time > sub.start_display_time && sub.end_display_time != UInt32.max {
            length = av_rescale_q(Int64(sub.end_display_time - sub.start_display_time), ms, inTimeBase)
        } else if p.pointee.duration > 0 {
            length = p.pointee.duration
        } else {
            // A cue that says nothing of its length: MP4 would show it for no time at all. Two seconds, as players
            // show a cue without an end.
            length = av_rescale_q(2000, ms, inTimeBase)
        }
        var end = start &+ length
        if length > 0 ? end <= 0 : start < 0 { return .none }  // wholly before the start
        if let endTS {
            if start >= endTS { reachedEnd = true; return .none }
            end = min(end, endTS)
        }
        start = max(start, 0)
        end = max(end, start)

        // As fftools: the encoder takes a cue whose display starts at its pts.
        sub.pts = av_rescale_q(start, inTimeBase, cff_time_base_q())
        sub.start_display_time = 0
        sub.end_display_time = UInt32(clamping: av_rescale_q(end - start, inTimeBase, ms))
        let size = buffer.withUnsafeMutableBufferPointer { avcodec_encode_subtitle(encoder.context, $0.baseAddress, Int32($0.count), &sub) }
        try check(size, .encode, encoder.path, "\(encoder.name) encoder, stream #\(inputIndex)")
        guard size > 0 else { return .none }
        held.append(Cue(data: Array(buffer[0..<Int(size)]), start: start, end: end))
        return .none
    }

    func sendEndOfStream() throws -> StageTally {
        ended = true
        return .none
    }

    func receive() throws -> StageOutput {
        if ready {
            ready = false
            return .packet(outPacket)
        }
        while let cue = held.first {
            var end = cue.end
            if ended {
                // The cues still held may run past the picture and sound: they end where those do, and one that
                // starts after them is left out (as the trim end leaves out what comes after it).
                if let mediaEnd = readPosition(), mediaEnd > 0 {
                    if cue.start >= mediaEnd { held.removeFirst(); continue }
                    end = min(end, mediaEnd)
                }
            } else if held.count <= SubtitleTranscodeStage.maxHeld {
                guard let read = readPosition(), read >= cue.end else { break }
            }
            held.removeFirst()
            if try place(cue, end: end) {
                // The repair is counted first; the packet is handed on by the next `receive`.
                ready = true
                return .tally(StageTally(timestampRepairs: 1))
            }
            return .packet(outPacket)
        }
        return ended ? .finished : .needsInput
    }

    /// How far the picture and sound have been read, in ticks of the input's time base from the origin; nil before
    /// any of their packets with a decode time (or when there are none).
    private func readPosition() -> Int64? {
        guard let seconds = inputClock?.seconds else { return nil }
        return Timeline.timestamp(seconds, in: inTimeBase) &- originTS
    }

    /// Puts the cue into `outPacket` for the muxer: output timestamps (slow motion applied), strictly after the
    /// previous cue's (two cues at the same time: the second moves one tick on, as fftools' muxer path re-stamps a
    /// repeated DTS). True when its start had to be moved so (a repair, counted).
    private func place(_ cue: Cue, end: Int64) throws -> Bool {
        // In the stream's time base (the muxer's since the header): where the order has to hold.
        let tb = outputStream.pointee.time_base
        var start = av_rescale_q(timeline.outputTimestamp(cue.start, in: inTimeBase), inTimeBase, tb)
        let stop = av_rescale_q(timeline.outputTimestamp(end, in: inTimeBase), inTimeBase, tb)
        var repaired = false
        if lastStart != Int64.min && start <= lastStart {
            start = lastStart &+ 1
            repaired = true
        }
        lastStart = start
        let p = outPacket.pointer
        av_packet_unref(p)
        try check(av_new_packet(p, Int32(cue.data.count)), .encode, encoder.path, "subtitle packet")  // ≤ the encode buffer's size
        cue.data.withUnsafeBufferPointer { if let base = $0.baseAddress { p.pointee.data.update(from: base, count: $0.count) } }
        p.pointee.pts = start
        p.pointee.dts = start
        p.pointee.duration = max(0, stop - start)
        p.pointee.flags |= AV_PKT_FLAG_KEY
        p.pointee.stream_index = outputStream.pointee.index
        return repaired
    }
}
