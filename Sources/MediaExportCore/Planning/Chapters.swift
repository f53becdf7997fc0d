import Foundation

/// A chapter of the output, in seconds on the output's clock (0 is its first frame).
package struct OutputChapter: Sendable, Equatable, Codable {
    /// Where the chapter starts in the output.
    package var start: Double
    /// Where it ends in the output.
    package var end: Double
    /// The source chapter's tags, `title` among them.
    package var tags: [String: String]

    /// The chapter's name, if it has one.
    package var title: String? { tags["title"] }

    /// Creates an output chapter.
    package init(start: Double, end: Double, tags: [String: String] = [:]) {
        self.start = start; self.end = end; self.tags = tags
    }
}

/// Carries the source's chapters onto the output's timeline, as the ffmpeg CLI does by default (fftools'
/// `copy_chapters`: shifted by the output's start, cut to its length), and, unlike it, stretched by slow motion.
package enum Chapters {
    /// Shorter than this once cut to the timeline, a chapter is what is left of one that ends where the output starts
    /// (a keyframe snap, rounding), not a chapter: one tick of the millisecond time base chapters are written in.
    package static let shortest = 0.001

    /// The output's chapters for `chapters` exported over `timeline`, in order of their start.
    ///
    /// A chapter partly inside the timeline is clipped to it, one wholly outside is left out; ends are clamped to the
    /// timeline's length and to the output's expected duration (a chapter running past the media would make an MP4's
    /// chapter track, and so the whole movie, look longer than it is). Times go through `outputSeconds`, so slow
    /// motion stretches them; the tags (the title) are kept.
    ///
    /// - Parameters:
    ///   - timeline: the plan's; `origin` is on the source's clock as FFmpeg reads it (its `startTime` included).
    ///   - sourceStartTime: the source's `startTime`, given apart: the timeline's own `sourceStart` is only set when
    ///     slow motion needs it (0 otherwise, whatever the source's start).
    package static func forOutput(_ chapters: [SourceChapter], timeline: PlannedTimeline, sourceStartTime: Double) -> [OutputChapter] {
        // Where the output's 0 is, counted from the source's start.
        let zero = timeline.origin - sourceStartTime
        let limit = timeline.length ?? .infinity
        let outputEnd = timeline.expectedDuration.flatMap { $0 > 0 ? $0 : nil } ?? .infinity
        var result: [OutputChapter] = []
        for chapter in chapters.sorted(by: { $0.start < $1.start }) {
            guard chapter.start.isFinite, chapter.end.isFinite, chapter.end > chapter.start else { continue }
            // Seconds of the source read from `origin`, clipped to what is read.
            let start = max(0, chapter.start - zero)
            let end = min(limit, chapter.end - zero)
            guard end - start >= shortest else { continue }
            let out = OutputChapter(start: timeline.outputSeconds(start), end: min(outputEnd, timeline.outputSeconds(end)), tags: chapter.tags)
            guard out.end - out.start >= shortest else { continue }
            result.append(out)
        }
        return result
    }
}
