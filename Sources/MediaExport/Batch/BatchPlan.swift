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

/// A batch's plan: the items, what was left out and why, and how many assets the inputs held at all.
public struct BatchPlan: Sendable {
    /// The planned items, in the order of the work.
    public var items: [BatchItem]
    /// What a person should know about the inputs: the output folder or symlinked folders skipped, duplicates
    /// exported once, dangling links. Paths in them are shown with `FileName.display`.
    public var notes: [String]
    /// Assets found before any filter, shard or duplicate was taken out: zero means the inputs hold no media.
    public var assetsFound: Int
}

/// Scans inputs into assets, filters and sorts them like a library fetch, maps outputs under the output folder,
/// and decides per asset whether to transcode, remux, copy or skip.
public enum BatchPlanner {
    /// Files and folders → planned items. `database` rows make unchanged assets `skip`.
    public static func plan(_ options: BatchOptions, database: [String: ExportDatabase.Row] = [:],
                            hashes: inout [String: String]) throws -> [BatchItem] {
        try makePlan(options, database: database, hashes: &hashes).items
    }

    /// Files and folders → the plan, with notes on what was left out. An asset reached twice (a file given twice,
    /// or reached through a symlink) is planned once, the first time, with a note.
    public static func makePlan(_ options: BatchOptions, database: [String: ExportDatabase.Row] = [:],
                                hashes: inout [String: String]) throws -> BatchPlan {
        let outRoot = try outputRoot(options.outputDirectory, create: false)
        let scan = try BatchScan.scan(options.inputs, outRoot: outRoot)
        var notes = scan.notes
        // Every asset met, in order, with the real path of its main file: one met twice (a file given twice, or
        // reached through a symlink) is planned once — as the file itself rather than a link to it, else as met first.
        var met: [(root: BatchScan.Root, asset: Asset, main: Resource, real: String)] = []
        for input in scan.roots {
            for asset in group(input.files) {
                guard let main = asset.original ?? asset.renderedEdit else { continue }  // photos or sidecars alone
                met.append((input, asset, main, FileSystem.realPath(main.path) ?? main.path))
            }
        }
        // Files that are in no asset with a movie or a sound (other names, stills or sidecars alone) are named, not dropped.
        let used = Set(met.flatMap { $0.asset.resources.map(\.path) })
        let leftOut = scan.roots.flatMap(\.files).filter { !used.contains($0) }
        if !leftOut.isEmpty {
            let shown = leftOut.prefix(5).map { FileName.display(($0 as NSString).lastPathComponent) }.joined(separator: ", ")
            notes.append("\(leftOut.count) file\(leftOut.count == 1 ? " is" : "s are") not video or audio by name (or a still or sidecar "
                         + "without its movie), left out: \(shown)\(leftOut.count > 5 ? ", …" : "")")
        }
        var chosen: [String: String] = [:]  // real path → the main path planned for it
        for m in met where chosen[m.real] == nil || (m.main.path == m.real && chosen[m.real] != m.real) { chosen[m.real] = m.main.path }
        var items: [BatchItem] = []
        var takenOutputs = Set<String>()
        var takenKeys = Set<String>()
        var planned = Set<String>()
        for (input, asset, main, real) in met {
            guard chosen[real] == main.path, planned.insert(real).inserted else {
                let first = chosen[real] ?? real
                notes.append(first == main.path ? "\(FileName.display(main.path)): given more than once; exported once"
                             : "\(FileName.display(main.path)): the same file as \(FileName.display(first)); exported once, as the latter")
                continue
            }
            var key = input.isFolder ? relativePath(main.path, to: input.root) : (main.path as NSString).lastPathComponent
            if !options.include.isEmpty && !options.include.contains(where: { glob($0, key) }) { continue }
            if options.exclude.contains(where: { glob($0, key) }) { continue }
            var n = 2
            let base = key
            while takenKeys.contains(key.lowercased()) { key = "\(base)#\(n)"; n += 1 }
            takenKeys.insert(key.lowercased())
            if let shard = options.shard, !shard.contains(key) { continue }
            var item = try describe(asset: asset, main: main, key: key, root: input.root, outRoot: outRoot, options: options,
                                    takenOutputs: &takenOutputs)
            guard item.reason != filtered else { continue }
            try applyResume(&item, options: options, database: database, hashes: &hashes)
            items.append(item)
        }
        switch options.sort {
        case .name: items.sort { $0.key.localizedStandardCompare($1.key) == .orderedAscending }
        case .created: items.sort { ($0.created, $0.key) < ($1.created, $1.key) }
        }
        return BatchPlan(items: items, notes: notes, assetsFound: met.count)
    }

