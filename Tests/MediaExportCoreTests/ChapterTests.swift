import Foundation
import Testing
@testable import MediaExportCore

/// Chapters on the output's timeline: shifted to its 0, cut to the range, stretched by slow motion, titles kept.
@Suite struct ChapterTests {
    /// Two chapters over a 4 s source: "Opening" 0–1.5 s, "Second part" 1.5–4 s.
    static let two = [SourceChapter(start: 0, end: 1.5, title: "Opening"), SourceChapter(start: 1.5, end: 4, title: "Second part")]

    /// The chapters as (start, end, title), for comparisons within a microsecond.
    static func times(_ chapters: [OutputChapter]) -> [(Double, Double, String)] {
        chapters.map { ($0.start, $0.end, $0.title ?? "") }
    }

    static func expect(_ got: [OutputChapter], _ want: [(Double, Double, String)], sourceLocation: SourceLocation = #_sourceLocation) {
        let g = times(got)
        #expect(g.count == want.count, "\(g)", sourceLocation: sourceLocation)
        for (a, b) in zip(g, want) {
            #expect(abs(a.0 - b.0) < 1e-9 && abs(a.1 - b.1) < 1e-9 && a.2 == b.2, "\(a) is not \(b)", sourceLocation: sourceLocation)
        }
    }

    @Test func theWholeSourceKeepsEveryChapterAsItIs() {
        let out = Chapters.forOutput(Self.two, timeline: PlannedTimeline(origin: 0, expectedDuration: 4), sourceStartTime: 0)
        Self.expect(out, [(0, 1.5, "Opening"), (1.5, 4, "Second part")])
    }

    @Test func aSourceThatStartsLateIsCountedFromItsStart() {
        // An MPEG-TS clock at 1.4 s: the timeline's origin is on that clock, the chapters count from the start.
        let out = Chapters.forOutput(Self.two, timeline: PlannedTimeline(origin: 1.4, expectedDuration: 4), sourceStartTime: 1.4)
        Self.expect(out, [(0, 1.5, "Opening"), (1.5, 4, "Second part")])
        // The same with a range from 1 s (origin 2.4 on the source's clock).
        let trimmed = Chapters.forOutput(Self.two, timeline: PlannedTimeline(origin: 2.4, length: 2, expectedDuration: 2), sourceStartTime: 1.4)
        Self.expect(trimmed, [(0, 0.5, "Opening"), (0.5, 2, "Second part")])
    }

    @Test func aRangeShiftsAndClipsAndDropsWhatIsOutside() {
        let chapters = [SourceChapter(start: 0, end: 0.8, title: "Before"), SourceChapter(start: 0.8, end: 1.5, title: "Opening"),
                        SourceChapter(start: 1.5, end: 2.5, title: "Middle"), SourceChapter(start: 2.5, end: 3.2, title: "Cut"),
                        SourceChapter(start: 3.2, end: 4, title: "After")]
        // Range 1–3 s: "Before" ends before it, "After" starts after it; the ones across an edge are clipped.
        let out = Chapters.forOutput(chapters, timeline: PlannedTimeline(origin: 1, length: 2, expectedDuration: 2), sourceStartTime: 0)
        Self.expect(out, [(0, 0.5, "Opening"), (0.5, 1.5, "Middle"), (1.5, 2, "Cut")])
    }

    @Test func aChapterEndingWhereTheOutputStartsIsNotKept() {
        // A keyframe snap a hair before the chapter's end leaves less than a millisecond of it: not a chapter.
        let out = Chapters.forOutput(Self.two, timeline: PlannedTimeline(origin: 1.4996, expectedDuration: 2.5004), sourceStartTime: 0)
        Self.expect(out, [(0.0004, 2.5004, "Second part")])
        // One starting exactly where the range ends is outside it.
        let cut = Chapters.forOutput(Self.two, timeline: PlannedTimeline(origin: 0, length: 1.5, expectedDuration: 1.5), sourceStartTime: 0)
        Self.expect(cut, [(0, 1.5, "Opening")])
    }

