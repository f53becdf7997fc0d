internal import CFFmpeg
import Foundation
import MediaExportCore

/// The output timeline: input time `origin` becomes output time 0; output time `length` (if any) ends it.
struct Timeline {
    /// Input seconds (container clock) that map to output time 0.
    var origin: Double
    /// Output seconds to stop at; `nil` runs to the end.
    var length: Double?
    /// The plan's timeline, when slow motion stretches the output (nil: output time is input time).
    var slowMotion: PlannedTimeline?

    /// `ts` (a timestamp in `tb`, counted from the origin, on the source's clock) where it lands in the output.
    func outputTimestamp(_ ts: Int64, in tb: AVRational) -> Int64 {
        guard let slow = slowMotion else { return ts }
        return Int64(saturating: (slow.outputSeconds(Double(ts) * av_q2d(tb)) / av_q2d(tb)).rounded())
    }

    /// The length of the output, stretched by slow motion.
    var outputLength: Double? { length.map { slowMotion?.outputSeconds($0) ?? $0 } }

    func origin(in tb: AVRational) -> Int64 { Timeline.timestamp(origin, in: tb) }

    /// The end (`length`) in a stream's time base, if there is one.
    func end(in tb: AVRational) -> Int64? { length.map { Timeline.timestamp($0, in: tb) } }

    /// Seconds as a timestamp in `tb` (through AV_TIME_BASE, as libavformat rounds).
    static func timestamp(_ seconds: Double, in tb: AVRational) -> Int64 {
        av_rescale_q(Int64(saturating: (seconds * Double(AV_TIME_BASE)).rounded()), cff_time_base_q(), tb)
    }
}

/// What a stage did that the executor counts. Stages never count anything themselves: they report, and the
/// executor's loop (`Transcoder.run`) is the one place that adds up, so no counter is shared between stages.
struct StageTally: Equatable {
    /// Video frames given to an encoder (the progress frame count).
    var videoFrames = 0
    /// Damaged input skipped: a packet the decoder rejected as corrupt, or a frame it flagged as concealed.
    var damaged = 0
    /// Timestamps repaired: a discontinuity offset, a repeated or backwards timestamp re-stamped, a missing one filled.
    var timestampRepairs = 0
    /// Decoded frames (or copied packets) left out for a reason other than the trim, e.g. a timestamp that could
    /// not be repaired. Every one is counted: the `completed` record's `droppedFrames`.
    var droppedFrames = 0

    /// Nothing to count.
    static let none = StageTally()
    /// One damaged packet or frame.
    static let oneDamaged = StageTally(damaged: 1)
}

/// What a stage hands back when the executor asks it for output. Running out of work is a result, not an error
/// (as rsmpeg's "need more input" / "drained"); only real failures throw.
enum StageOutput {
    /// A packet for the muxer, with the output stream's index and timestamps in its time base. It is the
    /// stage's own reusable packet: the executor writes it (which empties it) before asking again, so a stage
    /// never holds more than one packet and nothing queues up between stage and muxer.
    case packet(Packet)
    /// Work done that the executor counts; ask again.
    case tally(StageTally)
    /// Nothing more until the next packet of the stage's stream (or the end of stream).
    case needsInput
    /// End of stream has flowed through the stage (decoder, then filters, then encoder, drained in that order).
    case finished
}

