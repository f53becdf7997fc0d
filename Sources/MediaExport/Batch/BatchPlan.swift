import Foundation
import MediaExportCore
import MediaExportFFmpeg

/// What a batch will do with one asset, decided before any work.
public enum BatchAction: String, Codable, Sendable {
    case transcode, remux, copy, skip
}

/// One asset of a batch and its plan.
public struct BatchItem: Codable, Sendable, Equatable {
    /// Stable key: the asset's main file relative to its input (the database key and the shard hash input).
    public var key: String
    /// The file the export is asked for (the original, or the rendered edit when there is no original).
    public var input: String
    /// Every resource of the asset (for the database: sizes, times, hashes).
    public var resources: [String]
    /// Where the output goes, inside the output folder.
    public var output: String
    public var action: BatchAction
    public var reason: String
    /// Seconds of media, if known.
    public var duration: Double?
    /// Source bytes (the resource read).
    public var sourceBytes: Int64
    /// A rough estimate of the output size in bytes.
    public var estimatedBytes: Int64?
    /// Creation time used for `--sort created`.
    public var created: Double
}

/// A file under a batch's inputs that is not exported as an asset of its own, and why: every file the inputs hold
/// is either an item's `input` or one of these.
public struct IgnoredFile: Codable, Sendable, Equatable {
    /// Why a file is not exported on its own.
    public enum Kind: String, Codable, Sendable, CaseIterable {
        /// FFmpeg cannot open it (its reason), or its name says it is not media (`.txt`, `.json` …).
        case notMedia
        /// A still image (`.png`, or a HEIC/JPEG with no movie beside it).
        case stillImage
        /// An edit sidecar or `.AAE` of an asset (`of`), or of none.
        case sidecar
        /// The still of a Live Photo (`of` is its movie).
        case livePhotoStill
        /// A rendered edit, exported with its original (`of`) as that asset's current version.
        case renderedEdit
        /// A hidden file, or a hidden folder (not walked).
        case hidden
        /// A temporary file of mediaexport (`.mediaexport-tmp-`).
        case temporaryFile
        /// A symbolic link to a folder (not followed).
        case symlinkToFolder
        /// A symbolic link to nothing.
        case symlinkToNothing
        /// A symbolic link into the output folder.
        case symlinkIntoOutput
        /// A FIFO, socket or device (or a link to one).
        case notRegularFile
        /// A folder that cannot be read.
        case unreadableFolder
        /// A file or folder whose path is longer than the system takes (`PATH_MAX`): it cannot be opened by name.
        case pathTooLong
        /// The output folder, met as an input or inside one.
        case outputFolder
        /// Left out by `--include`/`--exclude`, `--media` or a duration filter.
        case filtered
        /// Another shard's (`--shard`).
        case notInShard
        /// The same file as another planned one (`of`): given twice, or reached through a symlink.
        case duplicate
    }

    /// The file as named under the inputs.
    public var path: String
    public var kind: Kind
    /// One line for people: FFmpeg's reason, the filter, the asset it belongs to.
    public var reason: String
    /// The main file of the asset this one belongs to or duplicates, if any.
    public var of: String?

    /// Creates the value from each of its fields.
    public init(path: String, kind: Kind, reason: String, of: String? = nil) {
        self.path = path; self.kind = kind; self.reason = reason; self.of = of
    }

    /// The entry for people and reports, every text through `FileName.display` (see `BatchReportRow.displayed`).
    public var displayed: IgnoredFile {
        IgnoredFile(path: FileName.display(path), kind: kind, reason: FileName.display(reason), of: of.map(FileName.display))
    }

    /// `12 files not exported as assets of their own: 3 not media (a.txt, b.xyz, …), 2 hidden, …`; nil for none.
    public static func summary(_ files: [IgnoredFile]) -> String? {
        guard !files.isEmpty else { return nil }
        let groups = Dictionary(grouping: files, by: \.kind)
        let parts = Kind.allCases.compactMap { kind -> String? in
            guard let group = groups[kind] else { return nil }
            var part = "\(group.count) \(label(kind, group.count))"
            if ![.hidden, .temporaryFile, .sidecar, .livePhotoStill, .renderedEdit, .notInShard].contains(kind) {
                let names = group.prefix(3).map { FileName.display(PathName.lastComponent($0.path)) }
                part += " (" + names.joined(separator: ", ") + (group.count > 3 ? ", …" : "") + ")"
            }
            return part
        }
        return "\(files.count) file\(files.count == 1 ? " is" : "s are") not exported as an asset of \(files.count == 1 ? "its" : "their") own: "
            + parts.joined(separator: ", ")
    }

