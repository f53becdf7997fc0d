import Foundation

/// One thing a metadata level promised to leave out that the output holds: the reason a `metadata sharing|none`
/// check fails.
package struct MetadataLeak: Sendable, Equatable, Hashable, Comparable, CustomStringConvertible {
    /// Where the key was read back.
    package enum Place: Sendable, Equatable, Hashable, Comparable {
        /// The container's tags.
        case container
        /// The tags of the output stream made of this source stream.
        case stream(Int)
        /// The tags of the output's chapter at this position (0-based).
        case chapter(Int)
    }

    /// Where.
    package var place: Place
    /// The key as read back.
    package var key: String

    /// Creates a leak.
    package init(_ place: Place, _ key: String) { self.place = place; self.key = key }

    /// `LOCATION`, `stream #1: location`, `chapter #2: AUTHOR` (chapters counted from 1, as the record names them).
    package var description: String {
        switch place {
        case .container: return key
        case .stream(let i): return "stream #\(i): \(key)"
        case .chapter(let k): return "chapter #\(k + 1): \(key)"
        }
    }

    package static func < (a: MetadataLeak, b: MetadataLeak) -> Bool { (a.place, a.key) < (b.place, b.key) }
}

/// The check that a metadata level (`MetadataLevel`) held, in every channel it covers: none of the keys it dropped is
/// in the output, in the container or in any stream (keys in any case: Matroska's read back in capitals), a neutral
/// value is what was written in its place, and for `sharing` no key the table drops at all (MP4 writes some keys under
/// other names: `location` for `©xyz`); each chapter holds no key and no title but the plan's. The tags the output's
/// muxer writes of its own (`ContainerKeeps.muxerStreamTags`) are not looked for. None at level `all`.
extension OutputVerifier {
    static func metadataChecks(plan: ExportPlan, kept: [StreamDecision], outStreams: [OutputFacts.Stream], facts: OutputFacts) -> [Verification.Check] {
        let level = plan.metadata.level
        guard level != .all else { return [] }
        let found = metadataLeaks(plan: plan, kept: kept, outStreams: outStreams, facts: facts)
        let count = plan.metadata.droppedNames.count
        let expected = "none of the \(count) dropped key\(count == 1 ? "" : "s")" + (level == .sharing ? ", no location or identifier" : "")
            + (plan.chapters.isEmpty ? "" : ", chapters as planned")
        return [check("metadata \(level.rawValue)", expected, found.isEmpty ? "none present" : "present: " + found.map(\.description).joined(separator: ", "),
                      found.isEmpty)]
    }

    /// What the output holds that the level leaves out, sorted.
    static func metadataLeaks(plan: ExportPlan, kept: [StreamDecision], outStreams: [OutputFacts.Stream], facts: OutputFacts) -> [MetadataLeak] {
        let level = plan.metadata.level
        // The muxer's own stream tags (Matroska's `DURATION`) are written whatever the source said: not a leak.
        let own = plan.container?.keeps.muxerStreamTags ?? []
        func present(_ keys: [String], in tags: [String: String], neutral: [String: String] = [:]) -> [String] {
            let written = Dictionary(tags.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { a, _ in a })
            return keys.filter { key in
                let k = key.lowercased()
                return written[k] != nil && !own.contains(k) && written[k] != neutral[key]
            }
        }
        func forbidden(_ tags: [String: String], _ channel: MetadataLevel.Channel) -> [String] {
            level == .sharing ? tags.keys.filter { level.dropReason($0, in: channel) != nil } : []
        }
        var found = Set((present(plan.metadata.container, in: facts.tags) + forbidden(facts.tags, .container)).map { MetadataLeak(.container, $0) })
        for (j, decision) in kept.enumerated() where j < outStreams.count {
            let tags = outStreams[j].tags
            let keys = present(plan.metadata.streams[decision.index] ?? [], in: tags, neutral: plan.metadata.neutral[decision.index] ?? [:])
                + forbidden(tags, .stream)
            found.formUnion(keys.map { MetadataLeak(.stream(decision.index), $0) })
        }
        for (k, tags) in facts.chapters.enumerated() {
            found.formUnion(chapterLeaks(tags, planned: k < plan.chapters.count ? plan.chapters[k].tags : [:]).map { MetadataLeak(.chapter(k), $0) })
        }
        return found.sorted()
    }

    /// The keys of a chapter read back that its plan does not give it (an empty value is none: MP4 writes an untitled
    /// chapter's title empty), and its title when it is not the plan's.
    static func chapterLeaks(_ tags: [String: String], planned: [String: String]) -> [String] {
        let want = Dictionary(planned.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { a, _ in a })
        return tags.filter { key, value in
            guard !value.isEmpty else { return false }
            guard let planned = want[key.lowercased()] else { return true }
            return key.lowercased() == "title" && planned != value
        }.map(\.key)
    }
}
