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

        var item = BatchItem(key: key, input: main.path, resources: asset.resources.map(\.path), output: "", route: .transcode,
                             reason: "", duration: nil, sourceBytes: main.size, estimatedBytes: nil, created: 0)
        let selection: VersionSelection, source: ProbedSource
        switch probe {
        case .success(let probed): (selection, source) = probed
        case .failure(let error):
            // Planned as a transcode so that the run records the failure with its reason (the fallback may still deliver it);
            // a file that is not media at all is rejected: no route delivers it.
            item.probeFailure = error.description
            item.reason = "cannot be probed: " + error.description
            if case .notMedia = error { (item.route, item.rejection, item.reason) = (nil, error.description, "rejected: not media") }
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
        // What its session will ask (`ExportSession.startRoute`), with the request its run makes.
        let question = selection.startQuestion(options.request(input: item.input, output: item.output), source: source.info)
        let decision = ExportPlanner.start(question, truncation: { source.measuredTruncation() })
        (item.route, item.reason) = (decision.route, decision.reason.description)
        let info = source.info  // with where its data ends, when the packets were scanned
        followImpossiblePlans(&item, info: info, selection: selection, options: options)
        if options.checkData && item.refusal == nil { checkData(&item, source: source, options: options) }
        if item.route == .transcode || item.route == .salvage {
            let estimate = plannedEstimate(item, selection: selection, source: source, info: info, options: options)
            (item.estimatedBytes, item.estimateMethod) = (estimate?.bytes, estimate?.method.rawValue)
        } else {
            (item.estimatedBytes, item.estimateMethod) = (info.size, OutputSize.EstimateMethod.source.rawValue)
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
        if n > 2 { note = [note, "\(PathName.lastComponent(first)) is another asset's output: named \(PathName.lastComponent(output))"].compactMap { $0 }.joined(separator: "; ") }
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

    /// The action the run will take, as the planner sees it: a route whose plan is impossible (a container that
    /// cannot hold a main stream, no decoder for one) is skipped by the run, so the item names the route the
    /// fallback chain then takes, and why — the dry run shows what the run will do.
    private static func followImpossiblePlans(_ item: inout BatchItem, info: SourceInfo, selection: VersionSelection, options: BatchOptions) {
        guard var route = item.route, route == .transcode || route == .remux else { return }
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
        item.route = route
        if route == .copy { placeCopy(&item, resource: selection.report.resource, options: options) }
    }

    /// Where a byte copy of another container than the outputs' goes (`--fallback-container`), said in the reason;
    /// refused when it may not be delivered.
    private static func placeCopy(_ item: inout BatchItem, resource: String, options: BatchOptions) {
        let ext = PathName.pathExtension(resource).lowercased()
        guard let path = options.fallbackContainer.placement.path(output: item.output, copyExtension: ext) else {
            item.refusal = "only a byte copy delivers it, as a .\(ext) file, not the .\(PathName.pathExtension(item.output)) asked (--fallback-container fail)"
            item.reason += "; refused: \(item.refusal ?? "")"
            return
        }
        if PathName.directory(path) != PathName.directory(item.output) { item.reason += "; the .\(ext) copy goes to fallback/" }
    }

    /// Decodes a sample of the item's data (`DataCheck`); damage found makes its route the one a damaged input takes
    /// (`ExportPlanner.damagedRoute`), its reason the damage. Where the chain ends (`--damaged fail`), the route stays
    /// and `damageFailure` says why the run fails it.
    private static func checkData(_ item: inout BatchItem, source: ProbedSource, options: BatchOptions) {
        let sample = DataCheck.sample(source)
        item.dataCheck = sample
        guard let damage = sample.damage, let route = item.route else { return }
        let damaged = ExportPlanner.damagedRoute(from: route, fallback: options.fallback, damaged: options.errors.damaged)
        item.reason = "damaged: \(damage)"
        guard let damaged else {
            item.damageFailure = "damaged: \(damage); no route delivers it "
                + "(--damaged \(options.errors.damaged.rawValue), --fallback \(options.fallback.rawValue))"
            return
        }
        item.route = damaged
    }

    /// What the export's `started` record would say of a transcode: the plan's streams at their rates, a CRF video measured on
    /// samples in a dry run (without them, bits per pixel from the CRF; a run after a dry run takes the dry run's from
    /// `EstimateStore`), and how it was made.
    private static func plannedEstimate(_ item: BatchItem, selection: VersionSelection, source: ProbedSource, info: SourceInfo,
                                        options: BatchOptions) -> (bytes: Int64, method: OutputSize.EstimateMethod)? {
        let preset = options.preset
        guard let plan = try? ExportPlanner.plan(source: info, preset: preset, route: .transcode, container: Container(extension: PathName.pathExtension(item.output)),
                                                 edits: selection.edits, range: nil, tracks: options.tracks), plan.isPossible else { return nil }
        let sampled = options.dryRun ? SampleEncode.rates(source: source, plan: plan, cancel: CancelToken(), activity: {}) : nil
        guard let estimate = OutputSize.estimatedBytes(plan: plan, source: info, measured: sampled),
              let method = OutputSize.estimateMethod(plan: plan, source: info, measured: sampled) else { return nil }
        let limit = options.maxFileSize ?? preset.maxFileSize
        return (limit.map { min($0, estimate) } ?? estimate, method)
    }

    static func modificationTime(_ path: String) -> Double { FileSystem.stat(path).map { Double($0.st_mtim.tv_sec) } ?? 0 }

    static func creationTime(_ info: SourceInfo) -> Double? {
        guard let text = info.creationTime else { return nil }
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let d = f.date(from: text) { return d.timeIntervalSince1970 }
        f.formatOptions = [.withInternetDateTime]
        return f.date(from: text)?.timeIntervalSince1970
    }
}
