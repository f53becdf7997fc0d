import Foundation
import MediaExportCore
import MediaExportFFmpeg
#if canImport(Glibc)
import Glibc
#endif

/// Byte-identical uploads are exported once: assets of a batch whose resources have the same SHA-256s, with the
/// same action and output container (the version and settings are the batch's), share one export. The others'
/// outputs are hard links to (or, where a link is impossible, copies of) that output, and their rows say
/// `duplicate` and `duplicateOf`. An asset exported by an earlier run with the same settings (the database) is such
/// an original too.
enum BatchDuplicates {
    /// What makes two assets' outputs the same bytes; nil when a resource could not be hashed.
    static func identity(_ sources: [ExportDatabase.SourceRecord], action: String, output: String) -> String? {
        guard !sources.isEmpty, !sources.contains(where: { $0.sha256 == "not a regular file" }) else { return nil }
        return ([action, PathName.pathExtension(output).lowercased()] + sources.map(\.sha256)).joined(separator: "|")
    }

    /// The items (by index) that are duplicates, each with the key of its original: an asset of an earlier run
    /// with the same settings when there is one, else the item of the group with the shortest key (then the
    /// smallest), so which one is exported does not depend on the order the file system lists them in.
    static func find(_ items: [BatchItem], previous: [String: ExportDatabase.Row], options: BatchOptions,
                     hashes: HashCache) -> [Int: String] {
        let hash = options.settingsHash
        let work = items.indices.filter { items[$0].route != nil }
        let workKeys = Set(work.map { items[$0].key })
        var earlier: [String: String] = [:]  // identity → key of an earlier run's asset whose output is there
        for row in previous.values.sorted(by: { precedes($0.assetKey, $1.assetKey) })
        where row.status == "completed" && row.duplicateOf == nil && !workKeys.contains(row.assetKey) && row.presetHash == hash
            && row.versionRequested == options.version.rawValue {
            guard let out = row.outputPath, FileSystem.size(out) == row.outputSize,
                  let id = identity(row.sources, action: row.action, output: out), earlier[id] == nil else { continue }
            earlier[id] = row.assetKey
        }
        var groups: [String: [Int]] = [:]
        for i in work {
            guard let sources = try? BatchPlanner.sources(of: items[i], cached: hashes.hash(_:), store: hashes.store(_:_:)),
                  let id = identity(sources, action: items[i].action, output: items[i].output) else { continue }
            groups[id, default: []].append(i)
        }
        var duplicates: [Int: String] = [:]
        for (id, members) in groups {
            if let key = earlier[id] { for i in members { duplicates[i] = key }; continue }
            guard let first = members.min(by: { precedes(items[$0].key, items[$1].key) }) else { continue }
            for i in members where i != first { duplicates[i] = items[first].key }
        }
        return duplicates
    }

    /// The original of two keys: the shorter, then the smaller (`IMG_0001.MOV` before `IMG_0001 (1).MOV`).
    static func precedes(_ a: String, _ b: String) -> Bool {
        let (x, y) = (FileName.bytes(a), FileName.bytes(b))
        return x.count != y.count ? x.count < y.count : x.lexicographicallyPrecedes(y)
    }

    /// Puts a hard link to `source` at `output` (a copy when the file system cannot link), through a temporary
    /// name beside it, so the output appears only complete. Whether it was a link.
    @discardableResult
    static func link(_ source: String, to output: String) throws -> Bool {
        // `.NAME.mediaexport-tmp-PID-duplicate` as `TemporaryFiles` names its own (a sweep finds it), within NAME_MAX.
        let name = PathName.lastComponent(output), suffix = ".mediaexport-tmp-\(getpid())-duplicate"
        let budget = Int(NAME_MAX) - 1 - suffix.utf8.count
        let stem = FileName.bytes(name).count <= budget ? name : PathName.prefix(of: name, bytes: budget - 1) + "~"
        let temporary = PathName.join(PathName.directory(output), "." + stem + suffix)
        unlink(FileName.cString(temporary))  // our own leftover of this PID, if any
        var linked = Glibc.link(FileName.cString(source), FileName.cString(temporary)) == 0
        if !linked {
            linked = false
            try copy(source, to: temporary)
        }
        guard rename(FileName.cString(temporary), FileName.cString(output)) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(FileName.cString(temporary))
            throw ExportError.outputUnwritable(path: FileName.display(output), reason: "cannot put the duplicate's output in place: \(reason)")
        }
        return linked
    }

    /// A byte copy, synced, for file systems without hard links.
    private static func copy(_ source: String, to target: String) throws {
        func fail(_ what: String) -> ExportError {
            .outputUnwritable(path: FileName.display(target), reason: "cannot copy the duplicate's output: \(what): \(String(cString: strerror(errno)))")
        }
        let input = open(FileName.cString(source), O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw fail("open \(FileName.display(source))") }
        defer { close(input) }
        let output = open(FileName.cString(target), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard output >= 0 else { throw fail("create") }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var ok = true
        while ok {
            let n = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { ok = n == 0; break }
            var written = 0
            while ok && written < n {
                let w = buffer.withUnsafeBytes { write(output, $0.baseAddress! + written, n - written) }
                if w < 0 && errno != EINTR { ok = false } else if w > 0 { written += w }
            }
        }
        ok = ok && fsync(output) == 0
        close(output)
        if !ok { unlink(FileName.cString(target)); throw fail("write") }
    }
}

