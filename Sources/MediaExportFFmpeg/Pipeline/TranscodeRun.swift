internal import CFFmpeg
import MediaExportCore

extension Transcoder {
    /// What a finished run reports besides the file.
    package struct Outcome {
        /// Corrupt packets and frames skipped, and video frames lost (the `completed` record's `skippedPackets`:
        /// `Damage.counted`).
        package var skippedPackets: Int
        /// The plan's notes, for the `completed` record.
        package var notes: [String]
        /// Timestamps repaired (discontinuities offset, repeated or backwards timestamps re-stamped).
        package var timestampRepairs: Int = 0
        /// Frames or packets left out that the plan kept (not the trim): each is counted.
        package var droppedFrames: Int = 0
        /// Video frames given to the encoder (transcode) or video packets written (copy) of the main video.
        package var videoFrames: Int = 0
        /// The checks of the output against the plan (all passed: a failed check throws `verificationFailed`).
        package var verification: Verification
        /// Kept streams that came out shorter than planned because damaged input was skipped, as warnings.
        package var shortfalls: [String] = []
        /// Breaks in transcoded audio streams bridged to keep them on their pictures (silence inserted, audio dropped).
        package var audioGaps: [AudioGap] = []
        /// Frames missing where a transcoded video's timestamps jump ahead at a constant frame rate (in `skippedPackets`).
        package var lostFrames: [LostFrames] = []
        /// What the main video's encoder produced: what a sample encode measures.
        package var videoOutput = EncodedVideo()
        /// What the verifier read of the finished output (nil when nothing was written).
        package var output: OutputFacts?
        /// A salvage's damage (where the data ends, packets that did not decode): the output is partial. nil otherwise.
        package var partialCause: String?
        /// The damage met, counted apart; nil when none was.
        package var damage: ExportEvent.Damage?
        /// The main video's quality as measured during the encode (`Transcoder.scoring`); nil when not asked.
        package var scores: FrameScores?
    }

    /// The main video's encoded packets, counted as they are written.
    package struct EncodedVideo: Sendable, Equatable {
        /// Packets (frames) written.
        package var frames = 0
        /// Bytes of all of them.
        package var bytes: Int64 = 0
        /// Keyframes among them, and their bytes.
        package var keyframes = 0
        package var keyframeBytes: Int64 = 0
        /// The first packet's bytes (an encode's first frame is a keyframe the encoder had to make, not one the
        /// content asked for: what a sample encode weighs apart).
        package var firstBytes: Int64 = 0
        /// The packets inside `Transcoder.measuredWindow`, and their bytes (a sample's measured frames).
        package var windowFrames = 0
        package var windowBytes: Int64 = 0
    }

    /// Each output stream's packets written so far: their bytes and the output time they cover (`Transcoder.written`),
    /// what progress projects the final size from (`OutputSize.projectedBytes(plan:source:written:fraction:)`). Changed
    /// and read on the run's own thread, between packets.
    package final class WrittenSoFar {
        /// Per output stream, in the output's order.
        package private(set) var streams: [OutputSize.WrittenStream] = []

        /// Nothing written yet, for `outputs` output streams.
        func reset(outputs: Int) {
            streams = Array(repeating: .init(bytes: 0, covered: 0), count: outputs)
        }

        /// A packet of `bytes` of output stream `j`; its packets so far span `covered` seconds (nil: none had a time).
        func note(stream j: Int, bytes: Int, covered: Double?) {
            guard j < streams.count else { return }
            if streams[j].bytes == 0 { streams[j].firstBytes = Int64(bytes) }
            streams[j].bytes += Int64(bytes)
            if let covered { streams[j].covered = max(streams[j].covered, covered) }
        }
    }

    /// Which pass of a two-pass encode a run is, and the encoder's statistics file (written by the first, read by
    /// the second).
    package enum EncoderPass: Sendable, Equatable {
        case first(log: String)
        case second(log: String)
    }

