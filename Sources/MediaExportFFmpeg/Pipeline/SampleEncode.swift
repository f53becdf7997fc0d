internal import CFFmpeg
import Foundation
import MediaExportCore
#if canImport(Glibc)
import Glibc
#endif

/// Measures what a CRF encode of the main video will cost, on a few short samples of the source encoded exactly as
/// the plan says (same size, filters, encoder settings) into FFmpeg's `null` muxer: the `started` record's
/// `estimatedBytes`, and the ceiling of a size limit's bit rate. About 3 % of the frames, at least 24, in three
/// samples spread over the timeline: a bounded cost next to the export itself.
package enum SampleEncode {
    /// The main video's bit rate (bits/s) a full encode of `plan` is expected to have (a stretch under 90 frames is
    /// encoded whole); nil when the plan encodes no video by CRF, slow motion is applied, or a sample fails (the estimate then falls back to the preset's figures). `codecs` as for
    /// `Transcoder`.
    package static func videoBitrate(source: ProbedSource, plan: ExportPlan, cancel: CancelToken, codecs: CodecRun = CodecRun(),
                                     activity: () -> Void) -> Double? {
        guard plan.route == .transcode, plan.timeline.slowMotion == nil,
              let k = plan.streams.firstIndex(where: { if case .transcodeVideo(let v) = $0.action { return v.settings.bitrate == nil }; return false }),
              case .transcodeVideo(let video) = plan.streams[k].action else { return nil }
        let stream = source.info.streams[plan.streams[k].index]
        guard let length = plan.timeline.length ?? plan.streams[k].expectedDuration ?? plan.timeline.expectedDuration, length > 0 else { return nil }
        // Frames a second of the output: the source's, at most a frame-rate cap's.
        let fps = min(stream.frameRate ?? 30, video.frameRateCap?.maxFrameRate ?? 240, 240)
        let frames = length * fps
        // Under 90 frames three samples would be most of it, and each would lean on a keyframe of its own: the whole
        // stretch is encoded instead (a few seconds at most), and its rate is measured, not guessed.
        guard frames >= 90 else {
            let whole = plan.keeping(only: { $0.index == k }, reason: "not sampled")
            guard let transcoder = try? Transcoder(source: source, plan: whole, target: nil, cancel: cancel, codecs: codecs),
                  let outcome = try? transcoder.run(progress: { _, _, _ in activity() }), outcome.videoOutput.bytes > 0 else { return nil }
            let rate = Double(outcome.videoOutput.bytes) * 8 / length
            return video.settings.maxBitrate.map { min(rate, Double($0)) } ?? rate
        }
        // About 3 % of the frames, at least 24, in three samples spread over the stretch (one alone can land on a still
        // scene: a third of the real size, measured).
        let samples = 3
        let perSample = min(60, max(8, (max(24, frames * 0.03) / Double(samples)).rounded()))
        let sampleLength = perSample / fps
        var total = Transcoder.EncodedVideo()
        for s in 0..<samples {
            if cancel.isSet { return nil }
            let start = max(0, length * Double(2 * s + 1) / Double(2 * samples) - sampleLength / 2)
            var p = plan.keeping(only: { $0.index == k }, reason: "not sampled")
            p.streams[k].expectedDuration = sampleLength
            p.streams[k].expectedFrames = nil
            var timeline = PlannedTimeline(origin: plan.timeline.origin + start, length: sampleLength, expectedDuration: sampleLength)
            timeline.sourceStart = plan.timeline.sourceStart
            p.timeline = timeline
            guard let transcoder = try? Transcoder(source: source, plan: p, target: nil, cancel: cancel, codecs: codecs),
                  let outcome = try? transcoder.run(progress: { _, _, _ in activity() }) else { return nil }
            total.frames += outcome.videoOutput.frames
            total.bytes += outcome.videoOutput.bytes
            // Only each sample's first keyframe is forced by the cut; scene-cut keyframes are the content's own, and a
            // full encode has them too: they count as ordinary frames.
            total.keyframes += outcome.videoOutput.frames > 0 ? 1 : 0
            total.keyframeBytes += outcome.videoOutput.firstBytes
        }
        // Frames a second as the samples had them: a source that repeats frames by leaving them out (an AVI's empty
        // packets, a screen recording) gives fewer than its nominal rate.
        let shown = min(fps, Double(total.frames) / (Double(samples) * sampleLength))
        let measured = OutputSize.videoBitrate(sampleFrames: total.frames, bytes: total.bytes, keyframes: total.keyframes,
                                               keyframeBytes: total.keyframeBytes, frameRate: shown, duration: length)
        // A short sample measures low: its frames lean on the keyframe it starts with, which a full encode's frames
        // are far from (on the corpus: 8-frame samples 12-51 % under the real encode, 30-frame ones 7-13 %). The
        // correction, 1 + 2.6 / frames a sample, is fitted to those (×1.33 at 8 frames, ×1.09 at 30).
        let corrected = measured.map { $0 * (1 + 2.6 / perSample) }
        // A VBV cap holds the full encode under it (the samples' start may overshoot while the buffer fills).
        return corrected.map { rate in video.settings.maxBitrate.map { min(rate, Double($0)) } ?? rate }
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