    /// Files → assets, one per folder and base name.
    static func group(_ files: [String]) -> [Asset] {
        var seen = Set<String>()
        var assets: [Asset] = []
        for file in files {
            guard let c = Asset.classify((file as NSString).lastPathComponent) else { continue }
            let id = (file as NSString).deletingLastPathComponent + "/" + c.base
            if seen.contains(id) { continue }
            seen.insert(id)
            if let asset = try? Asset.discover(from: file) { assets.append(asset) }
        }
        return assets
    }

    /// Marks an item left out by the filters.
    private static let filtered = "\u{0}filtered"

    private static func describe(asset: Asset, main: Resource, key: String, root: String, outRoot: String, options: BatchOptions,
                                 takenOutputs: inout Set<String>) throws -> BatchItem {
        // Output: the asset's relative path under the output folder, with the preset's extension; never two the same.
        let relative = (relativePath(main.path, to: root) as NSString).deletingPathExtension
        var output = (outRoot as NSString).appendingPathComponent(relative + "." + options.preset.defaultExtension)
        var n = 2
        while takenOutputs.contains(output.lowercased()) {
            output = (outRoot as NSString).appendingPathComponent("\(relative)-\(n).\(options.preset.defaultExtension)")
            n += 1
        }
        takenOutputs.insert(output.lowercased())

        var item = BatchItem(key: key, input: main.path, resources: asset.resources.map(\.path), output: output, action: .transcode,
                             reason: "", duration: nil, sourceBytes: main.size, estimatedBytes: nil, created: 0)
        let selection: VersionSelection
        let source: ProbedSource
        do {
            selection = try VersionResolver.select(input: main.path, version: options.version, editsPath: nil, requireCurrent: false)
            source = try ProbedSource(path: selection.report.resource, cancel: nil)
        } catch let error as ExportError {
            // Planned as a transcode so that the run records the failure with its reason (the fallback may still deliver it).
            item.reason = "cannot be probed: \(error.description)"
            item.created = modificationTime(main.path)
            return item
        }
        var info = source.info
        item.duration = info.duration
        item.sourceBytes = info.size
        item.created = creationTime(info) ?? modificationTime(selection.report.resource)
        let hasVideo = info.firstVideo != nil
        let hasAudio = info.streams.contains { $0.kind == .audio }
        if options.media == .video && !hasVideo || options.media == .audio && (hasVideo || !hasAudio)
            || options.minDuration.map({ (info.duration ?? 0) < $0 }) == true
            || options.maxDuration.map({ (info.duration ?? .infinity) > $0 }) == true {
            item.reason = filtered
            return item
        }

        // The plan.
        let preset = options.preset
        if preset.passthrough {
            item.action = .remux
            item.reason = "passthrough preset"
        } else if options.policy == .always {
            item.reason = "policy always"
        } else if let edits = selection.edits, !edits.isEmpty {
            item.reason = "edits from \((selection.report.sidecar as NSString?)?.lastPathComponent ?? "a sidecar") to apply"
        } else if let misfit = ExportPlanner.misfit(info, preset: preset) {
            item.reason = misfit
        } else if let truncation = try? measuredTruncation(source) {
            // Judged as a single export would: a file cut short is not "already fitting"; its transcode falls back.
            item.reason = truncation
            info = source.info
        } else {
            let ext = (selection.report.resource as NSString).pathExtension.lowercased()
            if ext == preset.defaultExtension.lowercased() {
                item.action = .copy
                item.reason = "already fits the preset, in the same container"
            } else {
                item.action = .remux
                item.reason = "already fits the preset; only the container changes (.\(ext) → .\(preset.defaultExtension))"
            }
        }
        item.estimatedBytes = ExportPlanner.estimatedBytes(info, preset: preset, fits: item.action != .transcode)

        return item
    }

