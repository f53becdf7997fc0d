internal import CFFmpeg
import Foundation
import MediaExportCore

/// The bypass: demux → mux with no decoding (passthrough, or subtitles the container can hold). The same
/// protocol as a transcode with nothing inside: `send` re-times the packet and takes its data, `receive`
/// hands it straight back to the executor.
final class StreamCopyStage: StreamStage, MeasuresHoles {
    let inputIndex: Int32
    private(set) var isDone = false
    let outputStream: UnsafeMutablePointer<AVStream>
    private let inTimeBase: AVRational
    private let originTS: Int64
    private let endTS: Int64?
    /// DTS (output time base) of the latest packet passed on; `.min` before the first.
    private var lastDTS: Int64 = Int64.min
    /// Where the next packet's DTS is expected (output time base): the latest one's DTS plus its duration;
    /// `.min` before the first, or when that packet declared no duration.
    private var nextDTS: Int64 = Int64.min
    private let isAudio: Bool
    private let isVideo: Bool
    /// A video packet was dropped: what follows up to the next keyframe cannot decode and is dropped too.
    private var needsKeyframe = false
    /// Cutting at a start point: packets wholly before it are dropped (untrimmed, negative-time priming is kept) —
    /// except a video's lead-in (`keepsLeadIn`).
    private let trimmed: Bool
    /// A video cut whose frames from the keyframe before the start are copied with negative timestamps, for the
    /// output's edit list to hide (`PlannedTimeline.leadIn`): they are what the first shown frames decode from.
    private let keepsLeadIn: Bool
    /// A cut video waits for its first keyframe: what comes before it cannot decode.
    private var awaitingKeyframe: Bool
    /// The packet on its way to the muxer: the demuxed packet's data, moved in (no copy), reused for every packet.
    private let held = Packet()
    /// Packets ready for the muxer, in order: `held`, after any `beyondEnd` that a later frame shown needs.
    private var ready: [Packet] = []
    /// Packets decoded before the end but shown at or after it (B-frame reordering: the reference the last frames
    /// shown before the end are predicted from). Written only when such a frame follows; dropped at the end.
    private var beyondEnd: [Packet] = []
    private var ended = false

    /// A copied video's packets in the order shown, measured for holes as a transcode's frames are (nil for other
    /// streams, and for a video whose whole index shows a variable rate: a hole there is no frame lost).
    private var shown: ShownOrder?

    /// A copied H.264/HEVC video's NAL framing, whose packets are walked for damage (`NALFraming`).
    private let framing: NALFraming?

    /// The holes in the copied video's timestamps (`FrameHoles`), once ended.
    var measuredHoles: FrameHoles? { ended ? shown?.holes : nil }

    init(input stream: UnsafeMutablePointer<AVStream>, displayMatrix: [Int32]?, muxer: Muxer, timeline: Timeline, trimmed: Bool,
         leadIn: Bool = false, variableRate: Bool = true) throws {
        inputIndex = stream.pointee.index
        inTimeBase = stream.pointee.time_base
        isVideo = stream.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_VIDEO
        isAudio = stream.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_AUDIO
        self.trimmed = trimmed
        keepsLeadIn = leadIn && isVideo
        awaitingKeyframe = trimmed && isVideo
        originTS = timeline.origin(in: inTimeBase)
        endTS = timeline.end(in: inTimeBase)
        outputStream = try muxer.addStream()
        try check(avcodec_parameters_copy(outputStream.pointee.codecpar, stream.pointee.codecpar), .mux, muxer.path, "copying stream parameters")
        // Let the muxer pick its own tag for the codec (e.g. a .mov tag that is not valid in .mp4) — but not for HEVC
        // (`hvc1`, for Apple players) or ProRes (its tag names its flavour: the muxer would call ProRes LT `apcs` HQ, `apch`).
        let keepsTag: Set<UInt32> = [AV_CODEC_ID_HEVC.rawValue, AV_CODEC_ID_PRORES.rawValue]
        if !(keepsTag.contains(stream.pointee.codecpar.pointee.codec_id.rawValue) && muxer.container.isQuickTimeFamily) {
            outputStream.pointee.codecpar.pointee.codec_tag = 0
        }
        outputStream.pointee.time_base = inTimeBase
        outputStream.pointee.avg_frame_rate = stream.pointee.avg_frame_rate
        outputStream.pointee.r_frame_rate = stream.pointee.r_frame_rate
        copyStreamInfo(from: stream, to: outputStream, displayMatrix: displayMatrix ?? sourceMatrix(stream))
        framing = NALFraming(stream.pointee.codecpar.pointee)
        let base = stream.pointee.r_frame_rate
        if isVideo && !variableRate && base.num > 0 && base.den > 0 {
            shown = ShownOrder(FrameHoles(frameDuration: av_q2d(av_inv_q(base)), reorderDepth: Int(stream.pointee.codecpar.pointee.video_delay)))
        }
    }

