import Foundation
import MediaExportCore
import MediaExportFFmpeg

/// What a shard's report says of the scan it is a share of, so that `report merge` can tell whether the reports it
/// is given account for every asset of one batch: the shard, a fingerprint of the asset keys of ALL shards (taken
/// before the shard filter) with their sizes, one of the batch (its output folder and settings), and how many of
/// those keys each shard holds. Unsharded reports carry none.
public struct BatchShardScan: Codable, Sendable, Equatable {
    /// This report's shard, 0-based, less than `count`.
    public var index: Int
    /// How many shards the scan was split into.
    public var count: Int
    /// SHA-256 (hex) over the keys of every asset of the scan, in byte order, each followed by a NUL byte, the
    /// size of its main file in bytes (decimal) and a NUL byte.
    public var scanFingerprint: String
    /// SHA-256 (hex) over the batch's output folder (its real path), its settings hash (`BatchOptions.settingsHash`)
    /// and the version asked for, each followed by a NUL byte: two batches that scanned the same names into other
    /// folders or with other settings differ here. Nil in reports written before it.
    public var batchFingerprint: String?
    /// How many of the scan's asset keys each shard holds (`count` entries, by `BatchOptions.Shard.contains`).
    /// A key counts even when its shard then finds it is not media or filters it out (`--media`, `--min-duration`).
    public var shardSizes: [Int]

    /// The record of `shard` over the keys of the whole scan, each with its main file's size, of the batch `batch`
    /// (its output folder, settings hash and version, as `batchFingerprint` hashes them).
    public init(shard: BatchOptions.Shard, keys: [String], sizes: [Int64]? = nil, batch: [String] = []) {
        index = shard.index
        count = shard.count
        let entries = zip(keys, sizes ?? keys.map { _ in 0 }).map { FileName.bytes($0.0) + [0] + Array("\($0.1)".utf8) + [0] }
        scanFingerprint = Self.sha256(entries.sorted { $0.lexicographicallyPrecedes($1) })
        batchFingerprint = Self.sha256(batch.map { FileName.bytes($0) + [0] })
        var counts = [Int](repeating: 0, count: shard.count)
        for key in keys { counts[BatchOptions.Shard.index(of: key, count: shard.count)] += 1 }
        shardSizes = counts
    }

    /// SHA-256 (hex) of the byte strings one after another.
    private static func sha256(_ parts: [[UInt8]]) -> String {
        let hasher = SHA256Hasher()
        for part in parts { part.withUnsafeBytes { hasher.update($0) } }
        return hasher.finish()
    }
}

/// Why `report merge` refused its reports: one line naming every gap or overlap it found.
public struct ReportMergeError: Error, Equatable, CustomStringConvertible {
    /// Each problem, for people.
    public var problems: [String]
    /// The exit code of a merge refused: 1.
    public static let exitCode: Int32 = 1
    /// All problems on one line.
    public var description: String { "report merge: " + problems.joined(separator: "; ") }
}

extension BatchReport {
    /// Combines the reports of one batch's shards into one report of the whole scan, after checking the accounting:
    /// reports that carry shard fields must all be of the same scan and count, every shard `0..<count` present
    /// exactly once, no asset in two reports and every asset in its own shard. Reports with no shard fields
    /// (unsharded runs, CSV, or older reports) merge as `merge(documents:)` does; a mix of both is refused.
    /// The merged report carries no shard fields. `reports` are the paths (for the messages) and documents.
    public static func checkedMerge(_ reports: [(path: String, document: BatchReportDocument)]) throws -> BatchReportDocument {
        let sharded = reports.filter { $0.document.shard != nil }
        guard !sharded.isEmpty else { return merge(documents: reports.map(\.document)) }
        let name = { (path: String) in FileName.display(path) }
        if let plain = reports.first(where: { $0.document.shard == nil }) {
            throw ReportMergeError(problems: ["\(name(plain.path)) has no shard fields (not a shard's JSON report) but \(name(sharded[0].path)) is shard "
                                              + "\(sharded[0].document.shard!.index) of \(sharded[0].document.shard!.count); merge the JSON reports of one sharded run"])
        }
        for report in sharded { try checkBounds(report) }
        let scans = sharded.map { ($0.path, $0.document.shard!) }
        try checkSameScan(scans)
        var problems = shardProblems(scans)
        problems += assetProblems(sharded)
        guard problems.isEmpty else { throw ReportMergeError(problems: problems) }
        return merge(documents: reports.map(\.document))
    }

    /// The most assets one shard's size may say: with at most `BatchOptions.Shard.maxCount` shards, the sizes add
    /// up without overflow.
    static let maxShardSize = 1_000_000_000

