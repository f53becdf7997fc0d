import Foundation
import MediaExportCore
import MediaExportFFmpeg

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
    /// The route the asset's export is expected to deliver by — its first route (`ExportPlanner.start`, which its
    /// session decides alike), or where the fallback chain goes when that route's plan is impossible; nil: skipped.
    public var route: ExportRoute?
    /// Why that action was chosen, for people.
    public var reason: String
    /// Seconds of media, if known.
    public var duration: Double?
    /// Source bytes (the resource read).
    public var sourceBytes: Int64
    /// A rough estimate of the output size in bytes.
    public var estimatedBytes: Int64?
    /// How `estimatedBytes` was made (`OutputSize.EstimateMethod`): `samples` (a dry run's sample encodes, or a run
    /// after one: `BatchOptions.estimateStore`), `guess`, `rates` or `source`.
    public var estimateMethod: String?
    /// Creation time used for `--sort created`.
    public var created: Double
    /// Why the export will be refused before any work (`ExportPlan.refusal`: the preset's codec or a passthrough the
    /// output's container cannot hold, for this healthy file): the run fails the asset, and the dry run says so.
    public var refusal: String?

    /// The file's export fails before any work: why it does not open as media (`ExportError.description`).
    public var probeFailure: String?
    /// What decoding a sample of its data found (`BatchOptions.checkData`); nil when not checked.
    public var dataCheck: DataSample?
    /// Why the run fails the asset for the damage `dataCheck` found: the fallback chain ends before any route
    /// delivers a damaged input (`--damaged fail`, `--fallback none`).
    public var damageFailure: String?
    /// Why the upload can never be exported: it does not open as media (empty, text, an unknown format). The run
    /// does not try it; its row is `rejected` (a failure only under `--strict`).
    public var rejection: String?
    /// True when the output an earlier run wrote is there but changed since (not the SHA-256 recorded): the run
    /// leaves it as it is (`BatchRowStatus.edited`) unless `--overwrite`.
    public var outputEdited: Bool?

    /// The report's `action` column: `transcode`, `remux`, `copy`, `salvage` (a dry run's damaged upload, `dataCheck`)
    /// or `skip` (the `planned` record adds it).
    public var action: String { route?.rawValue ?? "skip" }
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
    /// With `--shard`: the shard and the keys of the whole scan, for the report; nil otherwise.
    public var shardScan: BatchShardScan? = nil
}

/// Scans inputs into assets, filters and sorts them like a library fetch, maps outputs under the output folder,
/// and decides per asset whether to transcode, remux, copy or skip.
///
/// What is media is FFmpeg's call, not the extension's: a file whose name says nothing (`.xyz`, no extension) is
/// opened once — the same probe that plans it — and is listed in `ignored` with FFmpeg's reason when it is not
/// media. Only obvious non-media (`.txt`, `.json`, `.pdf` …), stills and sidecars are told by name. A file under
/// a media name (`.mov`, `.ogv` …) that does not open is planned, so its failure is reported.
public enum BatchPlanner {
    /// An asset met in the inputs, with where its output goes (relative to the output folder).
    struct Met {
        var root: BatchScan.Root
        var asset: Asset
        var main: Resource
        var real: String
        var output: String
    }

    /// Files and folders → the plan, with notes on what was left out; `database` rows make unchanged assets `skip`.
    /// An asset reached twice (a file given twice, or reached through a symlink) is planned once, the first time, with a note.
    public static func makePlan(_ options: BatchOptions, database: [String: ExportDatabase.Row] = [:], settings: [String: String] = [:],
                                hashes: inout [String: String]) throws -> BatchPlan {
        try options.shard?.check()
        let outRoot = try outputRoot(options.outputDirectory, create: false)
        let scan = try BatchScan.scan(options.inputs, outRoot: outRoot)
        var draft = PlanDraft(options: options, database: database, settings: settings, outRoot: outRoot, notes: scan.notes, ignored: scan.ignored)
        // Every asset met, in order, with the real path of its main file: one met twice (a file given twice, or
        // reached through a symlink) is planned once — as the file itself rather than a link to it, else as met first.
        let met = draft.meet(scan.roots)
        let given = Set(scan.roots.flatMap(\.files))
        var chosen: [String: String] = [:]  // real path → the main path planned for it
        for m in met where chosen[m.real] == nil || (m.main.path == m.real && chosen[m.real] != m.real) { chosen[m.real] = m.main.path }
        for m in met {
            draft.ignoreCompanions(of: m, given: given)
            try draft.plan(m, chosen: chosen, hashes: &hashes)
        }
        return draft.finish(assetsMet: met.count)
    }

