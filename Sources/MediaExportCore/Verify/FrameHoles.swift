import Foundation

/// The steps between a video stream's consecutive decoded frames, measured by the pipeline, and the rule that turns
/// holes in them into frames lost: MKV, MPEG-TS and MP4 number no frames, so a dropped cluster, zeroed bytes or a
/// forward jump in the timestamps shows only as a frame that comes too late.
///
/// The rule. A frame lasts `frameDuration` (1/`r_frame_rate`, the rate FFmpeg finds every timestamp on). A step is
/// regular when it is within a quarter frame of it (Matroska's millisecond timestamps step 33/34 ms at 30 fps), a
/// hole when it is longer than 1.5 frames: round(step / frame) − 1 frames are missing there. The holes are counted
/// only in a stream of constant frame rate: one whose steps other than holes are regular but for at most 2 % of all
/// its steps, and whose damaged stretches are rare (at most two, or 1 % of its steps; up to four holes one after the
/// other, with no regular step between, are one stretch: a zeroed stretch leaves a few; a longer run counts each
/// hole, as a rate halved for a while is many). A phone's variable rate breaks either: it
/// halves its rate for stretches in low light (many holes of one frame) or jitters by more than a quarter frame; it is
/// never counted. A stretch of holes followed by no more frames than the stream reorders (`reorderDepth`) before it
/// ends is a cut's loose end, not damage: a stream copied up to a time (`ffmpeg -t 2 -c copy`) ends with the
/// reference frame whose B-frames fell outside the cut.
package struct FrameHoles: Sendable, Equatable {
    /// One hole: where the first missing frame would have been (output seconds), and the step it is in.
    package struct Hole: Sendable, Equatable {
        package var at: Double
        package var step: Double
        /// A hole at `at` seconds in a step of `step` seconds.
        package init(at: Double, step: Double) { self.at = at; self.step = step }
    }

    /// Seconds per frame at the stream's base rate; 0 when unknown (nothing is then a hole).
    package var frameDuration: Double
    /// Steps measured, regular steps among them, and the holes (at most `maxHoles` kept; `holeCount` counts all).
    package private(set) var steps = 0
    package private(set) var regularSteps = 0
    package private(set) var holes: [Hole] = []
    package private(set) var holeCount = 0
    /// Stretches of holes one after the other, weighed by the rule: one for up to four holes, else each hole.
    package private(set) var stretches = 0
    /// Holes in the stretch going on.
    private var holesInStretch = 0
    /// Holes kept in full: a stream with more is not of constant rate anyway (see the rule).
    static let maxHoles = 64
    /// Frames a stream may hold back for reordering (FFmpeg's `video_delay`): the most a cut's loose end shows.
    package var reorderDepth: Int
    /// Where the last stretch begins in `holes`, and the regular steps since it.
    private var lastStretch = 0
    private var stepsAfterStretch = 0

    /// An empty measure for frames of `frameDuration` seconds, of a stream that reorders up to `reorderDepth` frames.
    package init(frameDuration: Double, reorderDepth: Int = 0) { self.frameDuration = frameDuration; self.reorderDepth = reorderDepth }

    /// Notes the step from a frame at `previous` to one at `time` (output seconds).
    package mutating func note(from previous: Double, to time: Double) {
        guard frameDuration > 0 else { return }
        let step = time - previous
        steps += 1
        if abs(step - frameDuration) <= frameDuration / 4 { regularSteps += 1 }
        guard step > 1.5 * frameDuration else { stepsAfterStretch += 1; return }
        if holeCount == 0 || stepsAfterStretch > 0 { stretches += 1; lastStretch = holes.count; holesInStretch = 0 }
        holesInStretch += 1
        if holesInStretch == 5 { stretches += 4 } else if holesInStretch > 5 { stretches += 1 }
        stepsAfterStretch = 0
        holeCount += 1
        if holes.count < Self.maxHoles { holes.append(Hole(at: previous + frameDuration, step: step)) }
    }

    /// True when the stream keeps a constant frame rate by the rule (so that a hole is frames lost).
    package var isConstantRate: Bool {
        guard frameDuration > 0, steps > 0 else { return false }
        return Double(steps - holeCount - regularSteps) <= Double(steps) * 0.02 && stretches <= max(2, steps / 100)
    }

    /// The frames lost in the holes of input stream `stream`; none for a stream of variable rate, and none in a cut's
    /// loose end (see the rule) unless `looseEndIsLoss`: where the data shows damage, the same end is a file cut
    /// mid-stream (a transport stream truncated inside its last B-frames).
    package func lost(stream: Int, looseEndIsLoss: Bool = false) -> [LostFrames] {
        guard isConstantRate else { return [] }
        return steps(stream: stream, of: hasLooseEnd && !looseEndIsLoss ? holes[..<lastStretch] : holes[...])
    }

    /// The frames of a cut's loose end (see the rule), or none: not lost, but missing from the length the output
    /// states (an MP4 track's is by decode times).
    package func looseEnd(stream: Int) -> [LostFrames] {
        isConstantRate && hasLooseEnd ? steps(stream: stream, of: holes[lastStretch...]) : []
    }

    private var hasLooseEnd: Bool { holeCount > 0 && stepsAfterStretch < reorderDepth && holes.count < Self.maxHoles }

    /// The holes of input stream `stream` as frames, whatever the rate: in a stream of variable rate they are
    /// frames held longer, not lost, which a container that states a length by decode times (MP4) leaves out of it.
    package func steps(stream: Int) -> [LostFrames] { steps(stream: stream, of: holes[...]) }

    private func steps(stream: Int, of holes: ArraySlice<Hole>) -> [LostFrames] {
        holes.compactMap { hole in
            let frames = Int((hole.step / frameDuration).rounded()) - 1
            return frames > 0 ? LostFrames(stream: stream, at: hole.at, frames: frames, seconds: Double(frames) * frameDuration) : nil
        }
    }
}