    static func label(_ kind: Kind, _ n: Int) -> String {
        let s = n == 1 ? "" : "s"
        switch kind {
        case .notMedia: return "not media"
        case .stillImage: return "still image\(s)"
        case .sidecar: return "sidecar\(s)"
        case .livePhotoStill: return "Live Photo still\(s)"
        case .renderedEdit: return "rendered edit\(s) (exported with \(n == 1 ? "its" : "their") original)"
        case .hidden: return "hidden"
        case .temporaryFile: return "temporary file\(s) of mediaexport"
        case .symlinkToFolder: return "symbolic link\(s) to a folder"
        case .symlinkToNothing: return "symbolic link\(s) to nothing"
        case .symlinkIntoOutput: return "symbolic link\(s) into the output folder"
        case .notRegularFile: return "not regular file\(s)"
        case .unreadableFolder: return "unreadable folder\(s)"
        case .pathTooLong: return "path\(n == 1 ? "" : "s") longer than PATH_MAX"
        case .outputFolder: return "output folder"
        case .filtered: return "filtered out"
        case .notInShard: return "in other shards"
        case .duplicate: return "duplicate\(s)"
        }
    }
}

/// A batch's plan: the items, what was left out and why, and how many assets the inputs held at all.
public struct BatchPlan: Sendable {
    /// The planned items, in the order of the work.
    public var items: [BatchItem]
    /// What a person should know about the inputs: the output folder or symlinked folders skipped, duplicates
    /// exported once, dangling links, and one line counting `ignored` by kind. Paths in them are shown with
    /// `FileName.display`.
    public var notes: [String]
    /// Assets found before any filter, shard or duplicate was taken out: zero means the inputs hold no media.
    public var assetsFound: Int
    /// Every file under the inputs that is no item's `input`, with why — in the order met.
    public var ignored: [IgnoredFile] = []
}

/// Scans inputs into assets, filters and sorts them like a library fetch, maps outputs under the output folder,
/// and decides per asset whether to transcode, remux, copy or skip.
///
/// What is media is FFmpeg's call, not the extension's: a file whose name says nothing (`.xyz`, no extension) is
/// opened once — the same probe that plans it — and is listed in `ignored` with FFmpeg's reason when it is not
/// media. Only obvious non-media (`.txt`, `.json`, `.pdf` …), stills and sidecars are told by name. A file under
/// a media name (`.mov`, `.ogv` …) that does not open is planned, so its failure is reported.
public enum BatchPlanner {
    /// Files and folders → planned items. `database` rows make unchanged assets `skip`.
    public static func plan(_ options: BatchOptions, database: [String: ExportDatabase.Row] = [:],
                            hashes: inout [String: String]) throws -> [BatchItem] {
        try makePlan(options, database: database, hashes: &hashes).items
    }

    /// An asset met in the inputs, with where its output goes (relative to the output folder).
    private struct Met {
        var root: BatchScan.Root
        var asset: Asset
        var main: Resource
        var real: String
        var output: String
    }

