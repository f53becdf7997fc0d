import Foundation
import MediaExportCore
import MediaExportFFmpeg

/// One asset's row of the plan: its probe, filters, output and action.
extension BatchPlanner {
    /// What the planner made of one asset.
    enum Described {
        /// The item, and what a person should know about its output (a shortened name), said after its reason.
        case planned(BatchItem, note: String?)
        /// Left out by `--media` or a duration filter (why).
        case filtered(String)
        /// A file whose name says nothing, and FFmpeg cannot open as media (FFmpeg's reason).
        case notMedia(String)
    }

    static func describe(asset: Asset, main: Resource, key: String, output relativeOutput: String, outRoot: String,
                         options: BatchOptions, takenOutputs: inout Set<String>) throws -> Described {
        // Probe first: a file that is not media has no output to reserve. The one open of the file (its version's
        // resource) both decides that and plans it.
        let (resource, probe) = try probe(asset, main: main, version: options.version)
        if case .failure(.notMedia(_, let reason)) = probe, resource == main.path,
           case .media(known: false) = ResourceName(PathName.lastComponent(main.path)).role {
            return .notMedia(reason)
        }

        var item = BatchItem(key: key, input: main.path, resources: asset.resources.map(\.path), output: "", action: .transcode,
                             reason: "", duration: nil, sourceBytes: main.size, estimatedBytes: nil, created: 0)
        let selection: VersionSelection, source: ProbedSource
        switch probe {
        case .success(let probed): (selection, source) = probed
        case .failure(let error):
            // Planned as a transcode so that the run records the failure with its reason (the fallback may still deliver it).
            item.reason = cannotProbe + error.description
            item.created = modificationTime(main.path)
            let reserved = reserveOutput(relativeOutput, outRoot: outRoot, taken: &takenOutputs)
            item.output = reserved.output
            return .planned(item, note: reserved.note)
        }
        item.duration = source.info.duration
        item.sourceBytes = source.info.size
        item.created = creationTime(source.info) ?? modificationTime(selection.report.resource)
        if let reason = filterReason(source.info, options: options) { return .filtered(reason) }

        let reserved = reserveOutput(relativeOutput, outRoot: outRoot, taken: &takenOutputs)
        item.output = reserved.output
        let info = decideAction(&item, selection: selection, source: source, options: options)
        followImpossiblePlans(&item, info: info, selection: selection, options: options)
        item.estimatedBytes = ExportPlanner.estimatedBytes(info, preset: options.preset, fits: item.action != .transcode)
        if options.dryRun && item.action == .transcode,
           let estimate = sampledEstimate(item, selection: selection, source: source, info: info, options: options) {
            item.estimatedBytes = estimate
        }
        return .planned(item, note: reserved.note)
    }

    /// The version of the asset to export, opened: the resource read, and the selection and its probe or why not.
    private static func probe(_ asset: Asset, main: Resource, version: AssetVersion) throws
        -> (resource: String, Result<(VersionSelection, ProbedSource), ExportError>) {
        var resource = main.path
        do {
            let chosen = try VersionResolver.select(asset: asset, input: main.path, version: version, editsPath: nil, requireCurrent: false)
            resource = chosen.report.resource
            return (resource, .success((chosen, try ProbedSource(path: resource, cancel: nil))))
        } catch let error as ExportError {
            return (resource, .failure(error))
        }
    }

    /// Output: the asset's relative path under the output folder (see `outputNames`); never two the same, and
    /// each name within NAME_MAX (a 255-byte upload's name + `.mp4` is not): a shortened one is said on the row.
    private static func reserveOutput(_ relative: String, outRoot: String, taken: inout Set<String>) -> (output: String, note: String?) {
        var note: String?
        func fitted(_ relative: String) -> String {
            let name = PathName.lastComponent(relative), fit = PathName.fitting(name)
            if fit != name {
                note = "output name shortened to fit \(NAME_MAX) bytes (in full it would be \(FileName.bytes(name).count))"
            }
            return PathName.replacingName(of: relative, with: fit)
        }
        let first = fitted(relative)
        let stem = PathName.deletingExtension(first), ext = PathName.pathExtension(first)
        var output = PathName.join(outRoot, first)
        var n = 2
        while taken.contains(output.lowercased()) {
            output = PathName.join(outRoot, fitted("\(stem)-\(n).\(ext)"))
            n += 1
        }
        taken.insert(output.lowercased())
        return (output, note)
    }

    /// Why `--media` or a duration filter leaves the probed file out, if one does.
    private static func filterReason(_ info: SourceInfo, options: BatchOptions) -> String? {
        let hasVideo = info.firstVideo != nil
        let hasAudio = info.streams.contains { $0.kind == .audio }
        if options.media == .video && !hasVideo { return "--media video: no video" }
        if options.media == .audio && (hasVideo || !hasAudio) { return hasVideo ? "--media audio: has video" : "--media audio: no audio" }
        if let min = options.minDuration, (info.duration ?? 0) < min {
            return "--min-duration \(min): " + (info.duration.map { String(format: "%.2f s", $0) } ?? "duration unknown")
        }
        if let max = options.maxDuration, (info.duration ?? .infinity) > max {
            return "--max-duration \(max): " + (info.duration.map { String(format: "%.2f s", $0) } ?? "duration unknown")
        }
        return nil
    }

