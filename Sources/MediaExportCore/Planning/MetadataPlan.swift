import Foundation

/// What an output's metadata level drops, decided by the planner (stream tags) and `OutputTags` (container tags):
/// the executor removes exactly these keys, the verifier checks none is in the output, the `completed` record names them.
package struct MetadataPlan: Sendable, Equatable {
    /// The level asked for.
    package var level: MetadataLevel = .all
    /// Container keys dropped, sorted.
    package var container: [String] = []
    /// Per source stream index: the stream keys dropped, sorted (kept streams only).
    package var streams: [Int: [String]] = [:]

    /// Creates a plan.
    package init(level: MetadataLevel = .all, container: [String] = [], streams: [Int: [String]] = [:]) {
        self.level = level; self.container = container; self.streams = streams
    }

    /// The stream tags a source's kept streams drop at `level`.
    package static func streams(_ source: SourceInfo, kept: Set<Int>, level: MetadataLevel) -> [Int: [String]] {
        var out: [Int: [String]] = [:]
        for stream in source.streams where kept.contains(stream.index) {
            let dropped = level.filter(stream.tags, stream: true).dropped
            if !dropped.isEmpty { out[stream.index] = dropped }
        }
        return out
    }

    /// Every dropped key, named for the record: container keys sorted, then `stream #N: key` by stream and key.
    package var droppedNames: [String] {
        container + streams.keys.sorted().flatMap { i in streams[i, default: []].map { "stream #\(i): \($0)" } }
    }

    /// The note of the `completed` record and the human summary; nil when nothing was dropped.
    package var note: String? {
        let names = droppedNames
        guard level != .all, !names.isEmpty else { return nil }
        let shown = names.prefix(6).joined(separator: ", ") + (names.count > 6 ? ", …" : "")
        return "\(level == .sharing ? "metadata for sharing" : "no metadata"): dropped \(names.count) tag\(names.count == 1 ? "" : "s") (\(shown))"
    }
}