    /// Re-times the packet onto the output timeline and takes its data. A packet whose DTS repeats or goes back
    /// gets the previous DTS + 1 (and a PTS not below it), as the ffmpeg CLI's muxer path does (`write_packet`:
    /// "Non-monotonous DTS … changing to"), counted as a repair; this is done in the output's time base, where
    /// the muxer needs the order. One that would have to move more than `TimestampRepair.maxLead` past its own
    /// time (a long run going back, which ffmpeg would crowd into consecutive ticks) cannot be placed: it is
    /// dropped and counted, and so is the video that depends on it, up to the next keyframe, until the stream's
    /// own timestamps move forward again. Packets outside the trim are left out uncounted.
    func send(_ packet: Packet) throws -> StageTally {
        guard !isDone else { return .none }
        let p = packet.pointer
        if outsideCut(p) { return .none }
        if awaitingKeyframe {
            guard (p.pointee.flags & AV_PKT_FLAG_KEY) != 0 else {
                // Before the cut it is only left out; after it, a frame lost.
                return p.pointee.pts != AVCode.noPTS && p.pointee.pts < originTS ? .none : StageTally(droppedFrames: 1)
            }
            awaitingKeyframe = false
        }
        if needsKeyframe {
            if (p.pointee.flags & AV_PKT_FLAG_KEY) == 0 { return StageTally(droppedFrames: 1) }
            needsKeyframe = false
        }
        let shownAfterEnd = endTS.map { p.pointee.pts != AVCode.noPTS && p.pointee.pts &- originTS >= $0 } ?? false
        if p.pointee.pts != AVCode.noPTS { p.pointee.pts &-= originTS }
        if p.pointee.dts != AVCode.noPTS { p.pointee.dts &-= originTS }
        // Where the source shows it (a repair below may move its timestamps to keep the order).
        let shownAt = p.pointee.pts
        p.pointee.stream_index = outputStream.pointee.index
        p.pointee.pos = -1
        // Audio is shown in the order it is decoded: its DTS is its time (the ffmpeg CLI's `do_streamcopy` sets an
        // audio copy's PTS from its DTS too). A PTS of its own can repeat where the DTS does not (an M4A whose
        // `ctts` shows its first two packets at one time), which Matroska, storing only PTS, would write as is.
        if isAudio && p.pointee.dts != AVCode.noPTS { p.pointee.pts = p.pointee.dts }
        av_packet_rescale_ts(p, inTimeBase, outputStream.pointee.time_base)
        var tally = StageTally.none
        stampUntimed(p)
        if !placeMonotonically(p, &tally) {
            if isVideo { needsKeyframe = true }
            return tally
        }
        if p.pointee.duration > 0, p.pointee.dts != AVCode.noPTS {
            nextDTS = p.pointee.dts &+ p.pointee.duration
        } else {
            nextDTS = Int64.min
        }
        if shownAfterEnd {
            let later = Packet()
            av_packet_move_ref(later.pointer, p)
            beyondEnd.append(later)
            return tally
        }
        if shownAt != AVCode.noPTS { shown?.note(Double(shownAt) * av_q2d(inTimeBase)) }
        // Copied as it is (the ffmpeg CLI copies it too), and counted: a player's decoder refuses it.
        if let framing, !framing.isWellFormed(p.pointee.data, size: Int(p.pointee.size)) { tally.damaged += 1 }
        // The executor writes each packet before sending the next, so `held` is always empty here.
        av_packet_unref(held.pointer)
        av_packet_move_ref(held.pointer, p)
        ready = beyondEnd + [held]
        beyondEnd = []
        return tally
    }