    /// A folder of the inputs, grouped into assets, with the output name of each asset's main file.
    typealias GroupedFolder = (directory: String, folder: FolderAssets, outputs: [String: String])

    /// The folders a walked root holds files in, each grouped from the files met there.
    static func groupedFolders(walked input: BatchScan.Root, extension ext: String) -> [GroupedFolder] {
        byFolder(input.files).map { dir, names in
            let folder = FolderAssets.group(directory: dir, names: names)
            return (dir, folder, outputNames(folder, extension: ext))
        }
    }

    /// A file given alone brings the rest of its asset from its folder (its rendered edit, sidecars …), and its
    /// output is named among the folder's assets as a walk of the folder would name it. `listed` keeps the
    /// folders of files given one by one, grouped once.
    static func groupedFolder(given file: String, listed: inout [String: FolderAssets], extension ext: String) -> GroupedFolder {
        let dir = PathName.directory(file), name = PathName.lastComponent(file)
        let whole = listed[dir] ?? FolderAssets.group(directory: dir, names: FolderAssets.listing(of: dir))
        listed[dir] = whole
        let folder = whole.asset(containing: name) != nil || whole.loose.contains(where: { $0.name == name })
            ? whole : FolderAssets.of([name], in: dir)  // hidden, or gone from the listing
        var own = folder
        own.assets = folder.asset(containing: name).map { [$0] } ?? []
        own.loose = folder.loose.filter { $0.name == name }
        return (dir, own, outputNames(folder, extension: ext))
    }

    /// Files → their names by folder, in the order the folders are first met.
    static func byFolder(_ files: [String]) -> [(directory: String, names: [String])] {
        var names: [String: [String]] = [:], order: [String] = []
        for file in files {
            let dir = PathName.directory(file)
            if names[dir] == nil { order.append(dir) }
            names[dir, default: []].append(PathName.lastComponent(file))
        }
        return order.map { ($0, names[$0, default: []]) }
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
        byFolder(files).flatMap { FolderAssets.of($0.names, in: $0.directory).assets }
    }
}

extension BatchPlanner {
    /// A plan being drawn up: the assets met are planned one by one, in order, each adding its item or saying
    /// why it has none.
    struct PlanDraft {
        let options: BatchOptions
        let database: [String: ExportDatabase.Row]  // the last run's rows: an unchanged asset is `skip`
        let settings: [String: String]  // the earlier runs' settings by hash (`ExportDatabase.settings`)
        let outRoot: String
        var notes: [String]
        var ignored: [IgnoredFile]
        var items: [BatchItem] = []
        var takenOutputs = Set<String>()  // outputs reserved so far, lowercased: no two differ only in case
        var takenKeys = Set<String>()  // keys given so far, lowercased
        var planned = Set<String>()  // real paths of the main files planned once
        var notMedia = 0  // assets whose file turned out not to be media
        var scanKeys: [String] = []  // the keys of every shard, taken before the shard filter (`BatchShardScan`)
        var scanSizes: [Int64] = []  // their main files' sizes
        var keys: [String: String] = [:]  // main path → its asset's key (as admitted, else as it would be): `of` in `ignored`

