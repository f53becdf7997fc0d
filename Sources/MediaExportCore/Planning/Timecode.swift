import Foundation

/// A SMPTE timecode counted as FFmpeg's `av_timecode` counts it (libavutil/timecode.c): a frame number from
/// 00:00:00:00 at a whole number of frames a second, and for 29.97 and 59.94 fps drop-frame labels (`;`), which skip
/// the first two (four) labels of every minute but each tenth so that the label keeps up with the clock. The MP4/MOV
/// muxer turns the text it is given into such a frame number (`av_timecode_init_from_string`) and the demuxer back
/// into text (`av_timecode_make_string`): what this type computes is what the output reads back.
package struct Timecode: Sendable, Equatable {
    /// Frames counted from 00:00:00:00, wrapped to 24 hours.
    package var frame: Int
    /// Frames a second: the rate rounded (30 for 30000/1001).
    package var fps: Int
    /// Drop-frame labels (written with `;`).
    package var dropFrame: Bool

    /// The timecode `text` (`hh:mm:ss:ff`, drop-frame with `;` or `.` before the frames) at `rate` frames a second;
    /// nil when it is not one, as `av_timecode_init_from_string` refuses it (no rate, drop frame off 30000/1001's multiples).
    package init?(_ text: String, rate: Double) {
        let fps = rate.isFinite ? Int(rate.rounded()) : 0
        var parts = text.trimmingCharacters(in: .whitespaces).split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        var drop = false
        if parts.count == 3, let last = parts[2].firstIndex(where: { $0 == ";" || $0 == "." }) {
            parts = parts.prefix(2) + [String(parts[2][..<last]), String(parts[2][parts[2].index(after: last)...])]
            drop = true
        }
        let numbers = parts.compactMap { Int($0) }.filter { $0 >= 0 && $0 < 1_000_000 }
        guard fps > 0, fps <= 1000, numbers.count == 4, parts.count == 4, !(drop && fps % 30 != 0) else { return nil }
        let minutes = 60 * numbers[0] + numbers[1]
        var frame = (minutes * 60 + numbers[2]) * fps + numbers[3]
        if drop { frame -= fps / 30 * 2 * (minutes - minutes / 10) }
        self.init(frame: frame, fps: fps, dropFrame: drop)
    }

    /// A timecode `frame` frames from midnight.
    package init(frame: Int, fps: Int, dropFrame: Bool) {
        let day = fps * 86_400 - (dropFrame ? fps / 30 * 2 * (1440 - 144) : 0)
        self.frame = day > 0 ? ((frame % day) + day) % day : frame
        self.fps = fps; self.dropFrame = dropFrame
    }

    /// Why `text`'s fields are no time of day at `fps` frames a second (hours 0–23, minutes and seconds 0–59, frames
    /// under `fps`): FFmpeg's muxers take such a label and wrap its frame number into another time. nil when they are
    /// one, or when `text` has not four fields (`init?` refuses that).
    package static func outOfRange(_ text: String, fps: Int) -> String? {
        let fields = text.split(whereSeparator: { $0 == ":" || $0 == ";" || $0 == "." })
            .compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard fields.count == 4 else { return nil }
        let limits: [(name: String, limit: Int)] = [("hours", 24), ("minutes", 60), ("seconds", 60), ("frames", fps)]
        let over = zip(limits, fields).filter { field, value in field.limit > 0 && value >= field.limit }
            .map { field, value in "\(field.name) \(value) over \(field.limit - 1)" }
        return over.isEmpty ? nil : "not a valid time of day at \(fps) fps (\(over.joined(separator: ", ")))"
    }

    /// The label, as `av_timecode_make_string` writes it: `10:00:02:00`, `00:01:00;02`.
    package var text: String {
        var n = frame
        if dropFrame && fps % 30 == 0 {
            // av_timecode_adjust_ntsc_framenum2: the labels skipped before this frame.
            let drop = fps / 30 * 2, perTen = fps / 30 * 17982
            n += 9 * drop * (n / perTen) + drop * ((n % perTen - drop) / (perTen / 10))
        }
        let ff = n % fps, ss = n / fps % 60, mm = n / (fps * 60) % 60, hh = n / (fps * 3600)
        return String(format: "%02d:%02d:%02d%@%02d", hh, mm, ss, dropFrame ? ";" : ":", ff)
    }

    /// This timecode `frames` frames later.
    package func adding(frames: Int) -> Timecode { Timecode(frame: frame + frames, fps: fps, dropFrame: dropFrame) }

    /// The same moment counted at `fps` frames a second (the frame number scaled, rounded down); drop
    /// frame is kept only where the new rate allows it.
    package func counted(at fps: Int) -> Timecode {
        guard fps != self.fps, fps > 0 else { return self }
        return Timecode(frame: frame * fps / self.fps, fps: fps, dropFrame: dropFrame && fps % 30 == 0)
    }
}