    @Test func endsAreClampedToTheOutput() {
        // A last chapter running past the media (the container's chapter list says 10 s, the media lasts 4 s).
        let long = [SourceChapter(start: 0, end: 2, title: "A"), SourceChapter(start: 2, end: 10, title: "B"),
                    SourceChapter(start: 5, end: 10, title: "Past the end")]
        let out = Chapters.forOutput(long, timeline: PlannedTimeline(origin: 0, expectedDuration: 4), sourceStartTime: 0)
        Self.expect(out, [(0, 2, "A"), (2, 4, "B")])
        // Without a known duration nothing clamps it (as the ffmpeg CLI).
        let unknown = Chapters.forOutput(long, timeline: PlannedTimeline(origin: 0), sourceStartTime: 0)
        Self.expect(unknown, [(0, 2, "A"), (2, 10, "B"), (5, 10, "Past the end")])
    }

    @Test func slowMotionStretchesChapterTimes() {
        // 1–2 s played at half speed: that second lasts two in the output.
        var timeline = PlannedTimeline(origin: 0)
        timeline.slowMotion = SlowMotion(rate: 0.5, regions: [.init(start: 1, duration: 1)])
        timeline.expectedDuration = 5
        Self.expect(Chapters.forOutput(Self.two, timeline: timeline, sourceStartTime: 0), [(0, 2, "Opening"), (2, 5, "Second part")])
        // With a range 0.5–3.5 s on a source whose clock starts at 10 s: origin 10.5, the region 1–2 s still on the
        // original's timeline.
        var trimmed = PlannedTimeline(origin: 10.5, length: 3)
        trimmed.slowMotion = SlowMotion(rate: 0.5, regions: [.init(start: 1, duration: 1)])
        trimmed.sourceStart = 10
        trimmed.expectedDuration = trimmed.outputSeconds(3)
        #expect(abs(trimmed.expectedDuration! - 4) < 1e-9)
        Self.expect(Chapters.forOutput(Self.two, timeline: trimmed, sourceStartTime: 10), [(0, 1.5, "Opening"), (1.5, 4, "Second part")])
    }

    @Test func tagsAreKeptAndOddChaptersSkipped() {
        let chapters = [SourceChapter(start: 2, end: 3, tags: ["title": "Later", "language": "fra"]),
                        SourceChapter(start: 0, end: 1, title: "First"),
                        SourceChapter(start: 1, end: 1, title: "Empty"), SourceChapter(start: 1.5, end: 1.2, title: "Backwards"),
                        SourceChapter(start: .nan, end: 2, title: "No start"), SourceChapter(start: 3, end: .infinity, title: "No end")]
        let out = Chapters.forOutput(chapters, timeline: PlannedTimeline(origin: 0, expectedDuration: 4), sourceStartTime: 0)
        // In order of their start; the untitled and well-formed kept with every tag.
        Self.expect(out, [(0, 1, "First"), (2, 3, "Later")])
        #expect(out.last?.tags == ["title": "Later", "language": "fra"])
        #expect(Chapters.forOutput([], timeline: PlannedTimeline(origin: 0), sourceStartTime: 0).isEmpty)
    }

    @Test func thePlannersTimelinePlacesChaptersLikeTheRange() throws {
        // The planner's own timeline for a range of 2–4 s on a source whose clock starts at 1.5 s.
        let source = SourceInfo.make([.h264(0, 1920, 1080), .aac(1)], duration: 6, startTime: 1.5)
        let plan = try planned(source, Presets.named("1280x720"), container: .mp4, range: TimeRange(start: 2, end: 4))
        #expect(plan.timeline.origin == 3.5)
        let chapters = [SourceChapter(start: 0, end: 2.5, title: "One"), SourceChapter(start: 2.5, end: 6, title: "Two")]
        let out = Chapters.forOutput(chapters, timeline: plan.timeline, sourceStartTime: source.startTime)
        Self.expect(out, [(0, 0.5, "One"), (0.5, 2, "Two")])
    }
}
