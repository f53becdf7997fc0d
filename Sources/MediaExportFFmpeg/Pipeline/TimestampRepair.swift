internal import CFFmpeg
import MediaExportCore

/// Keeps one input's timeline continuous across timestamp discontinuities, before its packets reach their stages:
/// the ffmpeg CLI's `ifile->ts_offset` (`process_input` in FFmpeg 5.1's `fftools/ffmpeg.c`).
///
/// Formats that may restart their clock (`AVFMT_TS_DISCONT`: MPEG-TS, MPEG-PS…) are offset when a stream's DTS
/// jumps more than `jumpThreshold` (ffmpeg's `-dts_delta_threshold`, 10 s) either way from where its previous
/// packet predicted it, or goes back more than `backThreshold` (0.1 s): two recordings joined with `cat`, a
/// camera's clock reset, a 33-bit wrap libavformat did not unwrap. Other formats keep their timestamps unless a
/// jump is beyond any real gap (longer than the whole file, or than ffmpeg's `-dts_error_threshold`, 30 h): a
/// broken sample delta in an MP4. The offset belongs to the whole input, so audio and video stay together.
///
/// Packets of a stream that still come from before the jump (MPEG-TS interleaves audio and video loosely, so
/// audio from the end of the first recording often follows video from the start of the second) keep the
/// offset they had while they continue their own stream better with it: ffmpeg re-offsets the input for them
/// again, back and forth; one input-wide offset per stream's side of the jump avoids that.
///
/// Fixed-size state (one entry per stream, allocated once); nothing is allocated per packet, and a packet of a
/// clean input costs a few integer comparisons.
final class TimestampRepair {
    /// ffmpeg's `-dts_delta_threshold`: a larger jump of a discontinuous format is a discontinuity.
    static let jumpThreshold = 10.0
    /// ffmpeg's test for a backwards jump of a discontinuous format (`pkt_dts + AV_TIME_BASE/10 < ist->dts`).
    static let backThreshold = 0.1
    /// ffmpeg's `-dts_error_threshold`: no gap in any format is longer (30 hours).
    static let errorThreshold = 108_000.0
    /// How far a re-stamped frame or packet may be moved: a video frame no further ahead of the input's read
    /// position while audio is kept (else video would run away from the audio), a copied packet no further
    /// past its own time. Beyond it, it is dropped and counted instead.
    static let maxLead = 2.0

    /// One input stream's state, in its own time base.
    private struct Track {
        /// Audio or video: its packets are watched for jumps (others only follow the input's offset).
        var watched = false
        /// Its stage has been given the input's clock.
        var attached = false
        var isAudio = false
        var timeBase = AVRational(num: 1, den: 1)
        /// The input offset this stream's latest packet was given, in microseconds and in ticks.
        var offsetMicros: Int64 = 0
        var offsetTicks: Int64 = 0
        /// DTS of the latest packet (offset applied), and where the next one is expected.
        var last = AVCode.noPTS
        var next = AVCode.noPTS
        /// Duration of a packet that declares none (a frame at the stream's rate, an audio frame), in ticks.
        var defaultDuration: Int64 = 0
        /// A jump of more than this many ticks is a discontinuity.
        var jumpTicks: Int64 = .max
        /// A step back of more than this many ticks is a discontinuity (formats with discontinuities only).
        var backTicks: Int64 = 0
        /// One turn of the stream's timestamp counter (2^33 ticks in MPEG-TS), 0 when it does not wrap.
        var wrapTicks: Int64 = 0
    }

    private let tracks: UnsafeMutablePointer<Track>
    private let count: Int
    /// The format may restart its clock (`AVFMT_TS_DISCONT`).
    private let discontinuous: Bool
    /// The input's offset in microseconds (ffmpeg's `ifile->ts_offset`).
    private var offsetMicros: Int64 = 0
    /// The stream of the latest packet with a DTS (ffmpeg's `ifile->last_ts` is that packet's DTS).
    private var lastIndex = -1
    /// Where reading is, on the repaired timeline, for frames re-stamped downstream.
    let clock = InputClock()