/// What an export does with the source's timecode (`ExportPlan.timecode`). The MP4/MOV muxer writes a timecode
/// track (`tmcd`) for a video stream with a `timecode` tag, and Matroska keeps the tag: so the plan says which
/// value the output's main video carries, and the verifier checks that it reads back so (and that no other does).
package struct TimecodePlan: Sendable, Equatable {
    /// The source's timecode, as read (its main video's `timecode` tag, its timecode track's, or the container's).
    package var source: String
    /// The timecode of the output's first frame: the source's, moved on by a trim; nil when it is dropped.
    package var output: String?
    /// The input index of the video stream whose output stream carries it.
    package var stream: Int?
    /// True when the output holds it as a QuickTime timecode track (MP4, MOV, M4V); false: a `TIMECODE` tag (Matroska).
    package var asTrack: Bool
    /// Why the output does not carry it (a warning of the export).
    package var dropReason: String?

    /// The warning for a timecode dropped; nil when it is kept.
    package var warning: String? { dropReason.map { "timecode \(source) dropped: \($0)" } }
}

extension ExportPlanner {
    /// The reason of a source timecode track (`tmcd`) until the timecode is planned: not copied as a stream, its
    /// timecode is planned on its own (`TimecodePlan`: a new track or tag, or dropped with a warning of its own).
    package static let timecodeTrackReason = "timecode track: not copied as a stream; the output's timecode is planned on its own"

    /// Plans the output's timecode (`ExportPlan.timecode`), with a note when it changes, and says in the source's
    /// timecode track's reason what becomes of it.
    static func planTimecode(_ plan: inout ExportPlan, source: SourceInfo, container: Container) {
        plan.timecode = timecode(source: source, decisions: plan.streams, container: container, timeline: plan.timeline)
        guard let t = plan.timecode else { return }
        if let note = timecodeNote(t) { plan.notes.append(note) }
        let fate = t.output.map { "its timecode (\($0)) is written anew on the video, as \(t.asTrack ? "a timecode track" : "its TIMECODE tag")" }
            ?? "the timecode is dropped (\(t.dropReason ?? ""))"
        for k in plan.streams.indices where source.streams[plan.streams[k].index].isTimecodeTrack && !plan.streams[k].isKept {
            plan.streams[k].action = .drop(reason: "timecode track: not copied as a stream; \(fate)")
        }
    }

    /// The timecode the output carries, or why not; nil when the source has none.
    static func timecode(source: SourceInfo, decisions: [StreamDecision], container: Container, timeline: PlannedTimeline) -> TimecodePlan? {
        let track = source.streams.first { $0.isTimecodeTrack }
        guard let text = source.mainVideo.flatMap({ source.streams[$0].timecode }) ?? track?.timecode
                ?? source.tags.first(where: { $0.key.lowercased() == "timecode" })?.value else { return nil }
        var plan = TimecodePlan(source: text, asTrack: !container.isMatroskaFamily)
        guard let v = source.mainVideo, v < decisions.count, decisions[v].isKept, !decisions[v].isCoverArt else {
            plan.dropReason = "the output has no video"
            return plan
        }
        let video = source.streams[v]
        guard let rate = video.frameRate ?? track?.frameRate, let start = Timecode(text, rate: track?.frameRate ?? rate) else {
            plan.dropReason = "'\(text)' is not a timecode at the video's frame rate (\(video.frameRate.map { FrameRateCap.format($0) } ?? "unknown") fps)"
            return plan
        }
        if let problem = Timecode.outOfRange(text, fps: start.fps) {
            let holder = video.timecode != nil ? "stream #\(v)'s" : track.map { "timecode track #\($0.index)'s" } ?? "the container's"
            plan.dropReason = "\(holder) label is \(problem)"
            return plan
        }
        // The output starts this many source frames in (a transcode, and a stream copy behind an edit list, show the
        // first frame at or after the cut; a copy into Matroska starts at a keyframe, which is its origin).
        let seconds = max(0, timeline.origin - source.startTime)
        // Counted at the video's rate (a timecode track may count at another: 25 beside 50p video).
        var out = start.counted(at: Int(rate.rounded())).adding(frames: seconds > 0 ? Int((seconds * rate - 1e-3).rounded(.up)) : 0)
        // The muxer counts the label at the output's frame rate: a capped transcode's is the cap.
        var outRate = rate
        if case .transcodeVideo(let p) = decisions[v].action, let cap = p.frameRateCap { outRate = min(outRate, cap.maxFrameRate) }
        out = out.counted(at: Int(outRate.rounded()))
        plan.output = out.text
        plan.stream = v
        return plan
    }

    /// The note on a timecode the output carries otherwise than the source (moved by a trim, counted at another rate).
    static func timecodeNote(_ plan: TimecodePlan) -> String? {
        guard let out = plan.output, out != plan.source else { return nil }
        return "timecode \(plan.source) becomes \(out) at the output's first frame (where it starts in the source, at its frame rate)"
    }
}
