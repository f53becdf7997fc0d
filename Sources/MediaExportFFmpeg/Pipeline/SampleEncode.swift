internal import CFFmpeg
import Foundation
import MediaExportCore
#if canImport(Glibc)
import Glibc
#endif

/// Measures what a CRF encode of the main video will cost, on a few short samples of the source encoded exactly as
/// the plan says (same size, filters, encoder settings) into FFmpeg's `null` muxer: the `started` record's
/// `estimatedBytes`, and the ceiling of a size limit's bit rate. About 3 % of the frames, at least 24, in three
/// samples spread over the timeline: a bounded cost next to the export itself. The transcoded audio rides along: an
/// encoder given a silent or quiet track spends far less than its nominal rate.
package enum SampleEncode {
    /// The rates a full encode of `plan` is expected to have (a stretch under 90 frames is encoded whole); nil when
    /// the plan encodes no video by CRF, slow motion is applied, or a sample fails (the estimate then falls back to
    /// the preset's figures). `codecs` as for `Transcoder`.
    package static func rates(source: ProbedSource, plan: ExportPlan, cancel: CancelToken, codecs: CodecRun = CodecRun(),
                              activity: () -> Void) -> OutputSize.Measured? {
        guard let run = Run(source: source, plan: plan, cancel: cancel, codecs: codecs),
              case .transcodeVideo(let video) = plan.streams[run.k].action else { return nil }
        let (length, fps) = (run.stretch, run.fps)
        let frames = length * fps
        // Under 90 frames three samples would be most of it, and each would lean on a keyframe of its own: the whole
        // stretch is encoded instead (a few seconds at most), and its rate is measured, not guessed.
        guard frames >= 90 else {
            guard let whole = run.encode(from: 0, length: length, lead: 0, activity: activity), whole.video.bytes > 0 else { return nil }
            return OutputSize.Measured(video: Double(whole.video.bytes) * 8 / length, audio: whole.audioRates).capped(by: video)
        }
        // About 3 % of the frames, at least 24, in three samples spread over the stretch (one alone can land on a still
        // scene: a third of the real size, measured).
        let samples = 3
        let perSample = min(60, max(8, (max(24, frames * 0.03) / Double(samples)).rounded()))
        let sampleLength = perSample / fps
        var total = Sampled()
        for s in 0..<samples {
            if cancel.isSet { return nil }
            let middle = length * Double(2 * s + 1) / Double(2 * samples)
            guard let one = run.sample(from: max(0, middle - sampleLength / 2), length: sampleLength, activity: activity) else { return nil }
            total.add(one)
        }
        let v = total.video
        // Frames a second as the samples had them: a source that repeats frames by leaving them out (an AVI's empty
        // packets, a screen recording) gives fewer than its nominal rate.
        let shown = min(fps, Double(v.windowFrames) / (Double(samples) * sampleLength))
        // Only each sample's first keyframe is forced by the cut; scene-cut keyframes are the content's own, and a
        // full encode has them too: they count as ordinary frames.
        guard let measured = OutputSize.videoBitrate(sampleFrames: v.windowFrames + samples, bytes: v.windowBytes + v.firstBytes,
                                                     keyframes: samples, keyframeBytes: v.firstBytes, frameRate: shown,
                                                     duration: length) else { return nil }
        return OutputSize.Measured(video: measured, audio: total.audioRates).capped(by: video)
    }

    /// What sample encodes wrote: the main video's packets (`firstBytes` summed: each sample's forced keyframe), and
    /// each transcoded audio stream's (by source stream index).
    struct Sampled {
        var video = Transcoder.EncodedVideo()
        var audio: [Int: OutputSize.WrittenStream] = [:]
        /// The measured frames' scores, when the run was scored (`Run.scoring`).
        var scores: FrameScores?

        mutating func add(_ other: Sampled) {
            video.frames += other.video.frames
            video.windowFrames += other.video.windowFrames
            video.windowBytes += other.video.windowBytes
            video.firstBytes += other.video.firstBytes
            video.bytes += other.video.bytes
            for (i, a) in other.audio {
                audio[i, default: .init(bytes: 0, covered: 0)].bytes += a.bytes
                audio[i, default: .init(bytes: 0, covered: 0)].covered += a.covered
            }
        }

        /// Bits a second of each audio stream that covered any time.
        var audioRates: [Int: Double] {
            audio.filter { $0.value.covered > 0 }.mapValues { Double($0.bytes) * 8 / $0.covered }
        }
    }

    /// Frames encoded before and after each sample's measured ones: a sample that starts on a fresh keyframe and ends
    /// the stream measures low (its first frames lean on that keyframe; its last see no future in the encoder's
    /// lookahead, which a full encode's frames do): 0.5–0.8 of the real rate on camera files without them, 0.8–1.3
    /// with 4 on either side (bench/estimate-accuracy.sh).
    static let margin = 4.0

    /// One export's sample encodes: the main video (plan stream `k`) and the transcoded audio of `stretch` seconds.
    struct Run {
        let source: ProbedSource, plan: ExportPlan, k: Int, stretch: Double, fps: Double
        let cancel: CancelToken, codecs: CodecRun
        /// Each sample's measured frames scored against the frames given to the encoder (nil: not scored).
        var scoring: Transcoder.Scoring?

        /// The sample encodes of `plan`'s main video encoded by CRF (plan stream `k`) over the plan's stretch (`stretch`
        /// seconds at `fps` frames a second: the source's, at most a frame-rate cap's); nil when there is none, or
        /// slow motion is applied, or the stretch's length is unknown.
        init?(source: ProbedSource, plan: ExportPlan, cancel: CancelToken, codecs: CodecRun) {
            guard plan.route == .transcode, plan.timeline.slowMotion == nil,
                  let k = plan.crfVideo, case .transcodeVideo(let video) = plan.streams[k].action,
                  let length = plan.timeline.length ?? plan.streams[k].expectedDuration ?? plan.timeline.expectedDuration, length > 0 else { return nil }
            let rate = source.info.streams[plan.streams[k].index].frameRate ?? 30
            (self.source, self.plan, self.k, self.stretch, self.cancel, self.codecs) = (source, plan, k, length, cancel, codecs)
            fps = min(rate, video.frameRateCap?.maxFrameRate ?? 240, 240)
        }

        /// `length` seconds from `start`, encoded with `margin` frames on either side; the frames between are
        /// measured (`windowFrames`/`windowBytes`), the forced keyframe is `firstBytes`.
        func sample(from start: Double, length: Double, activity: () -> Void) -> Sampled? {
            let from = max(0, start - margin / fps)
            return encode(from: from, length: min(start - from + length + margin / fps, stretch - from), lead: start - from,
                          measured: length, activity: activity)
        }

        /// Encodes `length` seconds from `from`; the main video's frames from `lead` for `measured` seconds are
        /// counted apart. A stretch where the audio has no packets (a track shorter than the picture) cannot be
        /// encoded with it: the video alone is then.
        func encode(from: Double, length: Double, lead: Double, measured: Double? = nil, activity: () -> Void) -> Sampled? {
            var p = plan.keeping(only: { $0.index == k || $0.isTranscodedAudio }, reason: "not sampled")
            for i in p.streams.indices { p.streams[i].expectedDuration = length; p.streams[i].expectedFrames = nil }
            var timeline = PlannedTimeline(origin: plan.timeline.origin + from, length: length, expectedDuration: length)
            timeline.sourceStart = plan.timeline.sourceStart
            p.timeline = timeline
            // Half a frame early: a frame's time is where it starts.
            let window = measured.map { (lead - 0.5 / fps)..<(lead + $0 - 0.5 / fps) }
            if let sampled = run(p, window: window, activity: activity) { return sampled }
            guard !cancel.isSet, p.streams.contains(where: \.isTranscodedAudio) else { return nil }
            return run(p.keeping(only: { $0.index == k }, reason: "not sampled"), window: window, activity: activity)
        }

        private func run(_ p: ExportPlan, window: Range<Double>?, activity: () -> Void) -> Sampled? {
            guard let transcoder = try? Transcoder(source: source, plan: p, target: nil, cancel: cancel, codecs: codecs) else { return nil }
            transcoder.measuredWindow = window
            transcoder.scoring = scoring
            guard let outcome = try? transcoder.run(progress: { _, _, _ in activity() }),
                  window == nil || outcome.videoOutput.windowFrames > 0 else { return nil }
            var sampled = Sampled(video: outcome.videoOutput, scores: outcome.scores)
            for (j, d) in p.keptInOutputOrder.enumerated() where d.kind == .audio && j < transcoder.written.streams.count {
                sampled.audio[d.index] = transcoder.written.streams[j]
            }
            return sampled
        }
    }
}