    /// One report's shard fields within their bounds and its rows as many as its shard's size says (less the
    /// assets it left out as filtered or not media); else one line naming the report. Checked before any
    /// number of the report sizes an allocation or divides.
    static func checkBounds(_ report: (path: String, document: BatchReportDocument)) throws {
        let scan = report.document.shard!, name = FileName.display(report.path)
        let fail = { (what: String) in ReportMergeError(problems: ["\(name): \(what); not a report of a sharded run as mediaexport writes it"]) }
        guard (1...BatchOptions.Shard.maxCount).contains(scan.count) else {
            throw fail("its shard count \(scan.count) is not from 1 to \(BatchOptions.Shard.maxCount)")
        }
        guard (0..<scan.count).contains(scan.index) else { throw fail("its shard \(scan.index) is not from 0 to \(scan.count - 1)") }
        guard scan.shardSizes.count == scan.count else { throw fail("\(scan.shardSizes.count) shard sizes for \(scan.count) shards") }
        guard scan.shardSizes.allSatisfy({ (0...maxShardSize).contains($0) }) else {
            throw fail("a shard size is not from 0 to \(maxShardSize)")
        }
        let rows = report.document.rows.count, size = scan.shardSizes[scan.index]
        let leftOut = report.document.ignored.filter { $0.kind == .filtered || $0.kind == .notMedia }.count
        guard rows <= size, size <= rows + leftOut else {
            throw fail("\(rows) row\(rows == 1 ? "" : "s") for the \(size) asset\(size == 1 ? "" : "s") of shard \(scan.index) of \(scan.count)")
        }
    }

    /// Every report of the same scan and count; else which differ.
    static func checkSameScan(_ scans: [(String, BatchShardScan)]) throws {
        let first = scans[0]
        let describe = { (s: (String, BatchShardScan)) in
            "\(FileName.display(s.0)) (shard \(s.1.index) of \(s.1.count), scan \(s.1.scanFingerprint.prefix(12)))"
        }
        if let other = scans.first(where: { $0.1.count != first.1.count }) {
            throw ReportMergeError(problems: ["reports of different shard counts: \(describe(first)) and \(describe(other))"])
        }
        if let other = scans.first(where: { $0.1.batchFingerprint != first.1.batchFingerprint }) {
            throw ReportMergeError(problems: ["reports of different batches (another output folder or other settings): \(describe(first)) and \(describe(other))"])
        }
        if let other = scans.first(where: { $0.1.scanFingerprint != first.1.scanFingerprint || $0.1.shardSizes != first.1.shardSizes }) {
            throw ReportMergeError(problems: ["reports of different scans: \(describe(first)) and \(describe(other))"])
        }
    }

    /// Shards given twice, and shards missing with how many assets they hold.
    static func shardProblems(_ scans: [(String, BatchShardScan)]) -> [String] {
        let count = scans[0].1.count, sizes = scans[0].1.shardSizes
        var problems: [String] = []
        let byIndex = Dictionary(grouping: scans, by: { $0.1.index })
        for index in byIndex.keys.sorted() where byIndex[index]!.count > 1 {
            problems.append("shard \(index) of \(count) given \(byIndex[index]!.count) times (\(byIndex[index]!.map { FileName.display($0.0) }.joined(separator: ", ")))")
        }
        let missing = (0..<count).filter { byIndex[$0] == nil }
        if !missing.isEmpty {
            let assets = missing.reduce(0) { $0 + (sizes.indices.contains($1) ? sizes[$1] : 0) }
            let named = missing.prefix(3).map(String.init).joined(separator: ", ") + (missing.count > 3 ? " and \(missing.count - 3) more" : "")
            problems.append("missing shard\(missing.count == 1 ? "" : "s") \(named) of \(count) (\(assets) asset\(assets == 1 ? "" : "s"))")
        }
        return problems
    }

    /// Assets in two reports, and assets in a report of a shard they do not belong to (at most 5 named of each).
    static func assetProblems(_ reports: [(path: String, document: BatchReportDocument)]) -> [String] {
        var seen: [String: String] = [:], twice: [String] = [], misplaced: [String] = []
        for (path, document) in reports {
            let shard = BatchOptions.Shard(index: document.shard!.index, count: document.shard!.count)
            for row in document.rows {
                if let first = seen[row.key] {
                    twice.append("\(FileName.display(row.key)) (\(FileName.display(first)), \(FileName.display(path)))")
                } else { seen[row.key] = path }
                if !shard.contains(row.key) { misplaced.append("\(FileName.display(row.key)) (\(FileName.display(path)), shard \(shard))") }
            }
        }
        func listed(_ what: String, _ items: [String]) -> [String] {
            items.isEmpty ? [] : ["\(items.count) \(what): " + items.prefix(5).joined(separator: ", ") + (items.count > 5 ? ", …" : "")]
        }
        return listed("asset\(twice.count == 1 ? "" : "s") in two reports", twice)
            + listed("asset\(misplaced.count == 1 ? "" : "s") not of the shard \(misplaced.count == 1 ? "its" : "their") report is of", misplaced)
    }
}
