internal import CFFmpeg
import Foundation
import MediaExportCore

/// The executor: runs one route's plan on the calling thread, demux → stages → mux. It decides nothing: every
/// stream's fate and the timeline come from the `ExportPlan`. Like FFmpeg 7's scheduler, it owns the graph:
/// stages (`StreamStage`: transcode, or the stream-copy bypass) take packets and hand packets back, and this
/// loop alone writes the muxer and keeps the counts. Everything FFmpeg is owned here (through the stages) and
/// freed when the transcoder goes away.
package final class Transcoder {
    /// What a finished run reports besides the file.
    package struct Outcome {
        /// Corrupt packets and frames skipped (the `completed` record's `skippedPackets`).
        package var skippedPackets: Int
        /// The plan's notes, for the `completed` record.
        package var notes: [String]
    }

    /// The run's counters. Only the executor's loop changes them, from the packets it writes and the tallies
    /// stages report.
    private struct Counts {
        /// Furthest output time written, in seconds.
        var outputTime: Double = 0
        /// Video frames given to an encoder.
        var videoFrames = 0
        /// Corrupt packets the demuxer or decoders gave up on and the pipeline skipped, plus frames decoders
        /// flagged corrupt.
        var skippedPackets = 0

        mutating func add(_ tally: StageTally) {
            videoFrames += tally.videoFrames
            skippedPackets += tally.damaged
        }
    }

    let demuxer: Demuxer
    let plan: ExportPlan
    let timeline: Timeline
    package let expectedDuration: Double?
    private let source: String
    private let target: OutputTarget
    private let cancel: CancelToken
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
        self.container = container
        self.target = target
        self.cancel = cancel
        self.plan = plan
        demuxer = try source.takeDemuxer()
        timeline = Timeline(origin: plan.timeline.origin, length: plan.timeline.length)
        expectedDuration = plan.timeline.expectedDuration
    }

    /// Builds one stage per kept stream, in the plan's (input index) order; dropped streams get none.
    private func makeStages(muxer: Muxer) throws -> [StreamStage] {
        var stages: [StreamStage] = []
        for decision in plan.streams {
            let input = demuxer.streams[decision.index]
            switch decision.action {
            case .transcodeVideo(let v):
                stages.append(try VideoTranscodeStage(input: input, plan: v, muxer: muxer, timeline: timeline, strict: errors.strict, path: source))
            case .transcodeAudio(let a):
                // Audio stops at the container's end too: decoders emit an encoder's end padding that the
                // source's edit list hides, which would make the output a frame longer than the input.
                var audioTimeline = timeline
                if audioTimeline.length == nil { audioTimeline.length = expectedDuration }
                stages.append(try AudioTranscodeStage(input: input, plan: a, muxer: muxer, timeline: audioTimeline, strict: errors.strict, path: source))
            case .copy(let displayMatrix):
                stages.append(try StreamCopyStage(input: input, displayMatrix: displayMatrix, muxer: muxer, timeline: timeline,
                                                  trimmed: timeline.origin > demuxer.startTime))
            case .drop:
                break
            }
        }
        return stages.sorted { $0.inputIndex < $1.inputIndex }
    }

    /// Streams the whole export into the target's temporary file. `progress` is called after every packet.
    package func run(beforeCommit: () throws -> Void = {}, progress: (_ outputTime: Double, _ videoFrames: Int, _ final: Bool) -> Void) throws -> Outcome {
        let muxer = try Muxer(target: target, container: container, cancel: cancel)
        let ordered = try makeStages(muxer: muxer)
        // Input stream index → its stage: a plain array, looked up once per packet.
        var byInput = [StreamStage?](repeating: nil, count: demuxer.streams.count)
        for stage in ordered { byInput[Int(stage.inputIndex)] = stage }
        // Only the streams we use are demuxed; the rest are discarded inside libavformat.
        for stream in demuxer.streams where byInput[Int(stream.pointee.index)] == nil { stream.pointee.discard = AVDISCARD_ALL }

        try muxer.writeHeader(metadata: outputMetadata())
        if timeline.origin - demuxer.startTime > 0 { try demuxer.seek(toSeconds: timeline.origin - demuxer.startTime) }

        var counts = Counts()

        /// The one place packets reach the muxer: the output time advances with each packet written.
        func write(_ packet: Packet, of stage: StreamStage) throws {
            let p = packet.pointer
            if p.pointee.pts != AVCode.noPTS {
                // The stream's time base is the muxer's now (the header may have changed it).
                let end = Double(p.pointee.pts + p.pointee.duration) * av_q2d(stage.outputStream.pointee.time_base)
                counts.outputTime = max(counts.outputTime, end)
            }
            try muxer.write(packet)
            packet.unref()  // the muxer took the data; this only resets the stage's packet for reuse
        }

        /// Asks a stage for everything it has ready, writing each packet as soon as it comes: nothing queues.
        func pump(_ stage: StreamStage) throws {
            while true {
                switch try stage.receive() {
                case .packet(let packet): try write(packet, of: stage)
                case .tally(let tally): counts.add(tally)
                case .needsInput, .finished: return
                }
            }
        }

        func checkDamage() throws {
            if counts.skippedPackets > errors.threshold {
                throw ExportError.tooManyDecodeErrors(path: source, count: counts.skippedPackets, threshold: errors.threshold)
            }
        }

        let packet = Packet()
        reading: while true {
            if cancel.isSet { throw ExportError.cancelled }
            switch try demuxer.read(into: packet) {
            case .endOfFile: break reading
            case .packet:
                // A packet the demuxer could only read in part (the file ends inside it) counts as corrupt.
                if (packet.pointer.pointee.flags & AV_PKT_FLAG_CORRUPT) != 0 { counts.skippedPackets += 1 }
                let index = Int(packet.pointer.pointee.stream_index)
                // Streams that appear mid-file (MPEG-TS may add some) have no stage.
                if index < byInput.count, let stage = byInput[index] {
                    counts.add(try stage.send(packet))
                    try pump(stage)
                }
                packet.unref()
            }
            try checkDamage()
            progress(counts.outputTime, counts.videoFrames, false)
            if let stallAt = debugStallAtOutputTime, counts.outputTime >= stallAt {
                while !cancel.isSet { usleep(10_000) }
            }
            if ordered.allSatisfy(\.isDone) { break reading }
        }
        // End of stream flows downstream explicitly, stream by stream: decoders, then filters, then encoders.
        for stage in ordered {
            if cancel.isSet { throw ExportError.cancelled }
            counts.add(try stage.sendEndOfStream())
            try pump(stage)
        }
        try checkDamage()
        // The data ran out well before the container's own duration: a truncated file. Delivering the short
        // result as if it were complete would hide the damage.
        if timeline.length == nil, let expected = expectedDuration, expected - counts.outputTime > max(0.5, expected * 0.1) {
            throw ExportError.ffmpeg(stage: .decode, path: source, code: AVCode.invalidData,
                                     message: String(format: "the data ends at %.2f s of %.2f s: the file is truncated", counts.outputTime, expected))
        }
        try muxer.finish()
        try demuxer.verifyUnchanged()
        try beforeCommit()
        progress(counts.outputTime, counts.videoFrames, true)
        return Outcome(skippedPackets: counts.skippedPackets, notes: plan.notes)
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