/// Video frames missing from a stream of constant frame rate where its timestamps jump ahead (`FrameHoles`): the
/// pictures before them are shown longer; the audio keeps its place.
package struct LostFrames: Codable, Sendable, Equatable {
    /// The input stream's index.
    package var stream: Int
    /// Where the first missing frame would have been, seconds on the output's timeline.
    package var at: Double
    /// Frames missing.
    package var frames: Int
    /// Their length in seconds.
    package var seconds: Double

    /// `frames` frames (`seconds` long) of input stream `stream` missing at `at` seconds.
    package init(stream: Int, at: Double, frames: Int, seconds: Double) {
        self.stream = stream; self.at = at; self.frames = frames; self.seconds = seconds
    }
}

extension SourceInfo {
    /// True when holes in a video's timestamps are frames lost (`FrameHoles`): in every container but one that declares
    /// its frame count (AVI), where a hole is an empty chunk — a frame its writer left out on purpose — and the count
    /// the header declares is the measure of what was lost (`DeclaredFrames`).
    package var countsTimestampHoles: Bool { !declaresFrameCounts }

    /// True for an MPEG-TS that is not a whole number of its packets (188, 192 or 204 bytes): it ends inside one, cut
    /// mid-stream. Such a file's last frames are lost, not a cut's loose end (`FrameHoles.lost(stream:looseEndIsLoss:)`),
    /// whether or not the decoder reports its last, partial packet (with frame threads it may not, from run to run).
    package var endsInsidePacket: Bool {
        formatName == "mpegts" && size > 0 && [188, 192, 204].allSatisfy { size % $0 != 0 }
    }

    /// A frame of video stream `index` that lasts `seconds` (1/its rate) by its header, bounded: no frame outlasts its
    /// stream (or the file, for a stream that declares no length) by more than ten times. Beyond that the rate is
    /// broken — an MP4 `stts` delta of 2^31 ticks makes one frame 46.6 hours in a 0.04 s file — and a frame lasts
    /// its share of the stream's length instead. nil when `seconds` is within the bound or nothing bounds it.
    package func boundedFrame(_ seconds: Double, stream index: Int) -> Double? {
        guard index >= 0, index < streams.count else { return nil }
        let stream = streams[index]
        guard let length = stream.duration ?? duration, length > 0, seconds > 10 * length else { return nil }
        return length / Double(max(1, stream.frameCount ?? 1))
    }
}

/// A copied video's packets put back in the order they are shown (they come in decode order: a B-frame after the
/// frame it is shown before), for `FrameHoles` to measure as it measures a transcode's frames. A window of 16
/// packets holds more than any stream reorders.
package struct ShownOrder: Sendable {
    private var pending: [Double] = []
    private var last: Double?
    /// The holes measured so far.
    package private(set) var holes: FrameHoles
    private static let window = 16

    /// An empty measure over `holes`.
    package init(_ holes: FrameHoles) { self.holes = holes }

    /// Notes a packet shown at `time` seconds.
    package mutating func note(_ time: Double) {
        pending.append(time)
        if pending.count > Self.window { takeEarliest() }
    }

    /// Measures what the window still holds: the stream has ended.
    package mutating func finish() {
        while !pending.isEmpty { takeEarliest() }
    }

    private mutating func takeEarliest() {
        guard let i = pending.indices.min(by: { pending[$0] < pending[$1] }) else { return }
        let time = pending.remove(at: i)
        if let last { holes.note(from: last, to: time) }
        last = time
    }
}
