import Foundation
import Testing
@testable import MediaExportCore

@Suite struct TimeRangeTests {
    /// Today's messages, word for word: (range, reason). The media is 10 s long.
    @Test(arguments: [
        (TimeRange(start: -1), "start -1.0 s is negative"),
        (TimeRange(start: .nan), "start nan s is negative"),
        (TimeRange(start: 2e7), "times must be at most 10000000 s"),
        (TimeRange(start: 1, end: 2e7), "times must be at most 10000000 s"),
        (TimeRange(end: .infinity), "times must be at most 10000000 s"),
        (TimeRange(start: 5, end: 5), "end 5.0 s is not after start 5.0 s"),
        (TimeRange(start: 5, end: 3), "end 3.0 s is not after start 5.0 s"),
        (TimeRange(start: 10), "start 10.000 s is past the end (10.000 s)"),
        (TimeRange(start: 12.5, end: 20), "start 12.500 s is past the end (10.000 s)"),
    ])
    func invalidRanges(_ range: TimeRange, _ reason: String) {
        #expect(throws: ExportError.invalidTimeRange(path: "/in/clip.mov", reason: reason)) {
            try planned(.landscape1080, Presets.highest, range: range)
        }
        // The stream copy checks the same way; the byte copy does not read the range at all.
        #expect(throws: ExportError.invalidTimeRange(path: "/in/clip.mov", reason: reason)) {
            try planned(.landscape1080, Presets.passthrough, range: range)
        }
        #expect(throws: Never.self) { try planned(.landscape1080, Presets.highest, route: .copy, range: range) }
    }

    /// (source, preset, edits, range, timeline, notes).
    @Test(arguments: [
        (SourceInfo.landscape1080, "highest", EditSidecar?.none, TimeRange?.none,
         PlannedTimeline(origin: 0, length: nil, expectedDuration: 10), [String]()),
        (.landscape1080, "highest", nil, TimeRange(start: 2, end: 12),
         PlannedTimeline(origin: 2, length: nil, expectedDuration: 8), ["end 12.000 s is past the media's end; exporting to 10.000 s"]),
        (.make([.h264(0, 640, 360)], duration: nil), "highest", nil, TimeRange(start: 100),
         PlannedTimeline(origin: 100, length: nil, expectedDuration: nil), []),
        (.make([.h264(0, 640, 360)], duration: nil), "highest", nil, TimeRange(start: 100, end: 250),
         PlannedTimeline(origin: 100, length: 150, expectedDuration: 150), []),
        (.make([.h264(0, 640, 360), .aac(1)], startTime: 1.5), "highest", nil, TimeRange(start: 2, end: 4),
         PlannedTimeline(origin: 3.5, length: 2, expectedDuration: 2), []),
        (.landscape1080, "highest", EditSidecar(trim: .init(start: 2, end: 6)), nil,
         PlannedTimeline(origin: 2, length: 4, expectedDuration: 4), []),
        // The request's range counts from the trim's start, and the trim's end caps it.
        (.landscape1080, "highest", EditSidecar(trim: .init(start: 2, end: 8)), TimeRange(start: 1, end: 3),
         PlannedTimeline(origin: 3, length: 2, expectedDuration: 2), []),
        (.landscape1080, "highest", EditSidecar(trim: .init(start: 2, end: 8)), TimeRange(start: 1, end: 30),
         PlannedTimeline(origin: 3, length: 5, expectedDuration: 5), []),
        // A transcode cuts anywhere: a keyframe lookup is not used.
        (.make([.h264(0, 640, 360), .aac(1)], cut: KeyframeLookup(requested: 2, keyframe: 1.5)), "highest", nil, TimeRange(start: 2, end: 6),
         PlannedTimeline(origin: 2, length: 4, expectedDuration: 4), []),
    ])
    func timelines(_ source: SourceInfo, _ preset: String, _ edits: EditSidecar?, _ range: TimeRange?, _ timeline: PlannedTimeline, _ notes: [String]) throws {
        let plan = try planned(source, Presets.named(preset), edits: edits, range: range)
        #expect(plan.timeline == timeline)
        #expect(plan.notes == notes)
    }

    /// Stream copies read from the keyframe the probe found: into MP4/MOV the requested start stays time 0 and the
    /// edit list hides the lead-in; into Matroska the copy starts at the keyframe. (source, preset, route,
    /// container, range, timeline, notes).
    @Test(arguments: [
        (SourceInfo.make([.h264(0, 640, 360), .aac(1)], startTime: 0.25, cut: KeyframeLookup(requested: 2, keyframe: 1.5)), "passthrough",
         ExportRoute.remux, Container.mov, TimeRange(start: 2, end: 6),
         Self.leadIn(PlannedTimeline(origin: 2.25, length: 4, expectedDuration: 4), 0.5),
         ["passthrough cut: reads from the keyframe at 1.500 s; the output's edit list hides the 0.500 s before 2.000 s"]),
        (SourceInfo.make([.h264(0, 640, 360), .aac(1)], startTime: 0.25, cut: KeyframeLookup(requested: 2, keyframe: 1.5)), "passthrough",
         ExportRoute.remux, Container.mkv, TimeRange(start: 2, end: 6),
         PlannedTimeline(origin: 1.75, length: 4.5, expectedDuration: 4.5),
         ["passthrough cannot cut between keyframes: starts at the keyframe at 1.500 s instead of 2.000 s"]),
        // The fallback remux of a transcoding preset reads the same way (and says "passthrough", as today).
        (.make([.h264(0, 640, 360), .aac(1)], cut: KeyframeLookup(requested: 2, keyframe: 1.5)), "highest", .remux, .mp4, TimeRange(start: 2),
         Self.leadIn(PlannedTimeline(origin: 2, length: nil, expectedDuration: 8), 0.5),
         ["passthrough cut: reads from the keyframe at 1.500 s; the output's edit list hides the 0.500 s before 2.000 s"]),
        (.make([.h264(0, 640, 360), .aac(1)], cut: KeyframeLookup(requested: 2, keyframe: 1.5)), "highest", .remux, .webm, TimeRange(start: 2),
         PlannedTimeline(origin: 1.5, length: nil, expectedDuration: 8.5),
         ["passthrough cannot cut between keyframes: starts at the keyframe at 1.500 s instead of 2.000 s"]),
        // Within half a millisecond: the keyframe is used, without a note or a lead-in.
        (.make([.h264(0, 640, 360)], cut: KeyframeLookup(requested: 2, keyframe: 1.9996)), "passthrough", .remux, .mov, TimeRange(start: 2, end: 3),
         PlannedTimeline(origin: 1.9996, length: 3 - 1.9996, expectedDuration: 3 - 1.9996), []),
        // A lookup for another cut is not this one's: the requested start stands, without a note.
        (.make([.h264(0, 640, 360)], cut: KeyframeLookup(requested: 3, keyframe: 1.5)), "passthrough", .remux, .mov, TimeRange(start: 2),
         PlannedTimeline(origin: 2, length: nil, expectedDuration: 8), []),
        // No lookup (e.g. no video): the requested start, no note.
        (.audioOnly, "passthrough", .remux, .mov, TimeRange(start: 2),
         PlannedTimeline(origin: 2, length: nil, expectedDuration: 8), []),
    ])
    func keyframeSnap(_ source: SourceInfo, _ preset: String, _ route: ExportRoute, _ container: Container, _ range: TimeRange,
                      _ timeline: PlannedTimeline, _ notes: [String]) throws {
        let plan = try planned(source, Presets.named(preset), route: route, container: container, range: range)
        #expect(plan.timeline == timeline)
        #expect(plan.notes == notes)
    }

    static func leadIn(_ timeline: PlannedTimeline, _ seconds: Double) -> PlannedTimeline {
        var t = timeline
        t.leadIn = seconds
        return t
    }

    /// A range of a constant-rate stream that declares no frame count (MPEG-PS/TS) is expected to hold its length
    /// at that rate; a variable rate, or a stream that ends inside the range, gives no prediction.
    @Test func framesPredictedForARangeOfAConstantRate() throws {
        func ts(base: Double?, duration: Double) -> SourceInfo {
            var video = SourceStream(index: 0, kind: .video, codec: "mpeg2video", fitsIn: [.mp4, .mkv], duration: duration, width: 720, height: 576, frameRate: 25)
            video.baseFrameRate = base
            var info = SourceInfo(path: "/in/ps.mpg", formatName: "mpeg", duration: duration, startTime: 0.53, streams: [video], mainVideo: 0)
            info.streams[0].durationIsOwn = true
            return info
        }
        let range = TimeRange(start: 1, end: 3)
        let cfr = try ExportPlanner.plan(source: ts(base: 25, duration: 5), preset: Presets.named("1280x720"), route: .transcode, container: .mp4,
                                         edits: nil, range: range)
        #expect(cfr.streams[0].expectedFrames == 50 && cfr.streams[0].framesEstimated)
        let vfr = try ExportPlanner.plan(source: ts(base: 60, duration: 5), preset: Presets.named("1280x720"), route: .transcode, container: .mp4,
                                         edits: nil, range: range)
        #expect(vfr.streams[0].expectedFrames == nil)
        let short = try ExportPlanner.plan(source: ts(base: 25, duration: 2.5), preset: Presets.named("1280x720"), route: .transcode, container: .mp4,
                                           edits: nil, range: range)
        #expect(short.streams[0].expectedFrames == nil)
        let whole = try ExportPlanner.plan(source: ts(base: 25, duration: 5), preset: Presets.named("1280x720"), route: .transcode, container: .mp4,
                                           edits: nil, range: nil)
        #expect(whole.streams[0].expectedFrames == nil)
    }

    @Test func whichCutToLookUp() {
        let range = TimeRange(start: 2, end: 6)
        #expect(ExportPlanner.keyframeLookup(source: .landscape1080, preset: Presets.passthrough, route: .remux, edits: nil, range: range) == 2)
        #expect(ExportPlanner.keyframeLookup(source: .landscape1080, preset: Presets.highest, route: .remux, edits: EditSidecar(trim: .init(start: 1, end: 9)),
                                             range: range) == 3)
        #expect(ExportPlanner.keyframeLookup(source: .landscape1080, preset: Presets.highest, route: .transcode, edits: nil, range: range) == nil)
        #expect(ExportPlanner.keyframeLookup(source: .landscape1080, preset: Presets.passthrough, route: .copy, edits: nil, range: range) == nil)
        #expect(ExportPlanner.keyframeLookup(source: .landscape1080, preset: Presets.passthrough, route: .remux, edits: nil, range: nil) == nil)
        #expect(ExportPlanner.keyframeLookup(source: .audioOnly, preset: Presets.passthrough, route: .remux, edits: nil, range: range) == nil)
        #expect(ExportPlanner.keyframeLookup(source: .landscape1080, preset: Presets.passthrough, route: .remux, edits: nil,
                                             range: TimeRange(start: 11)) == nil)
    }

    /// `sourceRange(edits:)` without the request: (request range, trim, source range).
    @Test(arguments: [
        (TimeRange?.none, EditSidecar.Trim?.none, TimeRange?.none),
        (TimeRange(start: 1, end: 2), nil, TimeRange(start: 1, end: 2)),
        (nil, EditSidecar.Trim(start: 2, end: 8), TimeRange(start: 2, end: 8)),
        (TimeRange(start: 1), EditSidecar.Trim(start: 2, end: 8), TimeRange(start: 3, end: 8)),
        (TimeRange(end: 4), EditSidecar.Trim(start: 2, end: 8), TimeRange(start: 2, end: 6)),
        (TimeRange(start: 1, end: 30), EditSidecar.Trim(start: 2, end: 8), TimeRange(start: 3, end: 8)),
    ])
    func rangeMerging(_ range: TimeRange?, _ trim: EditSidecar.Trim?, _ expected: TimeRange?) {
        #expect(TimeRangePlanning.sourceRange(timeRange: range, edits: EditSidecar(trim: trim)) == expected)
        // The same as the request's own merge (ExportRequest.sourceRange, copied as it is).
        var request = ExportRequest(input: "/in", output: "/out.mp4", preset: Presets.highest)
        request.timeRange = range
        #expect(request.sourceRange(edits: EditSidecar(trim: trim)) == expected)
    }
}
