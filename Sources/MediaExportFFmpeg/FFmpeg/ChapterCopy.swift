internal import CFFmpeg
import Foundation
import MediaExportCore

/// Chapters from the input's container to the output's, as fftools' `copy_chapters` moves them: read from the
/// demuxer's `AVFormatContext` by the probe (`SourceInfo.chapters`), placed on the output's timeline with the tags the
/// metadata level keeps by the planner (`ExportPlan.chapters`), and given to the muxer's context before its header is
/// written.
enum ChapterCopy {
    /// The time base chapters are written in: milliseconds, the MP4/MOV chapter track's own (Matroska rescales).
    static let timeBase = AVRational(num: 1, den: 1000)

    /// The chapters `context` (an opened input) lists, in its order, in seconds counted from its start time.
    /// A chapter without a start is skipped; one without an end ends where the next starts, or where the file ends.
    static func read(_ context: UnsafeMutablePointer<AVFormatContext>) -> [SourceChapter] {
        let ctx = context.pointee
        let count = Int(ctx.nb_chapters)
        guard count > 0, let list = ctx.chapters else { return [] }
        let startTime = ctx.start_time == AVCode.noPTS ? 0 : Double(ctx.start_time) / Double(AV_TIME_BASE)
        let fileEnd: Double? = ctx.duration > 0 && ctx.duration != AVCode.noPTS ? Double(ctx.duration) / Double(AV_TIME_BASE) : nil
        func seconds(_ ts: Int64, _ base: AVRational) -> Double? {
            guard ts != AVCode.noPTS, base.num > 0, base.den > 0 else { return nil }
            return Double(ts) * av_q2d(base) - startTime
        }
        let chapters = (0..<count).compactMap { list[$0]?.pointee }
        var result: [SourceChapter] = []
        for (k, chapter) in chapters.enumerated() {
            guard let start = seconds(chapter.start, chapter.time_base) else { continue }
            let next = k + 1 < chapters.count ? seconds(chapters[k + 1].start, chapters[k + 1].time_base) : nil
            guard let end = seconds(chapter.end, chapter.time_base) ?? next ?? fileEnd else { continue }
            result.append(SourceChapter(start: start, end: end, tags: Demuxer.dictionary(chapter.metadata)))
        }
        return result
    }

    /// Appends `chapters` to `context` (an output whose header is not written yet). The array and each `AVChapter`
    /// are allocated with FFmpeg's allocator and belong to the context from the moment they are counted in
    /// `nb_chapters`: `avformat_free_context` frees them (the Muxer's deinit), once, whatever fails here. `path` is
    /// the output's, for messages.
    static func attach(_ chapters: [OutputChapter], to context: UnsafeMutablePointer<AVFormatContext>, path: String) throws {
        guard !chapters.isEmpty else { return }
        let existing = Int(context.pointee.nb_chapters)
        // av_realloc_array, not fftools' av_realloc_f: on failure the context keeps its old array (av_realloc_f
        // would free it under the context's feet).
        guard let grown = av_realloc_array(context.pointee.chapters, existing + chapters.count,
                                           MemoryLayout<UnsafeMutablePointer<AVChapter>?>.stride) else {
            throw ExportError.ffmpeg(stage: .mux, path: path, code: cff_averror(ENOMEM), message: "no memory for the chapters")
        }
        let list = grown.bindMemory(to: UnsafeMutablePointer<AVChapter>?.self, capacity: existing + chapters.count)
        context.pointee.chapters = list
        for (k, chapter) in chapters.enumerated() {
            guard let raw = av_mallocz(MemoryLayout<AVChapter>.size) else {
                throw ExportError.ffmpeg(stage: .mux, path: path, code: cff_averror(ENOMEM), message: "no memory for a chapter")
            }
            let out = raw.bindMemory(to: AVChapter.self, capacity: 1)
            // Numbered from 1: Matroska takes the id as the chapter's UID, which must not be 0.
            out.pointee.id = Int64(existing + k + 1)
            out.pointee.time_base = timeBase
            // A chapter's times are the file's (finite, but as large as it likes).
            out.pointee.start = Int64(saturating: (chapter.start * Double(timeBase.den)).rounded())
            out.pointee.end = max(out.pointee.start, Int64(saturating: (chapter.end * Double(timeBase.den)).rounded()))
            list[existing + k] = out
            context.pointee.nb_chapters += 1  // the context owns it from here
            for (key, value) in chapter.tags.sorted(by: { $0.key < $1.key }) {
                let code = av_dict_set(&out.pointee.metadata, key, value, 0)
                if code < 0 { throw ExportError.ffmpeg(stage: .mux, path: path, code: code, message: "setting a chapter's \(key)") }
            }
        }
    }
}

extension Demuxer {
    /// The input's chapters, in seconds counted from its start time (see `ChapterCopy.read`): the probe's `SourceInfo.chapters`.
    var chapters: [SourceChapter] { ChapterCopy.read(context) }
}
