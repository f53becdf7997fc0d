import Foundation

/// The check that a metadata level (`MetadataLevel`) held: none of the keys it dropped is in the output, in the
/// container or in any stream (keys in any case: Matroska's read back in capitals), and for `sharing` no key the
/// table drops at all (MP4 writes some keys under other names: `location` for `©xyz`). The tags the output's muxer
/// writes of its own (`ContainerKeeps.muxerStreamTags`) are not looked for. None at level `all`.
extension OutputVerifier {
    static func metadataChecks(plan: ExportPlan, kept: [StreamDecision], outStreams: [OutputFacts.Stream], facts: OutputFacts) -> [Verification.Check] {
        let level = plan.metadata.level
        guard level != .all else { return [] }
        // The muxer's own stream tags (Matroska's `DURATION`) are written whatever the source said: not a leak.
        let own = plan.container?.keeps.muxerStreamTags ?? []
        func present(_ keys: [String], in tags: [String: String]) -> [String] {
            let written = Set(tags.keys.map { $0.lowercased() })
            return keys.filter { written.contains($0.lowercased()) && !own.contains($0.lowercased()) }
        }
        func forbidden(_ tags: [String: String], stream: Bool) -> [String] {
            level == .sharing ? tags.keys.filter { level.dropReason($0, stream: stream) != nil } : []
        }
        var found = Set(present(plan.metadata.container, in: facts.tags) + forbidden(facts.tags, stream: false))
        for (j, decision) in kept.enumerated() where j < outStreams.count {
            let tags = outStreams[j].tags
            let keys = present(plan.metadata.streams[decision.index] ?? [], in: tags) + forbidden(tags, stream: true)
            found.formUnion(keys.map { "stream #\(decision.index): \($0)" })
        }
        let count = plan.metadata.droppedNames.count
        let expected = "none of the \(count) dropped key\(count == 1 ? "" : "s")" + (level == .sharing ? ", no location or identifier" : "")
        return [check("metadata \(level.rawValue)", expected, found.isEmpty ? "none present" : "present: " + found.sorted().joined(separator: ", "), found.isEmpty)]
    }
}