    /// True for a packet the cut leaves out: decoded at or after the end (which ends the stage), or wholly before
    /// the start (unless it is the video's lead-in).
    private func outsideCut(_ p: UnsafeMutablePointer<AVPacket>) -> Bool {
        let dts = p.pointee.dts != AVCode.noPTS ? p.pointee.dts : p.pointee.pts
        guard dts != AVCode.noPTS else { return false }
        if let endTS, dts &- originTS >= endTS {
            isDone = true
            beyondEnd = []  // shown after the end, and no frame before it needs them any more
            return true
        }
        return trimmed && !keepsLeadIn && p.pointee.pts != AVCode.noPTS && p.pointee.pts &+ max(p.pointee.duration, 1) <= originTS
    }

    /// Gives a packet with neither PTS nor DTS the time where the previous one ended (output time base), as the
    /// ffmpeg CLI's stream copy does (`ist->dts`, the predicted next DTS): an Ogg stream's last packet, which only
    /// carries the end trimming (`discard_padding`), comes without one, and a muxer left to guess would place it
    /// before the packets already written. Not before the stream's first packet, nor after one without a duration:
    /// then there is no prediction, and the packet goes on as it came.
    private func stampUntimed(_ p: UnsafeMutablePointer<AVPacket>) {
        guard p.pointee.dts == AVCode.noPTS, p.pointee.pts == AVCode.noPTS, nextDTS != Int64.min else { return }
        p.pointee.dts = nextDTS
        p.pointee.pts = nextDTS
    }

    /// Makes the packet's DTS (output time base) follow the previous one's, as ffmpeg's muxer path does; false
    /// when it cannot be placed (the tally says so).
    private func placeMonotonically(_ p: UnsafeMutablePointer<AVPacket>, _ tally: inout StageTally) -> Bool {
        if p.pointee.dts != AVCode.noPTS && p.pointee.pts != AVCode.noPTS && p.pointee.dts > p.pointee.pts {
            // DTS after PTS: both become the middle one of PTS, DTS and the next free DTS.
            let a = p.pointee.pts, b = p.pointee.dts, c = lastDTS == Int64.min ? b : lastDTS &+ 1
            let middle = max(min(a, b), min(max(a, b), c))
            p.pointee.pts = middle
            p.pointee.dts = middle
            tally.timestampRepairs += 1
        }
        let dts = p.pointee.dts != AVCode.noPTS ? p.pointee.dts : p.pointee.pts
        guard dts != AVCode.noPTS else { return true }
        if lastDTS != Int64.min && dts <= lastDTS {
            let placed = lastDTS &+ 1
            if Double(placed &- dts) * av_q2d(outputStream.pointee.time_base) > TimestampRepair.maxLead {
                tally.droppedFrames += 1
                return false
            }
            if p.pointee.dts != AVCode.noPTS {
                p.pointee.dts = placed
                if p.pointee.pts != AVCode.noPTS && p.pointee.pts < placed { p.pointee.pts = placed }
            } else {
                p.pointee.pts = placed
            }
            tally.timestampRepairs += 1
            lastDTS = placed
        } else {
            lastDTS = dts
        }
        return true
    }

    func sendEndOfStream() throws -> StageTally {
        ended = true
        shown?.finish()
        beyondEnd = []  // shown after the end, and nothing follows that needs them
        return .none
    }

    func receive() throws -> StageOutput {
        if !ready.isEmpty { return .packet(ready.removeFirst()) }
        return ended ? .finished : .needsInput
    }
}