/// One input stream's way from demuxer to muxer, driven by the executor (shaped like FFmpeg 7's scheduler:
/// components talk only to the scheduler, never to each other or to the muxer).
///
/// The executor gives a stage one demuxed packet with `send`, then calls `receive` until `.needsInput`,
/// writing each `.packet` at once; at the end it calls `sendEndOfStream` and `receive` until `.finished`.
/// A transcoding stage works lazily inside `receive` (one decoded frame at a time, encoder output first), so
/// memory stays bounded by what the codecs themselves buffer. Stream copy is the same protocol with nothing
/// inside: a bypass from demuxer to muxer.
protocol StreamStage: AnyObject {
    /// Input stream index.
    var inputIndex: Int32 { get }
    /// The muxer's stream the stage's packets go to (its time base is the muxer's once the header is written).
    var outputStream: UnsafeMutablePointer<AVStream> { get }
    /// True once the stage needs no more input (trim end reached): the executor may stop reading.
    var isDone: Bool { get }
    /// Takes one demuxed packet of the stage's stream. The stage may take the packet's data (the bypass does,
    /// to pass it on without a copy); the caller unrefs the packet afterwards either way.
    func send(_ packet: Packet) throws -> StageTally
    /// End of input: the stage starts draining (decoder, then filters, then encoder) on the next `receive`s.
    func sendEndOfStream() throws -> StageTally
    /// The next thing the stage has for the executor.
    func receive() throws -> StageOutput
}

/// Where a transcoding stage is in its life. End of stream moves it strictly forward, one component at a time.
enum TranscodePhase {
    /// Taking packets.
    case running
    /// End of stream sent to the decoder; its last frames are being pulled.
    case drainingDecoder
    /// The decoder is drained; the resampler's FIFO gives up its last (possibly short) frames (audio only).
    case drainingResampler
    /// End of stream sent to the encoder; its last packets are being pulled.
    case drainingEncoder
    /// Everything drained.
    case finished
}

/// Readies an encoder's packet for the muxer: the output stream's index, a duration when the encoder gave
/// none, and timestamps moved from the encoder's time base to the stream's.
func prepareEncoded(_ packet: Packet, from encoder: StreamEncoder, to stream: UnsafeMutablePointer<AVStream>, defaultDuration: Int64) {
    let p = packet.pointer
    p.pointee.stream_index = stream.pointee.index
    if p.pointee.duration <= 0 { p.pointee.duration = defaultDuration }
    av_packet_rescale_ts(p, encoder.context.pointee.time_base, stream.pointee.time_base)
}

/// Carries over what belongs to a stream beyond its codec: language and other tags, disposition, and the
/// display matrix (rotation). The matrix is kept rather than rotating pixels — never both. Not the `timecode` tag:
/// the MP4/MOV muxer makes a timecode track of it, so only the plan's (`TimecodePlan`) is set, by the executor.
func copyStreamInfo(from input: UnsafeMutablePointer<AVStream>, to output: UnsafeMutablePointer<AVStream>, displayMatrix: [Int32]?) {
    av_dict_copy(&output.pointee.metadata, input.pointee.metadata, 0)
    for key in ["encoder", "rotate", "timecode"] { av_dict_set(&output.pointee.metadata, key, nil, 0) }
    output.pointee.disposition = input.pointee.disposition
    if let displayMatrix, displayMatrix.count == 9,
       let dst = av_stream_new_side_data(output, AV_PKT_DATA_DISPLAYMATRIX, 36) {
        dst.withMemoryRebound(to: Int32.self, capacity: 9) { p in
            for i in 0..<9 { p[i] = displayMatrix[i] }
        }
    }
}

/// Leaves out the stream tags the metadata level drops and writes its `neutral` values (`MetadataPlan`; the
/// container's are left out of the output's tags already), and gives the stream its source's `language` as the
/// container stores it (`Container.language`: MOV knows French as `fra`, not `fre`; none for a language it cannot
/// store), which is what the verifier expects.
func setStreamTags(_ output: UnsafeMutablePointer<AVStream>, dropping keys: [String], neutral: [String: String], language: String?,
                   container: Container) {
    for key in keys { av_dict_set(&output.pointee.metadata, key, nil, 0) }
    for (key, value) in neutral.sorted(by: { $0.key < $1.key }) { av_dict_set(&output.pointee.metadata, key, value, 0) }
    if let language { av_dict_set(&output.pointee.metadata, "language", container.language(language), 0) }
}

/// A stage that measures the holes in its video's timestamps (`FrameHoles`): the transcode of a video, and its copy.
protocol MeasuresHoles {
    /// The holes measured, once the stream ended; nil when not measured (a variable rate, another kind of stream).
    var measuredHoles: FrameHoles? { get }
}