    /// Files and folders → the plan, with notes on what was left out. An asset reached twice (a file given twice,
    /// or reached through a symlink) is planned once, the first time, with a note.
    public static func makePlan(_ options: BatchOptions, database: [String: ExportDatabase.Row] = [:],
                                hashes: inout [String: String]) throws -> BatchPlan {
        let outRoot = try outputRoot(options.outputDirectory, create: false)
        let scan = try BatchScan.scan(options.inputs, outRoot: outRoot)
        var notes = scan.notes
        var ignored = scan.ignored
        // Every asset met, in order, with the real path of its main file: one met twice (a file given twice, or
        // reached through a symlink) is planned once — as the file itself rather than a link to it, else as met first.
        var met: [Met] = []
        var listed: [String: FolderAssets] = [:]  // folders of files given one by one, grouped once
        for input in scan.roots {
            let folders: [(String, FolderAssets, [String: String])]
            if input.isFolder {
                var names: [String: [String]] = [:], order: [String] = []
                for file in input.files {
                    let dir = PathName.directory(file)
                    if names[dir] == nil { order.append(dir) }
                    names[dir, default: []].append(PathName.lastComponent(file))
                }
                folders = order.map { dir in
                    let folder = FolderAssets.group(directory: dir, names: names[dir, default: []])
                    return (dir, folder, outputNames(folder, extension: options.preset.defaultExtension))
                }
            } else {
                // A file given alone brings the rest of its asset from its folder (its rendered edit, sidecars …),
                // and its output is named among the folder's assets as a walk of the folder would name it.
                let file = input.files[0], dir = PathName.directory(file), name = PathName.lastComponent(file)
                let whole = listed[dir] ?? FolderAssets.group(directory: dir, names: FolderAssets.listing(of: dir))
                listed[dir] = whole
                let folder = whole.asset(containing: name) != nil || whole.loose.contains(where: { $0.name == name })
                    ? whole : FolderAssets.of([name], in: dir)  // hidden, or gone from the listing
                var own = folder
                own.assets = folder.asset(containing: name).map { [$0] } ?? []
                own.loose = folder.loose.filter { $0.name == name }
                folders = [(dir, own, outputNames(folder, extension: options.preset.defaultExtension))]
            }
            for (dir, folder, outputs) in folders {
                for loose in folder.loose {
                    let kind: IgnoredFile.Kind = loose.why == .notMedia ? .notMedia : loose.why == .stillImage ? .stillImage : .sidecar
                    ignored.append(IgnoredFile(path: PathName.join(dir, loose.name), kind: kind, reason: loose.detail))
                }
                for asset in folder.assets {
                    guard let main = asset.original ?? asset.renderedEdit else { continue }
                    let output = PathName.replacingName(of: relativePath(main.path, to: input.root),
                                                        with: outputs[main.path] ?? PathName.lastComponent(main.path))
                    met.append(Met(root: input, asset: asset, main: main, real: FileSystem.realPath(main.path) ?? main.path, output: output))
                    for note in asset.notes where !notes.contains(note) { notes.append(note) }
                }
            }
        }
        let given = Set(scan.roots.flatMap(\.files))
        var chosen: [String: String] = [:]  // real path → the main path planned for it
        for m in met where chosen[m.real] == nil || (m.main.path == m.real && chosen[m.real] != m.real) { chosen[m.real] = m.main.path }
        var items: [BatchItem] = []
        var takenOutputs = Set<String>()
        var takenKeys = Set<String>()
        var planned = Set<String>()
        var notMedia = 0
        for m in met {
            let (input, asset, main, real) = (m.root, m.asset, m.main, m.real)
            // The asset's other files under the inputs, each said once: they go with it, whatever becomes of it.
            let shown = FileName.display(PathName.lastComponent(main.path))
            for r in asset.resources where r.path != main.path && given.contains(r.path) {
                switch r.kind {
                case .photo: ignored.append(IgnoredFile(path: r.path, kind: .livePhotoStill, reason: "the still of Live Photo \(shown)", of: main.path))
                case .renderedEdit:
                    let how = options.version == .current ? "exported as its current version" : "not exported (--asset-version original)"
                    ignored.append(IgnoredFile(path: r.path, kind: .renderedEdit, reason: "the rendered edit of \(shown): \(how)", of: main.path))
                case .editSidecar, .adjustmentData:
                    ignored.append(IgnoredFile(path: r.path, kind: .sidecar, reason: "a sidecar of \(shown)", of: main.path))
                default: break
                }
            }
            guard chosen[real] == main.path, planned.insert(real).inserted else {
                let first = chosen[real] ?? real
                notes.append(first == main.path ? "\(FileName.display(main.path)): given more than once; exported once"
                             : "\(FileName.display(main.path)): the same file as \(FileName.display(first)); exported once, as the latter")
                if first != main.path {
                    ignored.append(IgnoredFile(path: main.path, kind: .duplicate, reason: "the same file as \(FileName.display(first))", of: first))
                }
                continue
            }
            var key = input.isFolder ? relativePath(main.path, to: input.root) : PathName.lastComponent(main.path)
            if !options.include.isEmpty && !options.include.contains(where: { glob($0, key) }) {
                ignored.append(IgnoredFile(path: main.path, kind: .filtered, reason: "matches no --include (\(options.include.joined(separator: ", ")))"))
                continue
            }
            if let pattern = options.exclude.first(where: { glob($0, key) }) {
                ignored.append(IgnoredFile(path: main.path, kind: .filtered, reason: "matches --exclude \(pattern)"))
                continue
            }
            var n = 2
            let base = key
            while takenKeys.contains(key.lowercased()) { key = "\(base)#\(n)"; n += 1 }
            takenKeys.insert(key.lowercased())
            if let shard = options.shard, !shard.contains(key) {
                ignored.append(IgnoredFile(path: main.path, kind: .notInShard, reason: "in another shard than \(shard)"))
                continue
            }
            let described = try describe(asset: asset, main: main, key: key, output: m.output, outRoot: outRoot, options: options,
                                         takenOutputs: &takenOutputs)
            FreedMemory.release()  // the probe's buffers: the planner holds what it keeps, not every file's probe
            switch described {
            case .planned(var item, let note):
                try applyResume(&item, options: options, database: database, hashes: &hashes)
                if let note { item.reason += "; " + note }
                items.append(item)
            case .filtered(let reason):
                ignored.append(IgnoredFile(path: main.path, kind: .filtered, reason: reason))
            case .notMedia(let reason):
                notMedia += 1
                ignored.append(IgnoredFile(path: main.path, kind: .notMedia, reason: "not media: \(reason)"))
            }
        }
        switch options.sort {
        case .name: items.sort { $0.key.localizedStandardCompare($1.key) == .orderedAscending }
        case .created: items.sort { ($0.created, $0.key) < ($1.created, $1.key) }
        }
        // Each file once (a file met twice says why the first time), and never one that is planned.
        let inputs = Set(items.map(\.input))
        var said = Set<String>()
        ignored = ignored.filter { !inputs.contains($0.path) && said.insert($0.path).inserted }
        if let summary = IgnoredFile.summary(ignored) { notes.append(summary) }
        return BatchPlan(items: items, notes: notes, assetsFound: met.count - notMedia, ignored: ignored)
    }

