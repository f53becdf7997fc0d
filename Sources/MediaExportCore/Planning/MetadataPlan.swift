import Foundation

/// What an output's metadata level drops, channel by channel, decided by the planner (streams, chapters) and
/// `OutputTags` (container tags): the executor removes exactly these keys and writes the neutral values, the verifier
/// checks none is in the output, the `completed` record names them.
package struct MetadataPlan: Sendable, Equatable {
    /// The level asked for.
    package var level: MetadataLevel = .all
    /// Container keys dropped, sorted.
    package var container: [String] = []
    /// Per source stream index: the stream keys dropped, sorted (kept streams only).
    package var streams: [Int: [String]] = [:]
    /// Per source stream index: keys given a neutral value in place of the source's (`none`: a Matroska cover's
    /// `filename`, which the muxer needs, becomes `cover.jpg`). Each is among the stream's dropped keys.
    package var neutral: [Int: [String: String]] = [:]
    /// Per output chapter (0-based, in the output's order): the chapter keys dropped, sorted.
    package var chapters: [Int: [String]] = [:]
    /// Source streams dropped whole for what they carry.
    package var droppedStreams: [Int: PrivateStream] = [:]

    /// Creates a plan.
    package init(level: MetadataLevel = .all, container: [String] = [], streams: [Int: [String]] = [:]) {
        self.level = level; self.container = container; self.streams = streams
    }

    /// The plan of a route's `decisions` of `source` at `level`: the kept streams' tags, the neutral names, the
    /// streams dropped for what they carry (the container's tags and the chapters are filled in later).
    package init(source: SourceInfo, decisions: [StreamDecision], level: MetadataLevel, container: Container) {
        self.level = level
        let kept = decisions.filter(\.isKept)
        streams = Self.streams(source, kept: Set(kept.map(\.index)), level: level)
        for d in kept where d.isCoverArt && container.isMatroskaFamily && level == .bare && streams[d.index]?.contains("filename") == true {
            neutral[d.index] = ["filename": Self.neutralFileName(codec: d.codec)]
        }
        for d in decisions where d.index < source.streams.count {
            guard case .drop(let reason) = d.action, let why = PrivateStream.of(source.streams[d.index], level: level),
                  reason == why.description else { continue }
            droppedStreams[d.index] = why
        }
    }

    /// The stream tags a source's kept streams drop at `level`.
    package static func streams(_ source: SourceInfo, kept: Set<Int>, level: MetadataLevel) -> [Int: [String]] {
        var out: [Int: [String]] = [:]
        for stream in source.streams where kept.contains(stream.index) {
            let dropped = level.filter(stream.tags, in: .stream).dropped
            if !dropped.isEmpty { out[stream.index] = dropped }
        }
        return out
    }

    /// The name `none` gives a cover attachment: `cover.` and its picture's extension.
    package static func neutralFileName(codec: String) -> String {
        "cover." + (["png", "gif", "bmp"].contains(codec) ? codec : "jpg")
    }

    /// The title `none` gives the output's chapter `k` (0-based): its number.
    package static func neutralTitle(chapter k: Int) -> String { "Chapter \(k + 1)" }

    /// `chapters` (the output's, placed on its timeline) with their tags as this level keeps them, noting the keys
    /// dropped: `none` keeps only a title, the chapter's number (an MP4 chapter without a title is not written).
    package mutating func outputChapters(_ chapters: [OutputChapter]) -> [OutputChapter] {
        guard level != .all else { return chapters }
        var out = chapters
        for k in out.indices {
            let filtered = level.filter(out[k].tags, in: .chapter)
            out[k].tags = level == .bare ? ["title": Self.neutralTitle(chapter: k)] : filtered.kept
            if !filtered.dropped.isEmpty { self.chapters[k] = filtered.dropped }
        }
        return out
    }

    /// How many of `source`'s tags and streams the level drops (container, streams, chapters, the covers' metadata items:
    /// `CoverArt.itemsRemoved`): a source that fits
    /// but holds any is remuxed, not byte copied.
    package static func droppedCount(_ source: SourceInfo, level: MetadataLevel) -> Int {
        guard level != .all else { return 0 }
        let container = OutputTags.forOutput(resource: source.tags, original: nil, level: level).dropped.count
        let streams = streams(source, kept: Set(source.streams.map(\.index)), level: level).values.map(\.count).reduce(0, +)
        let whole = source.streams.filter { PrivateStream.of($0, level: level) != nil }.count
        return container + streams + whole + source.chapters.map { level.filter($0.tags, in: .chapter).dropped.count }.reduce(0, +)
            + CoverArt.itemsRemoved(source, level: level)
    }

    /// Every dropped key, named for the record: container keys sorted, then `stream #N: key` by stream and key, the
    /// streams dropped whole (`stream #N`), and `chapter #K: key` (K counted from 1 in the output's order).
    package var droppedNames: [String] {
        container + streams.keys.sorted().flatMap { i in streams[i, default: []].map { "stream #\(i): \($0)" } }
            + droppedStreams.keys.sorted().map { "stream #\($0)" }
            + chapters.keys.sorted().flatMap { k in chapters[k, default: []].map { "chapter #\(k + 1): \($0)" } }
    }

    /// The note of the `completed` record and the human summary; nil when nothing was dropped.
    package var note: String? {
        let names = droppedNames
        guard level != .all, !names.isEmpty else { return nil }
        let shown = names.prefix(6).joined(separator: ", ") + (names.count > 6 ? ", …" : "")
        let (tags, whole) = (names.count - droppedStreams.count, droppedStreams.count)
        let counted = [tags > 0 ? "\(tags) tag\(tags == 1 ? "" : "s")" : nil, whole > 0 ? "\(whole) stream\(whole == 1 ? "" : "s")" : nil]
        return "\(level == .sharing ? "metadata for sharing" : "no metadata"): dropped \(counted.compactMap { $0 }.joined(separator: " and ")) (\(shown))"
    }
}