    /// Resume: an asset unchanged since a run that completed (or failed) is skipped.
    static func applyResume(_ item: inout BatchItem, options: BatchOptions, database: [String: ExportDatabase.Row],
                            hashes: inout [String: String]) throws {
        guard !options.force, let row = database[item.key] else { return }
        let fingerprint = try fingerprintOf(item, hashes: &hashes)
        let same = row.sourceFingerprint == fingerprint && row.presetHash == presetHash(options.preset)
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
    public static func presetHash(_ preset: Preset) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = (try? encoder.encode(preset)) ?? Data()
        let hasher = SHA256Hasher()
        data.withUnsafeBytes { hasher.update($0) }
        return hasher.finish()
    }

    /// Size, modification time and content hash of every resource, reusing hashes of files whose size and time
    /// did not change (`hashes` is keyed by `path|size|mtime`).
    static func sources(of item: BatchItem, hashes: inout [String: String]) throws -> [ExportDatabase.SourceRecord] {
        try item.resources.map { path in
            guard let st = FileSystem.stat(path) else { throw ExportError.inputUnreadable(path: path, reason: String(cString: strerror(errno))) }
            let modified = Double(st.st_mtim.tv_sec) + Double(st.st_mtim.tv_nsec) / 1e9
            let cacheKey = "\(path)|\(st.st_size)|\(modified)"
            let sha = try hashes[cacheKey] ?? SHA256Hasher.file(path)
            hashes[cacheKey] = sha
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
            let line = "\((r.path as NSString).lastPathComponent)|\(r.size)|\(r.sha256)\n"
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
            missing.insert((parent as NSString).lastPathComponent, at: 0)
            let up = (parent as NSString).deletingLastPathComponent
            parent = up.isEmpty ? "." : up
        }
        var result = FileSystem.realPath(parent) ?? parent
        for name in missing where name != "." { result = (result as NSString).appendingPathComponent(name) }
        return result
    }

    /// The output folder, created, with symlinks resolved.
    static func canonicalDirectory(_ path: String) throws -> String { try outputRoot(path, create: true) }

    /// `mkdir -p` on byte-exact names.
    static func makeDirectories(_ path: String) throws {
        if FileSystem.isDirectory(path) { return }
        let parent = (path as NSString).deletingLastPathComponent
        if !parent.isEmpty && parent != path { try makeDirectories(parent) }
        if mkdir(FileName.cString(path), 0o755) != 0 && errno != EEXIST {
            throw ExportError.outputUnwritable(path: FileName.display(path), reason: "cannot create the folder: \(String(cString: strerror(errno)))")
        }
        guard FileSystem.isDirectory(path) else { throw ExportError.outputUnwritable(path: FileName.display(path), reason: "not a folder") }
    }

    static func relativePath(_ path: String, to root: String) -> String {
        let r = root.hasSuffix("/") ? root : root + "/"
        return path.hasPrefix(r) ? String(path.dropFirst(r.count)) : (path as NSString).lastPathComponent
    }

    /// Shell-style match on the relative path or the file name, ignoring case (`*.mov` matches `IMG_1.MOV`).
    static func glob(_ pattern: String, _ path: String) -> Bool {
        let caseFold: Int32 = 1 << 4  // FNM_CASEFOLD (GNU)
        let p = FileName.cString(pattern)
        return fnmatch(p, FileName.cString(path), caseFold) == 0 || fnmatch(p, FileName.cString((path as NSString).lastPathComponent), caseFold) == 0
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