    /// Output file names for the assets of one folder (by main path): the main's name with the preset's
    /// extension (`clip.mov` → `clip.mp4`). When several assets of the folder share that stem (`demo.mp4`,
    /// `demo.mkv`, `demo.gif`), the one whose extension is already the preset's keeps it (`demo.mp4`) and the
    /// others keep their own extension before it (`demo.mkv.mp4`, `demo.gif.mp4`). It depends only on the names in
    /// the folder, so it is the same in every run, shard and filter.
    static func outputNames(_ folder: FolderAssets, extension ext: String) -> [String: String] {
        let mains = folder.assets.compactMap { ($0.original ?? $0.renderedEdit)?.path }
        let byStem = Dictionary(grouping: mains) { PathName.deletingExtension(PathName.lastComponent($0)).lowercased() }
        var names: [String: String] = [:]
        for (_, group) in byStem {
            let own = { (p: String) in PathName.pathExtension(p) }
            let keeper = group.count == 1 ? group.first
                : group.first { own($0) == ext } ?? group.first { own($0).lowercased() == ext.lowercased() }
            for path in group {
                let name = PathName.lastComponent(path)
                names[path] = path == keeper ? PathName.deletingExtension(name) + "." + ext : name + "." + ext
            }
        }
        return names
    }

    /// Files → the assets that hold them, each grouped from its whole folder by Apple's conventions (see
    /// `FolderAssets.of`), in the order of the files' folders.
    static func group(_ files: [String]) -> [Asset] {
        var byFolder: [String: [String]] = [:], order: [String] = []
        for file in files {
            let dir = PathName.directory(file)
            if byFolder[dir] == nil { order.append(dir) }
            byFolder[dir, default: []].append(PathName.lastComponent(file))
        }
        return order.flatMap { FolderAssets.of(byFolder[$0, default: []], in: $0).assets }
    }