    /// The run's counters. Only the executor's loop changes them, from the packets it writes and the tallies
    /// stages report.
    struct Counts {
        /// Furthest output time written, in seconds.
        var outputTime: Double = 0
        /// Video frames given to an encoder.
        var videoFrames = 0
        /// Corrupt packets the demuxer or decoders gave up on and the pipeline skipped, plus frames decoders
        /// flagged corrupt.
        var skippedPackets = 0
        /// The output time when the first corrupt packet was skipped.
        var firstSkipAt: Double?
        /// Timestamps repaired.
        var timestampRepairs = 0
        /// Frames or packets left out that the plan kept.
        var droppedFrames = 0
        /// Per input stream: the furthest end of its packets read, seconds on the source's clock (where its data
        /// ends: the truncation check's measure, apart from what decoding made of it).
        var inputEnd: [Double?]
        /// Seconds per tick of each input stream's time base.
        var inputBases: [Double]

        /// Notes where an input packet ends (before a stage takes it).
        mutating func noteRead(_ p: AVPacket) {
            let i = Int(p.stream_index)
            guard i >= 0 && i < inputEnd.count else { return }
            inputPackets[i] += 1
            guard p.pts != AVCode.noPTS else { return }
            let start = Double(p.pts) * inputBases[i]
            let end = Double(p.pts + max(0, p.duration)) * inputBases[i]
            inputEnd[i] = max(inputEnd[i] ?? end, end)
            inputStart[i] = min(inputStart[i] ?? start, start)
            coverage.note(stream: i, offset: p.pos, size: Int(p.size), start: start, end: end)
        }
        /// The bytes of the input its packets came from (a hole in them: a stretch the demuxer could not read).
        var coverage: ByteCoverage
        /// Per input stream: the earliest packet start read (an Opus stream may begin well before 0).
        var inputStart: [Double?]
        /// Per input stream: packets read (a video's frames, held against the count its header declares).
        var inputPackets: [Int]

        /// Per output stream: packets written, the earliest start and the furthest end, in seconds.
        var packets: [Int]
        /// Per output stream: packets written at or after time 0 (or without a time): what an edit list shows.
        var shownPackets: [Int]
        var firstTime: [Double?]
        var endTime: [Double?]
        /// Per output stream: the durations of packets written without a timestamp, added up (elementary streams give
        /// most packets none; the muxer places them one after the other).
        var summed: [Double]

        /// Nothing counted yet, for `outputs` output streams and input streams of these time bases (seconds a tick);
        /// `coverage` knows the input's audio bit rates.
        init(outputs: Int, inputBases: [Double], coverage: ByteCoverage = ByteCoverage()) {
            self.coverage = coverage
            packets = Array(repeating: 0, count: outputs)
            shownPackets = Array(repeating: 0, count: outputs)
            firstTime = Array(repeating: nil, count: outputs)
            endTime = Array(repeating: nil, count: outputs)
            summed = Array(repeating: 0, count: outputs)
            inputEnd = Array(repeating: nil, count: inputBases.count)
            inputStart = Array(repeating: nil, count: inputBases.count)
            inputPackets = Array(repeating: 0, count: inputBases.count)
            self.inputBases = inputBases
        }

        mutating func add(_ tally: StageTally) {
            videoFrames += tally.videoFrames
            skippedPackets += tally.damaged
            timestampRepairs += tally.timestampRepairs
            droppedFrames += tally.droppedFrames
        }

        /// What was written of each output stream (`kept`, in the output's order), for the verifier.
        /// `fromZero`: the container reads back from 0 (MP4/MOV hide what comes before 0 behind their edit list:
        /// priming, an Opus stream's pre-skip).
        func delivered(kept: [StreamDecision], lostFrames: [LostFrames], fromZero: Bool) -> [DeliveredStream] {
            (0..<packets.count).map { j in
                // The span of the timestamps written, or the packets' durations added up when few packets had one.
                let first = fromZero ? max(0, firstTime[j] ?? 0) : (firstTime[j] ?? 0)
                let span = endTime[j].map { $0 - first }
                let written = (span ?? 0) + summed[j]
                let missing = j < kept.count ? lostFrames.filter { $0.stream == kept[j].index }.reduce(0) { $0 + $1.seconds } : 0
                return DeliveredStream(packets: packets[j], duration: span == nil && written == 0 ? nil : written, missing: missing,
                                       shown: fromZero ? shownPackets[j] : packets[j])
            }
        }
    }