extension BatchRunner {
    /// What a dry run knows of the run's outcome: a duplicate says so in its reason, and an asset whose output path
    /// holds a foreign file is `failed` as the run would fail it (so the dry run exits as the run would).
    func dryRunOutcomes(_ items: [BatchItem], rows: [BatchReportRow], previous: [String: ExportDatabase.Row], hashes: HashCache) -> [BatchReportRow] {
        var rows = rows
        for (i, key) in BatchDuplicates.find(items, previous: previous, options: options, hashes: hashes) {
            rows[i].reason += "; the same content as \(key): its output would be linked, not exported again"
        }
        for (i, item) in items.enumerated() where item.route != nil {
            guard let error = runFailure(of: item, previous: previous[item.key]) else { continue }
            (rows[i].status, rows[i].error, rows[i].output) = (BatchRowStatus.failed, error, nil)
        }
        return rows
    }

    /// Why the run will fail `item`'s export before any work, if it will: a file that does not open as media, a
    /// request the plan refuses for this file, damage its sampled data shows that no route delivers, a foreign file at
    /// its output path.
    private func runFailure(of item: BatchItem, previous: ExportDatabase.Row?) -> String? {
        if let failure = item.probeFailure { return failure }
        if let failure = item.damageFailure { return failure }
        if let refusal = item.refusal { return ExportError.noUsableStreams(path: item.input, reason: refusal).description }
        do { _ = try BatchOutputs.mayReplace(item.output, previous: previous, overwrite: options.overwrite) } catch { return "\(error)" }
        return nil
    }

    /// Gives each duplicate (item index → its original's key) its original's output, once the exports are done:
    /// its row `duplicate`, recorded in the database like an export, with `duplicateOf`. A duplicate of an asset
    /// that failed fails too, naming it; a foreign file at its output path is left alone (see `BatchOutputs`).
    /// Their job ids follow the exports'.
    func linkDuplicates(_ duplicates: [Int: String], items: [BatchItem], rows: inout [BatchReportRow], database: ExportDatabase,
                        previous: [String: ExportDatabase.Row], hashes: HashCache, firstID: Int) {
        guard !duplicates.isEmpty, let records = try? database.rows() else { return }
        for (n, (index, key)) in duplicates.sorted(by: { $0.key < $1.key }).enumerated() where !isCancelled {
            let item = items[index], shownKey = FileName.display(item.key)
            var dbRow = databaseRow(for: item, began: Date())
            do {
                dbRow.sources = try BatchPlanner.sources(of: item, cached: hashes.hash(_:), store: hashes.store(_:_:))
                dbRow.sourceFingerprint = BatchPlanner.fingerprint(of: dbRow.sources)
                // The original's output as made by these settings (this run's, or an earlier run's it left alone).
                let delivered = rows.first { $0.key == key }.map { BatchRowStatus.delivered($0.status) } ?? true
                guard delivered, let original = records[key], original.status == "completed", original.presetHash == dbRow.presetHash,
                      original.versionRequested == dbRow.versionRequested, let source = original.outputPath,
                      BatchOutputs.isOwn(source, record: original) else {
                    throw ExportError.outputUnwritable(path: FileName.display(item.output), reason: "the same content as \(FileName.display(key)), "
                        + "whose export failed or whose output is not there as recorded\(records[key]?.error.map { " (\($0))" } ?? ""); not exported twice")
                }
                // The original's container (a fallback's byte copy keeps the source's extension).
                let ext = PathName.pathExtension(source), planned = PathName.pathExtension(item.output)
                let target = ext == planned ? item.output : PathName.deletingExtension(item.output) + "." + ext
                _ = try BatchOutputs.mayReplace(target, previous: previous[item.key], overwrite: options.overwrite)
                try BatchPlanner.makeDirectories(PathName.directory(target))
                let linked = try BatchDuplicates.link(source, to: target)
                (dbRow.route, dbRow.fallbacks, dbRow.versionDelivered, dbRow.account) = (original.route, original.fallbacks, original.versionDelivered, original.account)
                (dbRow.outputPath, dbRow.outputSize) = (target, FileSystem.size(target))
                // A link is the file just hashed; a copy is hashed again.
                dbRow.outputSHA256 = linked ? original.outputSHA256 : try SHA256Hasher.file(target)
                (dbRow.status, dbRow.duplicateOf) = ("completed", key)
            } catch {
                dbRow.status = "failed"
                dbRow.error = (error as? BatchError)?.description ?? (error as? ExportError)?.description ?? "\(error)"
            }
            var poster: Poster?
            if dbRow.status == "completed", options.thumbnails, let output = dbRow.outputPath {
                poster = self.poster(for: item, output: output, previous: previous[item.key], record: &dbRow)
            }
            dbRow.finishedAt = Date().timeIntervalSince1970
            try? database.upsert(dbRow)
            emit(.job(id: firstID + n, key: shownKey, status: dbRow.status == "completed" ? .completed : .failed))
            rows[index] = BatchReportRow(item: item, versionRequested: options.version.rawValue,
                                         status: dbRow.status == "completed" ? BatchRowStatus.duplicate : BatchRowStatus.failed, record: dbRow)
            poster?.warning.map { rows[index].account?.warnings.append($0) }
        }
    }
}