    /// What the planner made of one asset.
    private enum Described {
        /// The item, and what a person should know about its output (a shortened name), said after its reason.
        case planned(BatchItem, note: String?)
        /// Left out by `--media` or a duration filter (why).
        case filtered(String)
        /// A file whose name says nothing, and FFmpeg cannot open as media (FFmpeg's reason).
        case notMedia(String)
    }

    private static func describe(asset: Asset, main: Resource, key: String, output relativeOutput: String, outRoot: String,
                                 options: BatchOptions, takenOutputs: inout Set<String>) throws -> Described {
        // Probe first: a file that is not media has no output to reserve. The one open of the file (its version's
        // resource) both decides that and plans it.
        var resource = main.path
        let probe: Result<(VersionSelection, ProbedSource), ExportError>
        do {
            let chosen = try VersionResolver.select(asset: asset, input: main.path, version: options.version, editsPath: nil, requireCurrent: false)
            resource = chosen.report.resource
            probe = .success((chosen, try ProbedSource(path: resource, cancel: nil)))
        } catch let error as ExportError {
            probe = .failure(error)
        }
        if case .failure(.notMedia(_, let reason)) = probe, resource == main.path,
           case .media(known: false) = ResourceName(PathName.lastComponent(main.path)).role {
            return .notMedia(reason)
        }

        var item = BatchItem(key: key, input: main.path, resources: asset.resources.map(\.path), output: "", action: .transcode,
                             reason: "", duration: nil, sourceBytes: main.size, estimatedBytes: nil, created: 0)
        // Output: the asset's relative path under the output folder (see `outputNames`); never two the same, and
        // each name within NAME_MAX (a 255-byte upload's name + `.mp4` is not): a shortened one is said on the row.
        var outputNote: String?
        func fitted(_ relative: String) -> String {
            let name = PathName.lastComponent(relative), fit = PathName.fitting(name)
            if fit != name {
                outputNote = "output name shortened to fit \(NAME_MAX) bytes (in full it would be \(FileName.bytes(name).count))"
            }
            return PathName.replacingName(of: relative, with: fit)
        }
        func reserveOutput() {
            let first = fitted(relativeOutput)
            let stem = PathName.deletingExtension(first), ext = PathName.pathExtension(first)
            var output = PathName.join(outRoot, first)
            var n = 2
            while takenOutputs.contains(output.lowercased()) {
                output = PathName.join(outRoot, fitted("\(stem)-\(n).\(ext)"))
                n += 1
            }
            takenOutputs.insert(output.lowercased())
            item.output = output
        }
        let selection: VersionSelection, source: ProbedSource
        switch probe {
        case .success(let probed): (selection, source) = probed
        case .failure(let error):
            // Planned as a transcode so that the run records the failure with its reason (the fallback may still deliver it).
            item.reason = "cannot be probed: \(error.description)"
            item.created = modificationTime(main.path)
            reserveOutput()
            return .planned(item, note: outputNote)
        }
        var info = source.info
        item.duration = info.duration
        item.sourceBytes = info.size
        item.created = creationTime(info) ?? modificationTime(selection.report.resource)
        let hasVideo = info.firstVideo != nil
        let hasAudio = info.streams.contains { $0.kind == .audio }
        if options.media == .video && !hasVideo { return .filtered("--media video: no video") }
        if options.media == .audio && (hasVideo || !hasAudio) { return .filtered(hasVideo ? "--media audio: has video" : "--media audio: no audio") }
        if let min = options.minDuration, (info.duration ?? 0) < min {
            return .filtered("--min-duration \(min): " + (info.duration.map { String(format: "%.2f s", $0) } ?? "duration unknown"))
        }
        if let max = options.maxDuration, (info.duration ?? .infinity) > max {
            return .filtered("--max-duration \(max): " + (info.duration.map { String(format: "%.2f s", $0) } ?? "duration unknown"))
        }

        reserveOutput()

        // The plan.
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
            let ext = PathName.pathExtension(selection.report.resource).lowercased()
            if ext == preset.defaultExtension.lowercased() {
                item.action = .copy
                item.reason = "already fits the preset, in the same container"
            } else {
                item.action = .remux
                item.reason = "already fits the preset; only the container changes (.\(ext) → .\(preset.defaultExtension))"
            }
        }
        item.estimatedBytes = ExportPlanner.estimatedBytes(info, preset: preset, fits: item.action != .transcode)
        if options.dryRun && item.action == .transcode {
            // What the export's `started` record would say: the plan's streams at their rates, a CRF video measured on samples.
            if let plan = try? ExportPlanner.plan(source: info, preset: preset, route: .transcode, container: Container(extension: PathName.pathExtension(item.output)),
                                          edits: selection.edits, range: nil, tracks: options.tracks), plan.isPossible {
                let sampled = SampleEncode.videoBitrate(source: source, plan: plan, cancel: CancelToken(), activity: {})
                if let estimate = OutputSize.estimatedBytes(plan: plan, source: info, videoBitrate: sampled) {
                    let limit = options.maxFileSize ?? preset.maxFileSize
                    item.estimatedBytes = limit.map { min($0, estimate) } ?? estimate
                }
            }
        }
        return .planned(item, note: outputNote)
    }

    /// Resume: an asset unchanged since a run that completed (or failed) is skipped.
    static func applyResume(_ item: inout BatchItem, options: BatchOptions, database: [String: ExportDatabase.Row],
                            hashes: inout [String: String]) throws {
        guard !options.force, let row = database[item.key] else { return }
        let fingerprint = try fingerprintOf(item, hashes: &hashes)
        let same = row.sourceFingerprint == fingerprint && row.presetHash == presetHash(options.preset, tracks: options.tracks, maxFileSize: options.maxFileSize, deterministic: options.deterministic)
            && row.versionRequested == options.version.rawValue
        if same && row.status == "completed" {
            if let out = row.outputPath, let size = fileSize(out), size == row.outputSize {
                item.action = .skip
                item.reason = "unchanged since the last run"
            } else {
                item.reason = "output missing or changed since the last run: redo"
            }
        } else if same && row.status == "failed" && !options.retryFailed {
            item.action = .skip
            item.reason = "failed in the last run (\(row.error ?? "unknown error")); use --retry-failed"
        } else if !same {
            item.reason += "; changed since the last run"
        }
    }

    /// SHA-256 of the preset's canonical JSON: a changed preset redoes its assets.
    /// What the run's settings make of every file: the preset, with `--max-size` in place of its `maxFileSize`, and a
    /// track selection other than the default, and `--deterministic` (each left out when default, so that the hash of
    /// a run without them is what it always was).
    public static func presetHash(_ preset: Preset, tracks: TrackSelection = .all, maxFileSize: Int64? = nil, deterministic: Bool = false) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        var effective = preset
        if let maxFileSize { effective.maxFileSize = maxFileSize }
        var data = (try? encoder.encode(effective)) ?? Data()
        if tracks != .all { data += (try? encoder.encode(tracks)) ?? Data() }
        if deterministic { data += Data("deterministic".utf8) }
        let hasher = SHA256Hasher()
        data.withUnsafeBytes { hasher.update($0) }
        return hasher.finish()
    }

    /// Size, modification time and content hash of every resource, reusing hashes of files whose size and time
    /// did not change (`hashes` is keyed by `path|size|mtime`).
    static func sources(of item: BatchItem, hashes: inout [String: String]) throws -> [ExportDatabase.SourceRecord] {
        try sources(of: item, cached: { hashes[$0] }, store: { hashes[$0] = $1 })
    }

    /// The same, with the hashes looked up and stored one by one: a job asks the run's shared cache for its own
    /// files only, instead of copying every hash of the run (which grows with the folder).
    static func sources(of item: BatchItem, cached: (String) -> String?,
                        store: (String, String) -> Void) throws -> [ExportDatabase.SourceRecord] {
        try item.resources.map { path in
            guard let st = FileSystem.stat(path) else { throw ExportError.inputUnreadable(path: path, reason: String(cString: strerror(errno))) }
            let modified = Double(st.st_mtim.tv_sec) + Double(st.st_mtim.tv_nsec) / 1e9
            let cacheKey = "\(path)|\(st.st_size)|\(modified)"
            // A sidecar that is not a regular file (a FIFO, a link to /dev/zero) is never read: it would block or not end.
            let regular = (st.st_mode & S_IFMT) == S_IFREG
            let sha = try regular ? cached(cacheKey) ?? SHA256Hasher.file(path) : "not a regular file"
            if regular { store(cacheKey, sha) }
            return ExportDatabase.SourceRecord(path: path, size: Int64(st.st_size), modified: modified, sha256: sha)
        }
    }

    static func fingerprintOf(_ item: BatchItem, hashes: inout [String: String]) throws -> String {
        fingerprint(of: try sources(of: item, hashes: &hashes))
    }

    /// One hash over the resources' names, sizes and content hashes.
    static func fingerprint(of records: [ExportDatabase.SourceRecord]) -> String {
        let hasher = SHA256Hasher()
        for r in records {
            let line = "\(PathName.lastComponent(r.path))|\(r.size)|\(r.sha256)\n"
            line.utf8CString.withUnsafeBytes { hasher.update(UnsafeRawBufferPointer(rebasing: $0.dropLast())) }
        }
        return hasher.finish()
    }

    /// The output folder with symlinks resolved, created first when `create` (a dry run creates nothing: a folder
    /// that does not exist yet is resolved through its nearest existing parent).
    static func outputRoot(_ path: String, create: Bool) throws -> String {
        if create { try makeDirectories(path) }
        if let real = FileSystem.realPath(path) {
            guard FileSystem.isDirectory(real) else { throw ExportError.outputUnwritable(path: path, reason: "not a folder") }
            return real
        }
        guard !create else { throw ExportError.outputUnwritable(path: path, reason: "cannot resolve the folder") }
        var missing: [String] = []
        var parent = path.isEmpty ? "." : path
        while FileSystem.realPath(parent) == nil && parent != "/" && parent != "." {
            missing.insert(PathName.lastComponent(parent), at: 0)
            parent = PathName.directory(parent)
        }
        var result = FileSystem.realPath(parent) ?? parent
        for name in missing where name != "." { result = PathName.join(result, name) }
        return result
    }

    /// The output folder, created, with symlinks resolved.
    static func canonicalDirectory(_ path: String) throws -> String { try outputRoot(path, create: true) }

    /// `mkdir -p` on byte-exact names.
    static func makeDirectories(_ path: String) throws {
        if FileSystem.isDirectory(path) { return }
        let parent = PathName.directory(path)
        if parent != path { try makeDirectories(parent) }
        if mkdir(FileName.cString(path), 0o755) != 0 && errno != EEXIST {
            throw ExportError.outputUnwritable(path: FileName.display(path), reason: "cannot create the folder: \(String(cString: strerror(errno)))")
        }
        guard FileSystem.isDirectory(path) else { throw ExportError.outputUnwritable(path: FileName.display(path), reason: "not a folder") }
    }

    static func relativePath(_ path: String, to root: String) -> String {
        let r = root.hasSuffix("/") ? root : root + "/"
        return path.hasPrefix(r) ? String(path.dropFirst(r.count)) : PathName.lastComponent(path)
    }

    /// Shell-style match on the relative path or the file name, ignoring case (`*.mov` matches `IMG_1.MOV`).
    static func glob(_ pattern: String, _ path: String) -> Bool {
        let caseFold: Int32 = 1 << 4  // FNM_CASEFOLD (GNU)
        let p = FileName.cString(pattern)
        return fnmatch(p, FileName.cString(path), caseFold) == 0 || fnmatch(p, FileName.cString(PathName.lastComponent(path)), caseFold) == 0
    }

    static func fileSize(_ path: String) -> Int64? { FileSystem.size(path) }

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
