import Foundation

/// The time arithmetic of an export: the sidecar's trim merged with the request's range, the range checked against
/// the media, the stream copy's keyframe snap, and the resulting timeline.
package enum TimeRangePlanning {
    /// The range to read from the source: the sidecar's trim, narrowed by `timeRange` (which counts from the trim's
    /// start) — `ExportRequest.sourceRange(edits:)` without the request around it.
    package static func sourceRange(timeRange: TimeRange?, edits: EditSidecar?) -> TimeRange? {
        guard let trim = edits?.trim else { return timeRange }
        let start = trim.start + (timeRange?.start ?? 0)
        let end = timeRange?.end.map { min(trim.end, trim.start + $0) } ?? trim.end
        return TimeRange(start: start, end: end)
    }

    /// A source range checked against the media: the start and end to use (an end past the media's end becomes
    /// nil, with a note). Throws `ExportError.invalidTimeRange` naming `path`.
    package static func validate(_ range: TimeRange?, duration: Double?, path: String) throws -> (start: Double, end: Double?, notes: [String]) {
        var notes: [String] = []
        let start = range?.start ?? 0
        var end = range?.end
        if start < 0 || !start.isFinite { throw ExportError.invalidTimeRange(path: path, reason: "start \(start) s is negative") }
        // Far beyond any media; keeps seconds → timestamp conversions from overflowing when the duration is unknown.
        if start > 1e7 || (end ?? 0) > 1e7 || end?.isFinite == false {
            throw ExportError.invalidTimeRange(path: path, reason: "times must be at most 10000000 s")
        }
        if let e = end, !(e > start) { throw ExportError.invalidTimeRange(path: path, reason: "end \(e) s is not after start \(start) s") }
        if let d = duration {
            if start >= d { throw ExportError.invalidTimeRange(path: path, reason: String(format: "start %.3f s is past the end (%.3f s)", start, d)) }
            if let e = end, e > d { notes.append(String(format: "end %.3f s is past the media's end; exporting to %.3f s", e, d)); end = nil }
        }
        return (start, end, notes)
    }

    /// The timeline of a transcode or stream copy of `source` over `range` (already merged with the trim).
    ///
    /// A stream copy (`streamCopy`) cannot start between keyframes: when it starts after 0 it reads from the main
    /// video's keyframe at or before the start, as looked up by the probe (`source.cutKeyframe`, used only when its
    /// `requested` equals the start). Into a container with edit lists (`editList`: MP4/MOV) the requested start
    /// stays the output's time 0: the frames from the keyframe are copied with negative timestamps and the muxer's
    /// edit list hides them (`leadIn`), as `ffmpeg -ss 1 -i in -c copy out.mp4` does. Into one without (Matroska)
    /// the output starts at the keyframe, and a note says so. Without a lookup — no main video, or the FFmpeg layer
    /// did not look — the requested start is used and no note is added: the copy then starts at whatever packet
    /// the demuxer's seek lands on.
    package static func timeline(for source: SourceInfo, range: TimeRange?, streamCopy: Bool,
                                 editList: Bool = false) throws -> (timeline: PlannedTimeline, notes: [String]) {
        let checked = try validate(range, duration: source.duration, path: source.path)
        var start = checked.start, notes = checked.notes, leadIn = 0.0
        let end = checked.end
        if start > 0 && streamCopy, let lookup = source.cutKeyframe, lookup.requested == start {
            if lookup.keyframe >= start - 0.0005 {
                start = lookup.keyframe
            } else if editList {
                leadIn = start - lookup.keyframe
                notes.append(String(format: "passthrough cut: reads from the keyframe at %.3f s; the output's edit list hides the %.3f s before %.3f s",
                                    lookup.keyframe, leadIn, start))
            } else {
                notes.append(String(format: "passthrough cannot cut between keyframes: starts at the keyframe at %.3f s instead of %.3f s", lookup.keyframe, start))
                start = lookup.keyframe
            }
        }
        let length = end.map { $0 - start }
        let expected = length ?? source.duration.map { max(0, $0 - start) }
        var timeline = PlannedTimeline(origin: source.startTime + start, length: length, expectedDuration: expected)
        timeline.leadIn = leadIn
        return (timeline, notes)
    }
}

extension ExportRequest {
    /// The range to read from the source: the sidecar's trim, narrowed by `timeRange` (which counts from the
    /// trim's start).
    package func sourceRange(edits: EditSidecar?) -> TimeRange? { TimeRangePlanning.sourceRange(timeRange: timeRange, edits: edits) }
}
