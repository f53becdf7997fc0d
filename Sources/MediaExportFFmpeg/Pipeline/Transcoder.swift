internal import CFFmpeg
import Foundation
import MediaExportCore

/// Runs one export's pipeline on the calling thread: demux → (decode → scale/resample → encode | copy) → mux.
/// Everything FFmpeg is owned here and freed when the transcoder goes away.
package final class Transcoder {
    package struct Outcome {
        package var skippedPackets: Int
        package var notes: [String]
    }

    let demuxer: Demuxer
    package let plan: ExportPlan
    let timeline: Timeline
    package let expectedDuration: Double?
    package let notes: [String]
    private let source: String
    private let target: OutputTarget
    private let cancelFlag: UnsafeMutablePointer<Int32>
    private let stats = PipelineStats()
    private let errors: ErrorPolicy
    private let container: Container
    /// Test hook: hang (until stopped) once the output reaches this time, to exercise the stall watchdog.
    package var debugStallAtOutputTime: Double?

    /// Opens the input, validates the time range and plans the streams (no decoding yet).
    /// `range` is on the source's timeline (edits' trim already merged in); `edits` supplies crop, rotate, flip,
    /// mute and volume.
    package init(source: String, preset: Preset, range: TimeRange?, edits: EditSidecar?, target: OutputTarget,
         cancelFlag: UnsafeMutablePointer<Int32>, errors: ErrorPolicy = ErrorPolicy()) throws {
        self.source = source
        self.errors = errors
        stats.strict = errors.strict
        guard let container = target.container else {
            throw ExportError.outputUnwritable(path: target.finalPath, reason: "no container for this extension")
        }
        self.container = container
        self.target = target
        self.cancelFlag = cancelFlag
        demuxer = try Demuxer(path: source, interrupt: cancelFlag)
        plan = try ExportPlan(demuxer: demuxer, preset: preset, container: container, edits: edits)

        var notes: [String] = []
        let mediaDuration = demuxer.duration
        var start = range?.start ?? 0
        var end = range?.end
        if start < 0 || !start.isFinite { throw ExportError.invalidTimeRange(path: source, reason: "start \(start) s is negative") }
        // Far beyond any media; keeps seconds → timestamp conversions from overflowing when the duration is unknown.
        if start > 1e7 || (end ?? 0) > 1e7 || end?.isFinite == false {
            throw ExportError.invalidTimeRange(path: source, reason: "times must be at most 10000000 s")
        }
        if let e = end, !(e > start) { throw ExportError.invalidTimeRange(path: source, reason: "end \(e) s is not after start \(start) s") }
        if let d = mediaDuration {
            if start >= d { throw ExportError.invalidTimeRange(path: source, reason: String(format: "start %.3f s is past the end (%.3f s)", start, d)) }
            if let e = end, e > d { notes.append(String(format: "end %.3f s is past the media's end; exporting to %.3f s", e, d)); end = nil }
        }
        if start > 0 && preset.passthrough {
            let keyframe = try Transcoder.keyframeTime(demuxer: demuxer, atOrBefore: start)
            if keyframe < start - 0.0005 {
                notes.append(String(format: "passthrough cannot cut between keyframes: starts at the keyframe at %.3f s instead of %.3f s", keyframe, start))
            }
            start = keyframe
        }
        timeline = Timeline(origin: demuxer.startTime + start, length: end.map { $0 - start })
        expectedDuration = end.map { $0 - start } ?? mediaDuration.map { max(0, $0 - start) }
        self.notes = notes
    }

    /// Streams the whole export into the target's temporary file. `progress` is called after every packet.
    package func run(beforeCommit: () throws -> Void = {}, progress: (_ outputTime: Double, _ videoFrames: Int, _ final: Bool) -> Void) throws -> Outcome {
        let muxer = try Muxer(target: target, container: container, interrupt: cancelFlag)
        var routes: [Int32: StreamRoute] = [:]
        let path = source
        for route in plan.routes {
            switch route {
            case .video(let index, let w, let h, let settings, let geometry):
                routes[Int32(index)] = try VideoTranscodeRoute(input: demuxer.streams[index], width: w, height: h, settings: settings,
                                                               geometry: geometry, muxer: muxer, timeline: timeline, stats: stats, path: path)
            case .audio(let index, let channels, let settings, let gain):
                // Audio stops at the container's end too: decoders emit an encoder's end padding that the
                // source's edit list hides, which would make the output a frame longer than the input.
                var audioTimeline = timeline
                if audioTimeline.length == nil { audioTimeline.length = expectedDuration }
                routes[Int32(index)] = try AudioTranscodeRoute(input: demuxer.streams[index], channels: channels, settings: settings,
                                                               gain: gain, muxer: muxer, timeline: audioTimeline, stats: stats, path: path)
            case .copy(let index, let displayMatrix):
                routes[Int32(index)] = try StreamCopyRoute(input: demuxer.streams[index], displayMatrix: displayMatrix, muxer: muxer, timeline: timeline,
                                                             trimmed: timeline.origin > demuxer.startTime, stats: stats)
            }
        }
        // Only the streams we use are demuxed; the rest are discarded inside libavformat.
        for stream in demuxer.streams where routes[stream.pointee.index] == nil { stream.pointee.discard = AVDISCARD_ALL }

        try muxer.writeHeader(metadata: outputMetadata())
        if timeline.origin - demuxer.startTime > 0 { try demuxer.seek(toSeconds: timeline.origin - demuxer.startTime) }

        let packet = Packet()
        let ordered = routes.values.sorted { $0.inputIndex < $1.inputIndex }
        reading: while true {
            if isCancelled(cancelFlag) { throw ExportError.cancelled }
            switch try demuxer.read(into: packet) {
            case .endOfFile: break reading
            case .packet:
                // A packet the demuxer could only read in part (the file ends inside it) counts as corrupt.
                if (packet.pointer.pointee.flags & AV_PKT_FLAG_CORRUPT) != 0 { stats.skippedPackets += 1 }
                if let route = routes[packet.pointer.pointee.stream_index] { try route.send(packet) }
                packet.unref()
            }
            if stats.skippedPackets > errors.threshold {
                throw ExportError.tooManyDecodeErrors(path: source, count: stats.skippedPackets, threshold: errors.threshold)
            }
            progress(stats.outputTime, stats.videoFrames, false)
            if let stallAt = debugStallAtOutputTime, stats.outputTime >= stallAt {
                while !isCancelled(cancelFlag) { usleep(10_000) }
            }
            if ordered.allSatisfy(\.isDone) { break reading }
        }
        // End of stream flows downstream explicitly: decoders, then filters, then encoders.
        for route in ordered {
            if isCancelled(cancelFlag) { throw ExportError.cancelled }
            try route.flush()
        }
        if stats.skippedPackets > errors.threshold {
            throw ExportError.tooManyDecodeErrors(path: source, count: stats.skippedPackets, threshold: errors.threshold)
        }
        // The data ran out well before the container's own duration: a truncated file. Delivering the short
        // result as if it were complete would hide the damage.
        if timeline.length == nil, let expected = expectedDuration, expected - stats.outputTime > max(0.5, expected * 0.1) {
            throw ExportError.ffmpeg(stage: .decode, path: source, code: AVCode.invalidData,
                                     message: String(format: "the data ends at %.2f s of %.2f s: the file is truncated", stats.outputTime, expected))
        }
        try muxer.finish()
        try demuxer.verifyUnchanged()
        try beforeCommit()
        progress(stats.outputTime, stats.videoFrames, true)
        return Outcome(skippedPackets: stats.skippedPackets, notes: notes)
    }

    /// Container tags carried over (creation time, location, title …), minus the ones the muxer writes itself.
    /// Apple's location key is also written as the standard `location` so MP4 outputs keep it.
    private func outputMetadata() -> [String: String] {
        var tags = demuxer.metadata
        for key in ["major_brand", "minor_version", "compatible_brands", "encoder"] { tags[key] = nil }
        if tags["location"] == nil, let iso = tags["com.apple.quicktime.location.ISO6709"] { tags["location"] = iso }
        return tags
    }

    /// The time of the keyframe at or before `seconds` in the main video stream: seek there and read the
    /// first video packet's presentation time (an index holds decode times, which B-frames shift).
    static func keyframeTime(demuxer: Demuxer, atOrBefore seconds: Double) throws -> Double {
        let index = av_find_best_stream(demuxer.context, AVMEDIA_TYPE_VIDEO, -1, -1, nil, 0)
        guard index >= 0 else { return seconds }
        let stream = demuxer.streams[Int(index)]
        try demuxer.seek(toSeconds: seconds)
        let packet = Packet()
        for _ in 0..<10_000 {
            guard case .packet = try demuxer.read(into: packet) else { break }
            defer { packet.unref() }
            let p = packet.pointer.pointee
            if p.stream_index == index && p.pts != AVCode.noPTS {
                return max(0, Double(p.pts) * av_q2d(stream.pointee.time_base) - demuxer.startTime)
            }
        }
        return seconds
    }
}
