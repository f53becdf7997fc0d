internal import CFFmpeg
import Foundation
import MediaExportCore

/// Runs one route's plan on the calling thread: demux → (decode → scale/resample → encode | copy) → mux.
/// It decides nothing: every stream's fate and the timeline come from the `ExportPlan`. Everything FFmpeg is
/// owned here and freed when the transcoder goes away.
package final class Transcoder {
    package struct Outcome {
        package var skippedPackets: Int
        package var notes: [String]
    }

    let demuxer: Demuxer
    let plan: ExportPlan
    let timeline: Timeline
    package let expectedDuration: Double?
    private let source: String
    private let target: OutputTarget
    private let cancel: CancelToken
    private let stats = PipelineStats()
    private let errors: ErrorPolicy
    private let container: Container
    /// Test hook: hang (until stopped) once the output reaches this time, to exercise the stall watchdog.
    package var debugStallAtOutputTime: Double?

    /// Takes the source's demuxer (see `ProbedSource.takeDemuxer`) for a possible plan.
    package init(source: ProbedSource, plan: ExportPlan, target: OutputTarget, cancel: CancelToken, errors: ErrorPolicy = ErrorPolicy()) throws {
        guard plan.isPossible, let container = plan.container else {
            throw ExportError.noUsableStreams(path: source.info.path, reason: plan.impossible ?? "no container for this extension")
        }
        self.source = source.info.path
        self.errors = errors
        stats.strict = errors.strict
        self.container = container
        self.target = target
        self.cancel = cancel
        self.plan = plan
        demuxer = try source.takeDemuxer()
        timeline = Timeline(origin: plan.timeline.origin, length: plan.timeline.length)
        expectedDuration = plan.timeline.expectedDuration
    }

    /// Streams the whole export into the target's temporary file. `progress` is called after every packet.
    package func run(beforeCommit: () throws -> Void = {}, progress: (_ outputTime: Double, _ videoFrames: Int, _ final: Bool) -> Void) throws -> Outcome {
        let muxer = try Muxer(target: target, container: container, cancel: cancel)
        var routes: [Int32: StreamRoute] = [:]
        let path = source
        for decision in plan.streams {
            let input = demuxer.streams[decision.index]
            switch decision.action {
            case .transcodeVideo(let v):
                routes[Int32(decision.index)] = try VideoTranscodeRoute(input: input, plan: v, muxer: muxer, timeline: timeline, stats: stats, path: path)
            case .transcodeAudio(let a):
                // Audio stops at the container's end too: decoders emit an encoder's end padding that the
                // source's edit list hides, which would make the output a frame longer than the input.
                var audioTimeline = timeline
                if audioTimeline.length == nil { audioTimeline.length = expectedDuration }
                routes[Int32(decision.index)] = try AudioTranscodeRoute(input: input, plan: a, muxer: muxer, timeline: audioTimeline, stats: stats, path: path)
            case .copy(let displayMatrix):
                routes[Int32(decision.index)] = try StreamCopyRoute(input: input, displayMatrix: displayMatrix, muxer: muxer, timeline: timeline,
                                                                    trimmed: timeline.origin > demuxer.startTime, stats: stats)
            case .drop:
                break
            }
        }
        // Only the streams we use are demuxed; the rest are discarded inside libavformat.
        for stream in demuxer.streams where routes[stream.pointee.index] == nil { stream.pointee.discard = AVDISCARD_ALL }

        try muxer.writeHeader(metadata: outputMetadata())
        if timeline.origin - demuxer.startTime > 0 { try demuxer.seek(toSeconds: timeline.origin - demuxer.startTime) }

        let packet = Packet()
        let ordered = routes.values.sorted { $0.inputIndex < $1.inputIndex }
        reading: while true {
            if cancel.isSet { throw ExportError.cancelled }
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
                while !cancel.isSet { usleep(10_000) }
            }
            if ordered.allSatisfy(\.isDone) { break reading }
        }
        // End of stream flows downstream explicitly: decoders, then filters, then encoders.
        for route in ordered {
            if cancel.isSet { throw ExportError.cancelled }
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
        return Outcome(skippedPackets: stats.skippedPackets, notes: plan.notes)
    }

    /// Container tags carried over (creation time, location, title …), minus the ones the muxer writes itself.
    /// Apple's location key is also written as the standard `location` so MP4 outputs keep it.
    private func outputMetadata() -> [String: String] {
        var tags = demuxer.metadata
        for key in ["major_brand", "minor_version", "compatible_brands", "encoder"] { tags[key] = nil }
        if tags["location"] == nil, let iso = tags["com.apple.quicktime.location.ISO6709"] { tags["location"] = iso }
        return tags
    }
}