        /// Every asset of the roots, in order, with its output; the loose files of their folders are ignored, and
        /// the assets' notes are noted (each once).
        mutating func meet(_ roots: [BatchScan.Root]) -> [Met] {
            var met: [Met] = []
            var listed: [String: FolderAssets] = [:]
            let ext = options.outputExtension
            for input in roots {
                let folders = input.isFolder ? groupedFolders(walked: input, extension: ext)
                    : [groupedFolder(given: input.files[0], listed: &listed, extension: ext)]
                for (dir, folder, outputs) in folders {
                    for loose in folder.loose {
                        let kind: IgnoredFile.Kind = loose.why == .notMedia ? .notMedia : loose.why == .stillImage ? .stillImage : .sidecar
                        let path = PathName.join(dir, loose.name)
                        ignored.append(IgnoredFile(path: path, key: BatchPlanner.key(path, in: input), kind: kind, reason: loose.detail))
                    }
                    for asset in folder.assets {
                        guard let main = asset.original ?? asset.renderedEdit else { continue }
                        let output = PathName.replacingName(of: relativePath(main.path, to: input.root),
                                                            with: outputs[main.path] ?? PathName.lastComponent(main.path))
                        met.append(Met(root: input, asset: asset, main: main, real: FileSystem.realPath(main.path) ?? main.path, output: output))
                        if keys[main.path] == nil { keys[main.path] = BatchPlanner.key(main.path, in: input) }
                        for note in asset.notes where !notes.contains(note) { notes.append(note) }
                    }
                }
            }
            return met
        }

        /// The asset's other files under the inputs, each said once: they go with it, whatever becomes of it.
        mutating func ignoreCompanions(of m: Met, given: Set<String>) {
            let main = m.main
            let shown = FileName.display(PathName.lastComponent(main.path))
            for r in m.asset.resources where r.path != main.path && given.contains(r.path) {
                let key = BatchPlanner.key(r.path, in: m.root)
                switch r.kind {
                case .photo: ignored.append(IgnoredFile(path: r.path, key: key, kind: .livePhotoStill, reason: "the still of Live Photo \(shown)", of: main.path))
                case .renderedEdit:
                    let how = options.version == .current ? "exported as its current version" : "not exported (--asset-version original)"
                    ignored.append(IgnoredFile(path: r.path, key: key, kind: .renderedEdit, reason: "the rendered edit of \(shown): \(how)", of: main.path))
                case .editSidecar, .adjustmentData:
                    ignored.append(IgnoredFile(path: r.path, key: key, kind: .sidecar, reason: "a sidecar of \(shown)", of: main.path))
                default: break
                }
            }
        }

        /// Plans one asset met: once (`chosen` maps a real path to the main path planned for it), unless a filter
        /// or the shard leaves it out, with its resume state from the database.
        mutating func plan(_ m: Met, chosen: [String: String], hashes: inout [String: String]) throws {
            let main = m.main
            guard chosen[m.real] == main.path, planned.insert(m.real).inserted else {
                noteDuplicate(m, first: chosen[m.real] ?? m.real)
                return
            }
            guard let key = admittedKey(m) else { return }
            let output = try options.name.map { try named(m, by: $0, key: key, hashes: &hashes) } ?? m.output
            let described = try describe(asset: m.asset, main: main, key: key, output: output, outRoot: outRoot, options: options,
                                         takenOutputs: &takenOutputs)
            FreedMemory.release()  // the probe's buffers: the planner holds what it keeps, not every file's probe
            switch described {
            case .planned(var item, let note):
                try applyResume(&item, options: options, database: database, settings: settings, hashes: &hashes)
                if let note { item.reason += "; " + note }
                items.append(item)
            case .filtered(let reason):
                ignored.append(IgnoredFile(path: main.path, key: key, kind: .filtered, reason: reason))
            case .notMedia(let reason):
                notMedia += 1
                ignored.append(IgnoredFile(path: main.path, key: key, kind: .notMedia, reason: "not media: \(reason)"))
            }
        }