    /// State for the streams of `context`, whose format says whether discontinuities are expected.
    init(context: UnsafeMutablePointer<AVFormatContext>) {
        count = Int(context.pointee.nb_streams)
        tracks = .allocate(capacity: max(count, 1))
        tracks.initialize(repeating: Track(), count: max(count, 1))
        let discontinuous = (context.pointee.iformat.pointee.flags & AVFMT_TS_DISCONT) != 0
        self.discontinuous = discontinuous
        // A file that says how long it is has no gap longer than itself (unless that length was guessed from
        // the bit rate).
        var limit = TimestampRepair.errorThreshold
        let declared = context.pointee.duration
        if declared > 0 && declared != AVCode.noPTS && av_fmt_ctx_get_duration_estimation_method(context) != AVFMT_DURATION_FROM_BITRATE {
            limit = min(limit, Double(declared) / Double(AV_TIME_BASE) + TimestampRepair.jumpThreshold)
        }
        for i in 0..<count {
            guard let stream = context.pointee.streams[i] else { continue }
            let par = stream.pointee.codecpar.pointee
            let tb = stream.pointee.time_base
            guard tb.num > 0 && tb.den > 0 else { continue }
            var t = Track()
            t.timeBase = tb
            t.isAudio = par.codec_type == AVMEDIA_TYPE_AUDIO
            // Cover art's one picture has no place on the timeline (none, or 0 after a seek): it predicts nothing.
            let picture = (stream.pointee.disposition & cff_disposition_attached_pic()) != 0
            t.watched = t.isAudio || (par.codec_type == AVMEDIA_TYPE_VIDEO && !picture)
            t.jumpTicks = TimestampRepair.ticks(discontinuous ? TimestampRepair.jumpThreshold : limit, tb)
            if discontinuous { t.backTicks = TimestampRepair.ticks(TimestampRepair.backThreshold, tb) }
            if stream.pointee.pts_wrap_bits > 0 && stream.pointee.pts_wrap_bits < 63 { t.wrapTicks = Int64(1) << stream.pointee.pts_wrap_bits }
            if t.isAudio {
                if par.frame_size > 0 && par.sample_rate > 0 {
                    t.defaultDuration = av_rescale_q(Int64(par.frame_size), AVRational(num: 1, den: par.sample_rate), tb)
                }
            } else if par.codec_type == AVMEDIA_TYPE_VIDEO {
                let rate = av_guess_frame_rate(context, stream, nil)
                if rate.num > 0 && rate.den > 0 { t.defaultDuration = av_rescale_q(1, av_inv_q(rate), tb) }
            }
            tracks[i] = t
        }
    }

    deinit {
        tracks.deinitialize(count: max(count, 1))
        tracks.deallocate()
    }

    /// Seconds as ticks of `tb`.
    private static func ticks(_ seconds: Double, _ tb: AVRational) -> Int64 {
        av_rescale_q(Int64(saturating: seconds * Double(AV_TIME_BASE)), cff_time_base_q(), tb)
    }

    /// Places one demuxed packet of `stage`'s stream on the input's continuous timeline (before the stage sees
    /// it) and says whether that repaired it (a discontinuity offset, or a duration as long as a jump: one
    /// repair per packet).
    func repair(_ packet: Packet, for stage: StreamStage) -> StageTally {
        let p = packet.pointer
        let i = Int(p.pointee.stream_index)
        guard i >= 0 && i < count else { return .none }
        let t = tracks + i
        if !t.pointee.attached {
            t.pointee.attached = true
            (stage as? ClockedStage)?.inputClock = clock
        }
        var dts = p.pointee.dts
        var pts = p.pointee.pts
        follow(t, dts: dts)
        let offset = t.pointee.offsetTicks
        if dts != AVCode.noPTS { dts &+= offset }
        if pts != AVCode.noPTS { pts &+= offset }
        var repaired = 0
        if t.pointee.watched && dts != AVCode.noPTS {
            if let delta = jump(t, index: i, dts: dts) {
                dts &-= delta
                if pts != AVCode.noPTS { pts &-= delta }
                t.pointee.offsetTicks &-= delta
                offsetMicros = av_rescale_q(t.pointee.offsetTicks, t.pointee.timeBase, cff_time_base_q())
                t.pointee.offsetMicros = offsetMicros
                repaired = 1
            }
            // A duration that is itself a jump (an MP4's broken sample delta is both) is replaced by the stream's
            // usual one: muxers that store durations would write it, and it predicts nothing.
            if p.pointee.duration > t.pointee.jumpTicks {
                p.pointee.duration = t.pointee.defaultDuration
                repaired = 1
            }
            t.pointee.last = dts
            t.pointee.next = dts &+ (p.pointee.duration > 0 ? p.pointee.duration : t.pointee.defaultDuration)
            lastIndex = i
            clock.note(dts, t.pointee.timeBase, audio: t.pointee.isAudio)
        }
        if offset != 0 || repaired != 0 {
            p.pointee.dts = dts
            p.pointee.pts = pts
        }
        return repaired == 0 ? .none : StageTally(timestampRepairs: repaired)
    }

