import Foundation

/// What the first route of an export is decided from: the request (its preset, policy, output, tracks and size
/// limit), the source, and the version's edits.
package struct StartQuestion: Sendable {
    /// The export asked for; its output's extension names the container (the preset's when it has none).
    package var request: ExportRequest
    /// The source as probed.
    package var source: SourceInfo
    /// The extension of the resource read: a fitting source in the output's container is byte copied.
    package var resourceExtension: String
    /// The sidecar's edits, if any, and the sidecar's file name.
    package var edits: EditSidecar?
    /// See `edits`.
    package var editsName: String?

    /// Creates the question.
    package init(request: ExportRequest, source: SourceInfo, resourceExtension: String, edits: EditSidecar? = nil, editsName: String? = nil) {
        self.request = request; self.source = source; self.resourceExtension = resourceExtension.lowercased()
        self.edits = edits; self.editsName = editsName
    }

    /// The output's container.
    var container: Container? {
        let ext = PathName.pathExtension(request.output)
        return Container(extension: ext.isEmpty ? request.preset.defaultExtension : ext)
    }
}

/// Why an export starts from its route; `description` gives the words.
package enum StartReason: Sendable, Equatable, CustomStringConvertible {
    /// A passthrough preset copies its streams.
    case passthrough
    /// `--policy always`.
    case policyAlways
    /// The sidecar's edits need a transcode.
    case edits(sidecar: String?)
    /// A loudness target (LUFS): the audio is normalised, which a copy cannot do.
    case loudness(Double)
    /// The source is larger than the size limit.
    case overSizeLimit(size: Int64, limit: Int64)
    /// The transcode plan is impossible (its reason), so the plans cannot be compared.
    case transcodeImpossible(String)
    /// The transcode writes a kept stream in another codec.
    case codec(stream: Int, kind: SourceStream.Kind, from: String, to: String)
    /// The transcode changes a kept stream.
    case change(stream: Int, kind: SourceStream.Kind, StreamChange)
    /// A remux into the container is impossible (its reason).
    case remuxImpossible(container: Container, reason: String)
    /// A remux drops a stream the transcode keeps (the remux's reason).
    case remuxDrops(stream: Int, kind: SourceStream.Kind, codec: String, reason: String)
    /// The source is cut short (its transcode falls back as any damaged input's).
    case truncated(String)
    /// The source fits, in the output's own container, with no tag to drop: a byte copy.
    case fitsSameContainer
    /// The source fits; a remux drops `count` tags (and streams: `PrivateStream`) the metadata level leaves out.
    case fitsDroppingTags(count: Int, level: MetadataLevel)
    /// The source fits; only the container changes.
    case fitsOtherContainer(from: String, to: String)

    /// `video codec hevc is not h264`, `stream #0 video: scaled 3840x2160 → 1920x1080`, `already fits the preset` …
    package var description: String {
        switch self {
        case .passthrough: return "passthrough preset"
        case .policyAlways: return "policy always"
        case .edits(let sidecar): return "edits from \(sidecar ?? "a sidecar") to apply"
        case .loudness(let lufs): return "audio normalised to \(lufs.formatted()) LUFS"
        case .overSizeLimit(let size, let limit): return "larger than the size limit (\(size) > \(limit) bytes)"
        case .transcodeImpossible(let reason), .truncated(let reason): return reason
        case .codec(_, let kind, let from, let to): return "\(kind.rawValue) codec \(from) is not \(to)"
        case .change(let s, let kind, let change): return change.note(stream: s, kind: kind)
        case .remuxImpossible(let container, let reason): return "a remux into .\(container.rawValue) cannot deliver it: \(reason)"
        case .remuxDrops(let s, let kind, let codec, let reason):
            return "has streams only a transcode treats as the preset does: stream #\(s) \(kind.rawValue) (\(codec)): a remux drops it (\(reason))"
        case .fitsSameContainer: return "already fits the preset, in the same container"
        case .fitsDroppingTags(let n, let level):
            return "already fits the preset; remuxed to drop \(n) tag\(n == 1 ? "" : "s") (--metadata \(level.rawValue))"
        case .fitsOtherContainer(let from, let to): return "already fits the preset; only the container changes (.\(from) → .\(to))"
        }
    }
}