        /// The asset's output under `--name`: the template with the asset's values (`{sha8}` hashes the main file,
        /// through the run's cache of hashes).
        private func named(_ m: Met, by template: BatchNameTemplate, key: String, hashes: inout [String: String]) throws -> String {
            let folder = PathName.directory(m.output)
            var values: BatchNameTemplate.Values = [
                .stem: PathName.deletingExtension(PathName.lastComponent(m.main.path)), .key: PathName.deletingExtension(key),
                .preset: options.preset.name.replacingOccurrences(of: "/", with: "_"), .folder: folder == "." ? "" : folder,
                .ext: options.outputExtension,
            ]
            if template.uses(.sha8) {
                values[.sha8] = String(try sourceRecord(m.main.path, cached: { hashes[$0] }, store: { hashes[$0] = $1 }).sha256.prefix(8))
            }
            return template.render(values)
        }

        /// A main file met again (given twice, or the same file as `first`): exported once.
        private mutating func noteDuplicate(_ m: Met, first: String) {
            let path = m.main.path
            notes.append(first == path ? "\(FileName.display(path)): given more than once; exported once"
                         : "\(FileName.display(path)): the same file as \(FileName.display(first)); exported once, as the latter")
            if first != path {
                ignored.append(IgnoredFile(path: path, key: BatchPlanner.key(path, in: m.root), kind: .duplicate,
                                           reason: "the same file as \(FileName.display(first))", of: first))
            }
        }

        /// The asset's key (made unique, ignoring case), or nil when `--include`/`--exclude` or the shard leave it out.
        private mutating func admittedKey(_ m: Met) -> String? {
            let path = m.main.path
            var key = BatchPlanner.key(path, in: m.root)
            if !options.include.isEmpty && !options.include.contains(where: { glob($0, key) }) {
                ignored.append(IgnoredFile(path: path, key: key, kind: .filtered, reason: "matches no --include (\(options.include.joined(separator: ", ")))"))
                return nil
            }
            if let pattern = options.exclude.first(where: { glob($0, key) }) {
                ignored.append(IgnoredFile(path: path, key: key, kind: .filtered, reason: "matches --exclude \(pattern)"))
                return nil
            }
            var n = 2
            let base = key
            while takenKeys.contains(key.lowercased()) { key = "\(base)#\(n)"; n += 1 }
            takenKeys.insert(key.lowercased())
            keys[path] = key
            scanKeys.append(key)
            scanSizes.append(m.main.size)
            if let shard = options.shard, !shard.contains(key) {
                ignored.append(IgnoredFile(path: path, key: key, kind: .notInShard, reason: "in another shard than \(shard)"))
                return nil
            }
            return key
        }

        /// The plan: the items in the order of the work, and each ignored file once (a file met twice says why the
        /// first time), never one that is planned. `met` counts the assets met, not-media ones included.
        func finish(assetsMet met: Int) -> BatchPlan {
            var items = self.items
            switch options.sort {
            case .name: items.sort { $0.key.localizedStandardCompare($1.key) == .orderedAscending }
            case .created: items.sort { ($0.created, $0.key) < ($1.created, $1.key) }
            }
            let inputs = Set(items.map(\.input))
            var said = Set<String>()
            let ignored = self.ignored.filter { !inputs.contains($0.path) && said.insert($0.path).inserted }.map { file in
                var keyed = file
                keyed.of = file.of.map { keys[$0] ?? PathName.lastComponent($0) }  // the asset's key, as its row has it
                return keyed
            }
            var notes = self.notes
            if let summary = IgnoredFile.summary(ignored) { notes.append(summary) }
            return BatchPlan(items: items, notes: notes, assetsFound: met - notMedia, ignored: ignored,
                             shardScan: options.shard.map {
                                 BatchShardScan(shard: $0, keys: scanKeys, sizes: scanSizes, batch: [outRoot, options.settingsHash, options.version.rawValue])
                             })
        }
    }
}