    /// Gives the stream the input's offset when the input moved since its latest packet, unless this packet (`dts`
    /// on its own clock) continues the stream better with the offset it had: it still comes from before the jump.
    private func follow(_ t: UnsafeMutablePointer<Track>, dts: Int64) {
        guard t.pointee.offsetMicros != offsetMicros else { return }
        let current = av_rescale_q(offsetMicros, cff_time_base_q(), t.pointee.timeBase)
        var stays = false
        if t.pointee.watched && t.pointee.next != AVCode.noPTS && dts != AVCode.noPTS {
            stays = (dts &+ t.pointee.offsetTicks &- t.pointee.next).magnitude < (dts &+ current &- t.pointee.next).magnitude
        }
        if !stays {
            t.pointee.offsetMicros = offsetMicros
            t.pointee.offsetTicks = current
        }
    }

    /// The discontinuity at `dts` (offset applied) of stream `i`, in its ticks: how far it jumped from where the
    /// stream was expected, or (its first packet) from where the input is; nil when there is none.
    private func jump(_ t: UnsafeMutablePointer<Track>, index i: Int, dts: Int64) -> Int64? {
        var found: Int64? = nil
        if t.pointee.next != AVCode.noPTS {
            let delta = dts &- t.pointee.next
            if delta.magnitude > t.pointee.jumpTicks.magnitude || (discontinuous && dts &+ t.pointee.backTicks < t.pointee.last) {
                found = delta
            }
        } else if discontinuous && lastIndex >= 0 && lastIndex != i {
            // A stream's first packet, far from where the input is (ffmpeg's "inter stream" discontinuity).
            let other = tracks + lastIndex
            let delta = dts &- av_rescale_q(other.pointee.last, other.pointee.timeBase, t.pointee.timeBase)
            if delta.magnitude > t.pointee.jumpTicks.magnitude { found = delta }
        }
        guard var delta = found else { return nil }
        // A turn of the counter is taken exactly, so that the time between packets stays as it was, when
        // what is left after it would be no discontinuity (else it is a jump that is near a turn by chance).
        let wrap = t.pointee.wrapTicks
        if wrap > 0 {
            let forward = delta &- wrap, back = delta &+ wrap
            if back >= -t.pointee.backTicks && back <= t.pointee.jumpTicks { delta = -wrap }
            else if forward >= -t.pointee.backTicks && forward <= t.pointee.jumpTicks { delta = wrap }
        }
        return delta
    }
}

/// A stage that places frames against the input's read position (`InputClock`); the repairer hands it the clock
/// with its stream's first packet.
protocol ClockedStage: AnyObject {
    var inputClock: InputClock? { get set }
}

/// How far an input has been read, on its repaired timeline: what a stage re-stamping frames measures against
/// so that its stream does not run away from the others. Written only by the executor's loop (through
/// `TimestampRepair`), read by stages on the same thread.
final class InputClock {
    /// The furthest DTS read of the input's audio and video streams, in seconds; nil before the first.
    private(set) var seconds: Double?
    /// True once a packet of an audio stream that is kept was read.
    private(set) var hasAudio = false

    fileprivate func note(_ dts: Int64, _ tb: AVRational, audio: Bool) {
        let s = Double(dts) * Double(tb.num) / Double(tb.den)
        if seconds == nil || s > seconds! { seconds = s }
        if audio { hasAudio = true }
    }

    /// True when a frame placed at `seconds` (input clock) would lead the audio and video read so far by more
    /// than `TimestampRepair.maxLead`: video running away from audio. Never without audio.
    func runsAway(_ seconds: Double) -> Bool { reading.runsAway(seconds) }

    /// The clock as it reads now: what a frame decoded on another thread (`DecodeThread`) is compared with, as it
    /// would have been when decoded right after its packet.
    var reading: Reading { Reading(seconds: seconds, hasAudio: hasAudio) }

    /// A reading of the clock, a plain value.
    struct Reading: Sendable {
        let seconds: Double?
        let hasAudio: Bool

        /// See `InputClock.runsAway(_:)`.
        func runsAway(_ seconds: Double) -> Bool {
            guard hasAudio, let read = self.seconds else { return false }
            return seconds - read > TimestampRepair.maxLead
        }
    }
}