    /// The plan: the item's action and reason. Returns the facts to estimate the output from (those after the
    /// packets were scanned when that found the file cut short).
    private static func decideAction(_ item: inout BatchItem, selection: VersionSelection, source: ProbedSource,
                                     options: BatchOptions) -> SourceInfo {
        var info = source.info
        let preset = options.preset
        if preset.passthrough {
            item.action = .remux
            item.reason = "passthrough preset"
        } else if options.policy == .always {
            item.reason = "policy always"
        } else if let edits = selection.edits, !edits.isEmpty {
            item.reason = "edits from \(selection.editsFile.map(PathName.lastComponent) ?? "a sidecar") to apply"
        } else if let limit = options.maxFileSize ?? preset.maxFileSize, info.size > limit {
            item.reason = "larger than the size limit (\(info.size) > \(limit) bytes)"
        } else if let misfit = ExportPlanner.misfit(info, preset: preset) {
            item.reason = misfit
        } else if let truncation = try? measuredTruncation(source) {
            // Judged as a single export would: a file cut short is not "already fitting"; its transcode falls back.
            item.reason = truncation
            info = source.info
        } else {
            fits(&item, info: info, selection: selection, options: options)
        }
        return info
    }

    /// The action for a file that already fits the preset (`misfit`, which asks the plans whether a remux delivers
    /// what the transcode would): a byte copy into the same container, else a remux.
    private static func fits(_ item: inout BatchItem, info: SourceInfo, selection: VersionSelection, options: BatchOptions) {
        let preset = options.preset
        let ext = PathName.pathExtension(selection.report.resource).lowercased()
        let tags = tagsToDrop(info, level: preset.metadataLevel)
        if tags == nil && ext == preset.defaultExtension.lowercased() {
            item.action = .copy
            item.reason = "already fits the preset, in the same container"
            return
        }
        item.action = .remux
        // A byte copy keeps every tag: a file that fits but must lose some is remuxed, which drops them.
        item.reason = tags.map { "already fits the preset; remuxed to drop \($0) (--metadata \(preset.metadataLevel.rawValue))" }
            ?? "already fits the preset; only the container changes (.\(ext) → .\(preset.defaultExtension))"
    }

    /// What the metadata level drops of the source's tags (container and streams), as `3 tags`; nil when nothing.
    private static func tagsToDrop(_ info: SourceInfo, level: MetadataLevel) -> String? {
        guard level != .all else { return nil }
        let container = OutputTags.forOutput(resource: info.tags, original: nil, level: level).dropped.count
        let streams = MetadataPlan.streams(info, kept: Set(info.streams.map(\.index)), level: level).values.map(\.count).reduce(0, +)
        let n = container + streams
        return n == 0 ? nil : "\(n) tag\(n == 1 ? "" : "s")"
    }

    /// The action the run will take, as the planner sees it: a route whose plan is impossible (a container that
    /// cannot hold a main stream, no decoder for one) is skipped by the run, so the item names the route the
    /// fallback chain then takes, and why — the dry run shows what the run will do.
    private static func followImpossiblePlans(_ item: inout BatchItem, info: SourceInfo, selection: VersionSelection, options: BatchOptions) {
        guard item.action == .transcode || item.action == .remux else { return }
        let first: ExportRoute = item.action == .remux ? .remux : .transcode
        var route = first
        let container = Container(extension: PathName.pathExtension(item.output))
        while route != .copy, let plan = try? ExportPlanner.plan(source: info, preset: options.preset, route: route, container: container,
                                                                 edits: selection.edits, range: nil, tracks: options.tracks), !plan.isPossible {
            if let refusal = plan.refusal {
                item.refusal = refusal
                item.reason += "; refused: \(refusal)"
                return
            }
            guard let next = options.fallback.next(after: route, failure: .skipped, damageSeen: false, damaged: options.errors.damaged) else { return }
            item.reason += "; \(route.rawValue) impossible (\(plan.impossible ?? "")): \(next.rawValue)"
            route = next
        }
        guard route != first else { return }
        item.firstRoute = first
        item.action = route == .copy ? .copy : .remux
    }

    /// What the export's `started` record would say: the plan's streams at their rates, a CRF video measured on samples.
    private static func sampledEstimate(_ item: BatchItem, selection: VersionSelection, source: ProbedSource, info: SourceInfo,
                                        options: BatchOptions) -> Int64? {
        let preset = options.preset
        guard let plan = try? ExportPlanner.plan(source: info, preset: preset, route: .transcode, container: Container(extension: PathName.pathExtension(item.output)),
                                                 edits: selection.edits, range: nil, tracks: options.tracks), plan.isPossible else { return nil }
        let sampled = SampleEncode.videoBitrate(source: source, plan: plan, cancel: CancelToken(), activity: {})
        guard let estimate = OutputSize.estimatedBytes(plan: plan, source: info, videoBitrate: sampled) else { return nil }
        let limit = options.maxFileSize ?? preset.maxFileSize
        return limit.map { min($0, estimate) } ?? estimate
    }

    /// The start of the reason of an asset whose file does not open as media: its export will fail.
    static let cannotProbe = "cannot be probed: "

    static func modificationTime(_ path: String) -> Double { FileSystem.stat(path).map { Double($0.st_mtim.tv_sec) } ?? 0 }

    /// Scans the packets of a file that otherwise fits; the reason it is truncated, if it is.
    private static func measuredTruncation(_ source: ProbedSource) throws -> String? {
        try source.measureDataEnd()
        return source.info.truncation
    }

    static func creationTime(_ info: SourceInfo) -> Double? {
        guard let text = info.creationTime else { return nil }
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let d = f.date(from: text) { return d.timeIntervalSince1970 }
        f.formatOptions = [.withInternetDateTime]
        return f.date(from: text)?.timeIntervalSince1970
    }
}