/// The route an export starts from, and why.
package struct StartDecision: Sendable, Equatable {
    /// The first route of the chain.
    package var route: ExportRoute
    /// Why.
    package var reason: StartReason
}

extension ExportPlanner {
    /// The route an export starts from — the one rule the session and the batch (dry run and run) share. A
    /// passthrough preset copies its streams (`plannedRoute`); `always` transcodes; `needed` transcodes unless the
    /// source already fits: no edits to apply, under the size limit, the plans the same (`difference`), and not cut
    /// short (`truncation`, measured last: it reads every packet). A fitting source is byte copied when it is in the
    /// output's container and no tag must be dropped, else remuxed.
    package static func start(_ q: StartQuestion, truncation: () -> String?) -> StartDecision {
        let preset = q.request.preset
        if let decided = start(preset: preset, policy: q.request.policy) { return decided }
        let transcode = { StartDecision(route: .transcode, reason: $0) }
        if let edits = q.edits, !edits.isEmpty { return transcode(.edits(sidecar: q.editsName)) }
        if let lufs = preset.audio?.loudness, q.source.mainAudio != nil { return transcode(.loudness(lufs)) }
        if let limit = q.request.sizeLimit, q.source.size > limit { return transcode(.overSizeLimit(size: q.source.size, limit: limit)) }
        guard let container = q.container else { return transcode(.transcodeImpossible("no container for this extension")) }
        if let difference = difference(q, container: container) { return transcode(difference) }
        if let cut = truncation() { return transcode(.truncated(cut)) }
        let tags = MetadataPlan.droppedCount(q.source, level: preset.metadataLevel)
        if tags == 0 && q.resourceExtension == container.rawValue { return StartDecision(route: .copy, reason: .fitsSameContainer) }
        return StartDecision(route: .remux, reason: tags > 0 ? .fitsDroppingTags(count: tags, level: preset.metadataLevel)
                                                             : .fitsOtherContainer(from: q.resourceExtension, to: container.rawValue))
    }

    /// The start decided without the source: a passthrough preset's stream copy, `always`'s transcode; nil: ask `start`.
    package static func start(preset: Preset, policy: TranscodePolicy) -> StartDecision? {
        if preset.passthrough { return StartDecision(route: plannedRoute(.transcode, preset: preset), reason: .passthrough) }
        return policy == .needed ? nil : StartDecision(route: .transcode, reason: .policyAlways)
    }

    /// The first thing that keeps the source from already fitting: nil when the remux plan keeps every stream the
    /// transcode plan keeps, each in the source's codec and with no `StreamChange` (but one that `losesNothing`).
    static func difference(_ q: StartQuestion, container: Container) -> StartReason? {
        let plan = { (route: ExportRoute) in
            try? ExportPlanner.plan(source: q.source, preset: q.request.preset, route: route, container: container, edits: q.edits,
                                    range: nil, tracks: q.request.tracks)
        }
        // A language the request cannot have: the run refuses it as any export would.
        guard let transcode = plan(.transcode), let remux = plan(.remux) else { return .transcodeImpossible("no audio stream in the languages asked for") }
        if let why = transcode.impossible { return .transcodeImpossible(why) }
        let kept = zip(transcode.streams, remux.streams).filter { $0.0.isKept }
        // Cover art is copied by both routes, stripped alike: not a reason to transcode (`MetadataPlan.droppedCount` counts it).
        for (t, _) in kept where !t.isCoverArt {
            let output = t.streamPlan.outputCodec ?? t.codec
            if output != t.codec { return .codec(stream: t.index, kind: t.kind, from: t.codec, to: output) }
            if let change = t.changes.first(where: { !$0.losesNothing }) { return .change(stream: t.index, kind: t.kind, change) }
        }
        if let why = remux.impossible { return .remuxImpossible(container: container, reason: why) }
        return kept.first { !$0.1.isKept }.map { t, r in .remuxDrops(stream: t.index, kind: t.kind, codec: t.codec, reason: r.streamPlan.reason ?? "") }
    }

}
