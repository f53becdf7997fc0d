import Foundation

/// What the first route of an export is decided from: the source, the preset and the request's choices.
package struct StartQuestion: Sendable {
    /// The source as probed.
    package var source: SourceInfo
    /// The export's preset.
    package var preset: Preset
    /// `always` transcodes; `needed` asks the plans whether the source already fits.
    package var policy: TranscodePolicy
    /// The output's container (nil: none for its extension; the chain refuses it).
    package var container: Container?
    /// The extension of the resource read, lowercased: a fitting source in the output's container is byte copied.
    package var sourceExtension: String
    /// The sidecar's edits, if any, and the sidecar's file name.
    package var edits: EditSidecar?
    /// See `edits`.
    package var editsName: String?
    /// Which audio streams to keep.
    package var tracks: TrackSelection
    /// The size limit that applies, if any.
    package var sizeLimit: Int64?

    /// Creates the question.
    package init(source: SourceInfo, preset: Preset, policy: TranscodePolicy, container: Container?, sourceExtension: String,
                 edits: EditSidecar? = nil, editsName: String? = nil, tracks: TrackSelection = .all, sizeLimit: Int64? = nil) {
        self.source = source; self.preset = preset; self.policy = policy; self.container = container
        self.sourceExtension = sourceExtension.lowercased(); self.edits = edits; self.editsName = editsName
        self.tracks = tracks; self.sizeLimit = sizeLimit
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
    /// The source is larger than the size limit.
    case overSizeLimit(size: Int64, limit: Int64)
    /// What the transcode would change, or what a remux would not deliver.
    case differs(PlanDifference)
    /// The source is cut short (its transcode falls back as any damaged input's).
    case truncated(String)
    /// The source fits, in the output's own container, with no tag to drop: a byte copy.
    case fitsSameContainer
    /// The source fits; a remux drops `count` tags the metadata level leaves out.
    case fitsDroppingTags(count: Int, level: MetadataLevel)
    /// The source fits; only the container changes.
    case fitsOtherContainer(from: String, to: String)

    /// `already fits the preset, in the same container`, `video codec hevc is not h264` …
    package var description: String {
        switch self {
        case .passthrough: return "passthrough preset"
        case .policyAlways: return "policy always"
        case .edits(let sidecar): return "edits from \(sidecar ?? "a sidecar") to apply"
        case .overSizeLimit(let size, let limit): return "larger than the size limit (\(size) > \(limit) bytes)"
        case .differs(let difference): return difference.description
        case .truncated(let reason): return reason
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

/// What keeps a source from already fitting a preset, found in the plans: the transcode changes a kept stream, or a
/// remux would not deliver what the transcode keeps.
package enum PlanDifference: Sendable, Equatable, CustomStringConvertible {
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

    /// `video codec hevc is not h264`, `stream #0 video: scaled 3840x2160 → 1920x1080` …
    package var description: String {
        switch self {
        case .transcodeImpossible(let reason): return reason
        case .codec(_, let kind, let from, let to): return "\(kind.rawValue) codec \(from) is not \(to)"
        case .change(let s, let kind, let change): return change.note(stream: s, kind: kind)
        case .remuxImpossible(let container, let reason): return "a remux into .\(container.rawValue) cannot deliver it: \(reason)"
        case .remuxDrops(let s, let kind, let codec, let reason):
            return "has streams only a transcode treats as the preset does: stream #\(s) \(kind.rawValue) (\(codec)): a remux drops it (\(reason))"
        }
    }
}

extension ExportPlanner {
    /// The route an export starts from — the one rule the session and the batch (dry run and run) share. A
    /// passthrough preset copies its streams (a remux); `always` transcodes; `needed` transcodes unless the source
    /// already fits: no edits to apply, under the size limit, the plans the same (`difference`), and not cut short
    /// (`truncation`, measured last: it reads every packet). A fitting source is byte copied when it is in the
    /// output's container and no tag must be dropped, else remuxed.
    package static func start(_ q: StartQuestion, truncation: () -> String?) -> StartDecision {
        if let decided = start(preset: q.preset, policy: q.policy) { return decided }
        let transcode = { StartDecision(route: .transcode, reason: $0) }
        if let edits = q.edits, !edits.isEmpty { return transcode(.edits(sidecar: q.editsName)) }
        if let limit = q.sizeLimit, q.source.size > limit { return transcode(.overSizeLimit(size: q.source.size, limit: limit)) }
        guard let container = q.container else { return transcode(.differs(.transcodeImpossible("no container for this extension"))) }
        if let difference = difference(q, container: container) { return transcode(.differs(difference)) }
        if let cut = truncation() { return transcode(.truncated(cut)) }
        let tags = tagsDropped(q.source, level: q.preset.metadataLevel)
        if tags == 0 && q.sourceExtension == container.rawValue { return StartDecision(route: .copy, reason: .fitsSameContainer) }
        return StartDecision(route: .remux, reason: tags > 0 ? .fitsDroppingTags(count: tags, level: q.preset.metadataLevel)
                                                             : .fitsOtherContainer(from: q.sourceExtension, to: container.rawValue))
    }

    /// The start decided without the source: a passthrough preset's remux, `always`'s transcode; nil: ask `start`.
    package static func start(preset: Preset, policy: TranscodePolicy) -> StartDecision? {
        if preset.passthrough { return StartDecision(route: plannedRoute(.transcode, preset: preset), reason: .passthrough) }
        return policy == .needed ? nil : StartDecision(route: .transcode, reason: .policyAlways)
    }

    /// The first thing that keeps the source from already fitting: nil when the remux plan keeps every stream the
    /// transcode plan keeps, each in the source's codec and with no `StreamChange`.
    package static func difference(_ q: StartQuestion, container: Container) -> PlanDifference? {
        let plan = { (route: ExportRoute) in
            try? ExportPlanner.plan(source: q.source, preset: q.preset, route: route, container: container, edits: q.edits, range: nil, tracks: q.tracks)
        }
        // A language the request cannot have: the run refuses it as any export would.
        guard let transcode = plan(.transcode), let remux = plan(.remux) else { return .transcodeImpossible("no audio stream in the languages asked for") }
        if let why = transcode.impossible { return .transcodeImpossible(why) }
        let kept = zip(transcode.streams, remux.streams).filter { $0.0.isKept }
        for (t, _) in kept {
            let output = t.streamPlan.outputCodec ?? t.codec
            if output != t.codec { return .codec(stream: t.index, kind: t.kind, from: t.codec, to: output) }
            if let change = t.changes.first(where: { !$0.losesNothing }) { return .change(stream: t.index, kind: t.kind, change) }
        }
        if let why = remux.impossible { return .remuxImpossible(container: container, reason: why) }
        return kept.first { !$0.1.isKept }.map { t, r in .remuxDrops(stream: t.index, kind: t.kind, codec: t.codec, reason: r.streamPlan.reason ?? "") }
    }

    /// How many of the source's tags (container and streams) the metadata level drops.
    static func tagsDropped(_ info: SourceInfo, level: MetadataLevel) -> Int {
        guard level != .all else { return 0 }
        let container = OutputTags.forOutput(resource: info.tags, original: nil, level: level).dropped.count
        return container + MetadataPlan.streams(info, kept: Set(info.streams.map(\.index)), level: level).values.map(\.count).reduce(0, +)
    }
}
