internal import CFFmpeg
import Foundation
import MediaExportCore

/// The bypass: demux → mux with no decoding (passthrough, or subtitles the container can hold). The same
/// protocol as a transcode with nothing inside: `send` re-times the packet and takes its data, `receive`
/// hands it straight back to the executor.
final class StreamCopyStage: StreamStage {
    let inputIndex: Int32
    private(set) var isDone = false
    let outputStream: UnsafeMutablePointer<AVStream>
    private let inTimeBase: AVRational
    private let originTS: Int64
    private let endTS: Int64?
    private var lastDTS: Int64 = Int64.min
    /// Cutting at a start point: packets wholly before it are dropped (untrimmed, negative-time priming is kept).
    private let trimmed: Bool
    /// The packet on its way to the muxer: the demuxed packet's data, moved in (no copy), reused for every packet.
    private let held = Packet()
    private var holding = false
    private var ended = false

    init(input stream: UnsafeMutablePointer<AVStream>, displayMatrix: [Int32]?, muxer: Muxer, timeline: Timeline, trimmed: Bool) throws {
        self.trimmed = trimmed
        inputIndex = stream.pointee.index
        inTimeBase = stream.pointee.time_base
        originTS = timeline.origin(in: inTimeBase)
        endTS = timeline.end(in: inTimeBase)
        outputStream = try muxer.addStream()
        try check(avcodec_parameters_copy(outputStream.pointee.codecpar, stream.pointee.codecpar), .mux, muxer.path, "copying stream parameters")
        // Let the muxer pick its own tag for the codec (e.g. a .mov tag that is not valid in .mp4).
        if !(stream.pointee.codecpar.pointee.codec_id == AV_CODEC_ID_HEVC && muxer.container.isQuickTimeFamily) {
            outputStream.pointee.codecpar.pointee.codec_tag = 0
        }
        outputStream.pointee.time_base = inTimeBase
        outputStream.pointee.avg_frame_rate = stream.pointee.avg_frame_rate
        outputStream.pointee.r_frame_rate = stream.pointee.r_frame_rate
        copyStreamInfo(from: stream, to: outputStream, displayMatrix: displayMatrix ?? sourceMatrix(stream))
    }

    func send(_ packet: Packet) throws -> StageTally {
        guard !isDone else { return .none }
        let p = packet.pointer
        let dts = p.pointee.dts != AVCode.noPTS ? p.pointee.dts : p.pointee.pts
        if dts != AVCode.noPTS {
            if let endTS, dts - originTS >= endTS { isDone = true; return .none }
            if trimmed && p.pointee.pts != AVCode.noPTS && p.pointee.pts + max(p.pointee.duration, 1) <= originTS {
                return .none  // wholly before the cut point
            }
            if dts <= lastDTS { return .none }  // non-monotonic: the muxer would reject it
            lastDTS = dts
        }
        if p.pointee.pts != AVCode.noPTS { p.pointee.pts -= originTS }
        if p.pointee.dts != AVCode.noPTS { p.pointee.dts -= originTS }
        p.pointee.stream_index = outputStream.pointee.index
        p.pointee.pos = -1
        av_packet_rescale_ts(p, inTimeBase, outputStream.pointee.time_base)
        // The executor writes each packet before sending the next, so `held` is always empty here.
        av_packet_unref(held.pointer)
        av_packet_move_ref(held.pointer, p)
        holding = true
        return .none
    }

    func sendEndOfStream() throws -> StageTally {
        ended = true
        return .none
    }

    func receive() throws -> StageOutput {
        if holding {
            holding = false
            return .packet(held)
        }
        return ended ? .finished : .needsInput
    }
}
