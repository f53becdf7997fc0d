import Foundation
import MediaExportCore
import MediaExportFFmpeg
#if canImport(Glibc)
import Glibc
#endif

/// What a batch writes for an upload whose content, version and settings are another's (`--duplicates`).
public enum DuplicateOutput: String, Codable, Sendable, CaseIterable {
    /// A file of its own with the original's bytes: a reflink clone where the file system has them (no data
    /// copied), else a byte copy. Editing one output leaves the others as they are. The default.
    case copy
    /// A hard link to the original's output: no space used, but one file under several names (editing one edits all).
    case link
    /// Nothing: the row says `duplicate` and names the original (`duplicateOf`); no output is written for it.
    case skip
}

/// Byte-identical uploads are exported once: assets of a batch whose resources have the same SHA-256s, with the
/// same action and output container (the version and settings are the batch's), share one export. The others get
/// its output as `BatchOptions.duplicates` says (a copy, a hard link, or nothing), and their rows say `duplicate`
/// and `duplicateOf`. An asset exported by an earlier run with the same settings (the database), whose output is
/// still the file it wrote, is such an original too. When the original's output cannot be delivered (a file that
/// is not the batch's at its path), another member of the group is exported in its place (`promote`).
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
            guard let out = row.outputPath, BatchOutputs.isOwn(out, record: row, hashes: hashes),
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

    /// The members to export in place of originals whose own output path refused them (`refused`, item indices):
    /// for each, the first other member of its group (by `precedes`) leaves `duplicates` and the rest become its
    /// duplicates. The promoted indices, in order.
    static func promote(_ duplicates: inout [Int: String], refused: Set<Int>, items: [BatchItem]) -> [Int] {
        var promoted: [Int] = []
        for original in refused.sorted() {
            let key = items[original].key
            let members = duplicates.filter { $0.value == key }.map(\.key).sorted { precedes(items[$0].key, items[$1].key) }
            guard let first = members.first else { continue }
            duplicates[first] = nil
            for other in members.dropFirst() { duplicates[other] = items[first].key }
            promoted.append(first)
        }
        return promoted
    }
}

extension BatchRunner {
    /// What a dry run knows of the run's outcome: a duplicate says so in its reason, and an asset whose output path
    /// holds a foreign file is `failed` as the run would fail it (so the dry run exits as the run would).
    func dryRunOutcomes(_ items: [BatchItem], rows: [BatchReportRow], previous: [String: ExportDatabase.Row], hashes: HashCache) -> [BatchReportRow] {
        var rows = rows
        for (i, key) in BatchDuplicates.find(items, previous: previous, options: options, hashes: hashes) {
            let how = ["copy": "copied", "link": "linked", "skip": "named, not written"][options.duplicates.rawValue] ?? ""
            rows[i].reason += "; the same content as \(key): its output would be \(how), not exported again"
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
        do { _ = try BatchOutputs.replaceable(item.output, previous: previous, overwrite: options.overwrite) } catch { return "\(error)" }
        return nil
    }

    /// Gives each duplicate (item index → its original's key) its original's output, once the exports are done
    /// (`BatchOptions.duplicates`: a copy, a hard link, or nothing): its row `duplicate`, recorded in the database
    /// like an export, with `duplicateOf`. A duplicate of an asset that failed fails too, naming it; a foreign file
    /// at its output path is left alone (see `BatchOutputs`). Their job ids follow the exports'.
    func deliverDuplicates(_ duplicates: [Int: String], items: [BatchItem], rows: inout [BatchReportRow], database: ExportDatabase,
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
                      BatchOutputs.isOwn(source, record: original, hashes: hashes) else {
                    throw ExportError.outputUnwritable(path: FileName.display(item.output), reason: "the same content as \(FileName.display(key)), "
                        + "whose export failed or whose output is not there as recorded\(records[key]?.error.map { " (\($0))" } ?? ""); not exported twice")
                }
                (dbRow.route, dbRow.fallbacks, dbRow.versionDelivered, dbRow.account) = (original.route, original.fallbacks, original.versionDelivered, original.account)
                (dbRow.status, dbRow.duplicateOf, dbRow.outputPath) = ("completed", key, nil)
                if options.duplicates != .skip { try writeDuplicate(of: original, source: source, item: item, previous: previous[item.key], record: &dbRow) }
            } catch {
                (dbRow.status, dbRow.error, dbRow.outputPath) = ("failed", (error as? ExportError)?.description ?? "\(error)", item.output)
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

    /// The duplicate's own output, a copy of (or link to) the original's `source`, at its path with the original's
    /// container (a fallback's byte copy keeps the source's extension, placed as `--fallback-container` says), in its
    /// record. What is there is replaced only when it is this asset's own earlier output (or with `--overwrite`).
    private func writeDuplicate(of original: ExportDatabase.Row, source: String, item: BatchItem, previous: ExportDatabase.Row?,
                                record: inout ExportDatabase.Row) throws {
        let ext = PathName.pathExtension(source)
        guard let target = options.fallbackContainer.placement.path(output: item.output, copyExtension: ext) else {
            throw ExportError.noUsableStreams(path: item.input, reason: "its original was delivered as a .\(ext) byte copy, "
                + "not the .\(PathName.pathExtension(item.output)) asked (--fallback-container fail)")
        }
        let owned = try BatchOutputs.replaceable(target, previous: previous, overwrite: options.overwrite)
        try BatchPlanner.makeDirectories(PathName.directory(target))
        let made = try FileDuplicate.make(source, at: target, kind: options.duplicates == .link ? .hardLink : .ownFile,
                                          rule: options.overwrite ? .any : .owned(owned))
        (record.outputPath, record.outputSize) = (target, FileSystem.size(target))
        // A link is the file just hashed; a clone or copy is hashed again.
        record.outputSHA256 = made == .linked ? original.outputSHA256 : try SHA256Hasher.file(target)
    }
}