    /// What the steps of one run share (`run`: start, pump, drain, finish): the muxer, the stages, the counts; and
    /// the one place packets reach the muxer.
    struct RunState {
        let muxer: Muxer
        /// The stages, in the output's order.
        var stages: [StreamStage]
        /// Input stream index → its stage: a plain array, looked up once per packet.
        var byInput: [StreamStage?]
        var counts: Counts
        /// The main video's encoded packets (`Outcome.videoOutput`).
        var video = EncodedVideo()
        /// The main video's input stream: the first transcoded video.
        let mainVideo: Int32?
        /// Input streams whose packets are not written (`debugLoseStreamKind`).
        let lost: Set<Int32>
        /// What the output's streams have been given so far (the transcoder's `written`).
        let written: WrittenSoFar
        /// The main video's frames counted apart (`Transcoder.measuredWindow`).
        let measuredWindow: Range<Double>?
        let cancel: CancelToken

        /// The one place packets reach the muxer: the output time advances with each packet written.
        mutating func write(_ packet: Packet, of stage: StreamStage) throws {
            if !lost.isEmpty && lost.contains(stage.inputIndex) { packet.unref(); return }
            let p = packet.pointer.pointee  // its timing and size, read before the muxer takes the data
            defer { packet.unref() }  // the muxer took the data; this only resets the stage's packet for reuse
            guard try muxer.write(packet, rejectsDamage: stage is StreamCopyStage) else { counts.skippedPackets += 1; return }
            count(p, of: stage)
        }

        /// Counts a packet written: the output time advances with it.
        private mutating func count(_ p: AVPacket, of stage: StreamStage) {
            let j = Int(stage.outputStream.pointee.index)
            // The stream's time base is the muxer's now (the header may have changed it).
            let tb = av_q2d(stage.outputStream.pointee.time_base)
            // A packet without a presentation time (MPEG-PS gives many none) is placed by its decode time; one with
            // neither follows the one before it (the muxer places it so).
            let time = p.pts != AVCode.noPTS ? p.pts : p.dts
            if time != AVCode.noPTS {
                let start = Double(time) * tb, end = Double(time + p.duration) * tb
                counts.outputTime = max(counts.outputTime, end)
                if j < counts.packets.count {
                    counts.firstTime[j] = min(counts.firstTime[j] ?? start, start)
                    counts.endTime[j] = max(counts.endTime[j] ?? end, end)
                }
            } else if j < counts.summed.count && p.duration > 0 {
                counts.summed[j] += Double(p.duration) * tb
            }
            let span = j < counts.endTime.count ? counts.endTime[j].map { $0 - (counts.firstTime[j] ?? $0) } : nil
            written.note(stream: j, bytes: Int(p.size), covered: span)
            if j < counts.packets.count {
                counts.packets[j] += 1
                if time == AVCode.noPTS || time >= 0 { counts.shownPackets[j] += 1 }
            }
            if stage.inputIndex == mainVideo {
                if video.frames == 0 { video.firstBytes = Int64(p.size) }
                video.frames += 1
                video.bytes += Int64(p.size)
                if (p.flags & AV_PKT_FLAG_KEY) != 0 { video.keyframes += 1; video.keyframeBytes += Int64(p.size) }
                // The window is measured from the first frame (the first packet written is the first shown).
                if let window = measuredWindow, time != AVCode.noPTS, j < counts.firstTime.count,
                   window.contains(Double(time) * tb - (counts.firstTime[j] ?? 0)) {
                    video.windowFrames += 1
                    video.windowBytes += Int64(p.size)
                }
            }
        }

        /// Asks a stage for everything it has ready, writing each packet as soon as it comes: nothing queues.
        /// `reporting`: progress is told after each packet or frame (while draining, when no packet is read: an
        /// encoder's lookahead can take minutes to flush on a slow machine, and the stall watchdog must see it work).
        mutating func takeReady(from stage: StreamStage, reporting: Bool = false, progress: RunProgress) throws {
            while true {
                switch try stage.receive() {
                case .packet(let packet): try write(packet, of: stage)
                case .tally(let tally): counts.add(tally)
                case .needsInput, .finished: return
                }
                if reporting {
                    if cancel.isSet { throw ExportError.cancelled }
                    progress(counts.outputTime, counts.videoFrames, false)
                }
            }
        }
    }
}
