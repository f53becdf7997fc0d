import Foundation
import MediaExportCore
import MediaExportFFmpeg

/// What makes an asset "the same as last time": its files' hashes and the run's settings.
extension BatchPlanner {
    /// Resume: an asset unchanged since a run that completed (or failed) is skipped.
    static func applyResume(_ item: inout BatchItem, options: BatchOptions, database: [String: ExportDatabase.Row],
                            settings: [String: String] = [:], hashes: inout [String: String]) throws {
        guard !options.force, let row = database[item.key] else { return }
        let records = try sources(of: item, cached: { hashes[$0] }, store: { hashes[$0] = $1 })
        let same = row.sourceFingerprint == fingerprint(of: records) && row.presetHash == options.settingsHash
            && row.versionRequested == options.version.rawValue
        if same && row.status == "completed" {
            let skippedDuplicate = row.duplicateOf != nil && row.outputPath == nil && options.duplicates == .skip
            if let out = row.outputPath, !BatchOutputs.isPlaced(out, for: item.output, options: options) {
                item.reason = "output path changed since the last run (was \(FileName.display(PathName.lastComponent(out)))): redo"
            } else if skippedDuplicate || row.outputPath.map({ BatchOutputs.isOwn($0, record: row, cached: { hashes[$0] }, store: { hashes[$0] = $1 }) }) == true {
                item.route = nil
                item.reason = "unchanged since the last run"
            } else if let out = row.outputPath, FileSystem.lstat(out) != nil, !options.overwrite {
                // Someone changed it (not the SHA-256 recorded): theirs now, kept as it is.
                (item.route, item.outputEdited) = (nil, true)
                item.reason = "output changed since this batch wrote it: kept as it is (--overwrite replaces it)"
            } else {
                item.reason = "output missing or changed since the last run: redo"
            }
        } else if same && row.status == "failed" && !options.retryFailed && row.error?.contains(ExportError.notOwnedText) != true {
            item.route = nil
            item.reason = "failed in the last run (\(row.error ?? "unknown error")); use --retry-failed"
        } else if !same {
            item.reason += "; " + changeSince(row, records: records, options: options, settings: settings)
        }
    }

    /// What changed since the last run: the source, the settings (which ones, when the database kept the earlier
    /// run's: `settings changed (video.crf 23 → 28)`), or the version asked.
    static func changeSince(_ row: ExportDatabase.Row, records: [ExportDatabase.SourceRecord], options: BatchOptions,
                            settings: [String: String]) -> String {
        if row.sourceFingerprint != fingerprint(of: records) { return "source changed since the last run" }
        if row.versionRequested != options.version.rawValue {
            return "version asked changed since the last run (\(row.versionRequested) → \(options.version.rawValue))"
        }
        let before = settings[row.presetHash].flatMap { try? JSONDecoder().decode(JSONValue.self, from: Data($0.utf8)) }
        let changes = before.map { SettingsChanges.between($0, settingsRecord(options)) } ?? []
        let shown = changes.prefix(3).joined(separator: ", ") + (changes.count > 3 ? ", …" : "")
        return "settings changed since the last run" + (changes.isEmpty ? "" : " (\(shown))")
    }

    /// The settings `settingsHash` covers, as a JSON value (the effective preset; `tracks` and `deterministic` when set).
    static func settingsRecord(_ options: BatchOptions) -> JSONValue {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        var preset = options.preset
        if let limit = options.request.maxFileSize { preset.maxFileSize = limit }
        guard case .object(var fields)? = try? JSONDecoder().decode(JSONValue.self, from: encoder.encode(preset)) else { return .object([:]) }
        if options.tracks != .all, let tracks = try? JSONDecoder().decode(JSONValue.self, from: encoder.encode(options.tracks)) { fields["tracks"] = tracks }
        if options.deterministic { fields["deterministic"] = .bool(true) }
        return .object(fields)
    }

    /// `settingsRecord` as the JSON text the database keeps.
    static func settingsJSON(_ options: BatchOptions) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(settingsRecord(options))).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    /// SHA-256 of the preset's canonical JSON: a changed preset redoes its assets.
    /// What the run's settings make of every file: the preset, with `--max-size` in place of its `maxFileSize`, and a
    /// track selection other than the default, and `--deterministic` (each left out when default, so that the hash of
    /// a run without them is what it always was), and an output container other than the preset's `defaultExtension`.
    public static func presetHash(_ preset: Preset, tracks: TrackSelection = .all, maxFileSize: Int64? = nil, deterministic: Bool = false,
                                  container: String? = nil) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        var effective = preset
        if let maxFileSize { effective.maxFileSize = maxFileSize }
        var data = (try? encoder.encode(effective)) ?? Data()
        if tracks != .all { data += (try? encoder.encode(tracks)) ?? Data() }
        if deterministic { data += Data("deterministic".utf8) }
        if let container, container != preset.defaultExtension { data += Data("container=\(container)".utf8) }
        let hasher = SHA256Hasher()
        data.withUnsafeBytes { hasher.update($0) }
        return hasher.finish()
    }

    /// Size, modification time and content hash of every resource, reusing hashes of files whose size and time
    /// did not change (keyed by `path|size|mtime`), looked up and stored one by one: a job asks the run's shared cache
    /// for its own files only, instead of copying every hash of the run (which grows with the folder).
    static func sources(of item: BatchItem, cached: (String) -> String?,
                        store: (String, String) -> Void) throws -> [ExportDatabase.SourceRecord] {
        try item.resources.map { try sourceRecord($0, cached: cached, store: store) }
    }

    /// Size, modification time and content hash of one file, its hash reused as `sources(of:)` says.
    static func sourceRecord(_ path: String, cached: (String) -> String?, store: (String, String) -> Void) throws -> ExportDatabase.SourceRecord {
        guard let st = FileSystem.stat(path) else { throw ExportError.inputUnreadable(path: path, reason: String(cString: strerror(errno))) }
        let modified = Double(st.st_mtim.tv_sec) + Double(st.st_mtim.tv_nsec) / 1e9
        let cacheKey = "\(path)|\(st.st_size)|\(modified)"
        // A sidecar that is not a regular file (a FIFO, a link to /dev/zero) is never read: it would block or not end.
        let regular = (st.st_mode & S_IFMT) == S_IFREG
        let sha = try regular ? cached(cacheKey) ?? SHA256Hasher.file(path) : "not a regular file"
        if regular { store(cacheKey, sha) }
        return ExportDatabase.SourceRecord(path: path, size: Int64(st.st_size), modified: modified, sha256: sha)
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
}