/// A private folder for a two-pass encode's statistics (x264/x265 write a log and an `.mbtree`/`.cutree` file
/// beside it), removed when the export ends; folders a killed export left behind are swept on the next one.
package final class PassLog {
    /// The statistics file the encoder is told to write and read.
    package let file: String
    private let folder: String
    private static let prefix = "mediaexport-2pass-"

    package init(path: String) throws {
        var base = NSTemporaryDirectory()
        // x265 takes the file inside `x265-params`, where ':' and '=' separate options.
        if base.contains(":") || base.contains("=") { base = "/tmp/" }
        if !base.hasSuffix("/") { base += "/" }
        PassLog.sweep(base)
        var template = Array((base + PassLog.prefix + "\(getpid())-XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw ExportError.outputUnwritable(path: path, reason: "cannot create a folder for the two-pass statistics in \(base): \(String(cString: strerror(errno)))")
        }
        folder = String(cString: made)
        file = folder + "/passlog"
    }

    deinit { PassLog.remove(folder) }

    private static func remove(_ folder: String) {
        for name in FileSystem.contents(ofDirectory: folder) ?? [] { unlink(folder + "/" + name) }
        rmdir(folder)
    }

    /// Removes statistics folders whose process is gone.
    private static func sweep(_ base: String) {
        for name in FileSystem.contents(ofDirectory: base) ?? [] where name.hasPrefix(prefix) {
            let rest = name.dropFirst(prefix.count)
            guard let dash = rest.firstIndex(of: "-"), let pid = Int32(rest[..<dash]), pid != getpid() else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH { remove(base + name) }
        }
    }
}
