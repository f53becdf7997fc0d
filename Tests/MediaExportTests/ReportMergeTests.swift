import Foundation
import Testing
@testable import MediaExport
@testable import MediaExportCore
@testable import mediaexport

/// `report merge` checks the accounting of a sharded run (issue 32): every shard of one scan once, every asset once.
@Suite struct ReportMergeTests {
    static let files = ["landscape.mov", "hevc.mp4", "audio.m4a", "colors.mp4", "vfr.mp4", "lead-in.mp4", "metadata.mov", "odd-322x242.mov"]

    /// A folder of fixtures under `dir/name`, each copied under `copies` names (`a/x`, `b/x` …).
    static func folder(_ dir: URL, _ name: String, copies: [String]) throws -> String {
        let root = dir.appendingPathComponent(name)
        for copy in copies {
            for file in files {
                let url = root.appendingPathComponent("\(copy)/\(file)")
                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try FileManager.default.copyItem(atPath: TestSupport.fixture(file), toPath: url.path)
            }
        }
        return root.path
    }

    /// `batch FOLDER --shard K/3 --dry-run --report …` for each K: the reports' paths.
    static func shardReports(_ input: String, dir: URL, label: String) throws -> [String] {
        try (0..<3).map { k in
            let report = dir.appendingPathComponent("\(label)-\(k).json").path
            let r = try TestSupport.tool(["batch", input, "--out", dir.appendingPathComponent("out-\(label)").path, "--preset", "passthrough",
                                          "--shard", "\(k)/3", "--dry-run", "-q", "--report", report])
            #expect(r.status == 0, "\(r.stderr)")
            return report
        }
    }

    static func merge(_ reports: [String], out: String) throws -> TestSupport.RunResult {
        try TestSupport.tool(["report", "merge"] + reports + ["--out", out])
    }

    @Test func allThreeShardsMergeIntoOneReportOfTheFolder() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let input = try Self.folder(dir, "uploads", copies: ["a", "b"])
        let reports = try Self.shardReports(input, dir: dir, label: "up")
        let documents = try reports.map(BatchReport.readDocument)
        let scans = documents.compactMap(\.shard)
        #expect(scans.map(\.index) == [0, 1, 2] && scans.allSatisfy { $0.count == 3 })
        #expect(Set(scans.map(\.scanFingerprint)).count == 1 && scans[0].scanFingerprint.count == 64)
        #expect(scans[0].shardSizes == documents.map(\.rows.count), "every fixture is media: a shard's size is its rows")
        #expect(scans[0].shardSizes.reduce(0, +) == 2 * Self.files.count)

        let out = dir.appendingPathComponent("all.json").path
        let r = try Self.merge(reports, out: out)
        #expect(r.status == 0, "\(r.stderr)")
        let merged = try BatchReport.readDocument(out)
        let expected = ["a", "b"].flatMap { c in Self.files.map { "\(c)/\($0)" } }.sorted()
        #expect(merged.rows.map(\.key) == expected, "every asset once")
        #expect(merged.shard == nil)
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out))) as? [String: Any]
        #expect(json?["shard"] == nil, "the merged report is one report of the whole folder")
    }

    @Test func twoOfThreeShardsFailNamingTheMissingOne() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let reports = try Self.shardReports(try Self.folder(dir, "uploads", copies: ["a", "b"]), dir: dir, label: "up")
        let sizes = try #require(try BatchReport.readDocument(reports[0]).shard?.shardSizes)
        let missing = try #require(sizes.indices.max { sizes[$0] < sizes[$1] })
        #expect(sizes[missing] > 0)
        let out = dir.appendingPathComponent("all.json").path
        let r = try Self.merge(reports.indices.filter { $0 != missing }.map { reports[$0] }, out: out)
        #expect(r.status == 1)
        #expect(r.stderr.contains("missing shard \(missing) of 3 (\(sizes[missing]) asset\(sizes[missing] == 1 ? "" : "s"))"), "\(r.stderr)")
        #expect(r.stderr.split(separator: "\n").count == 1, "one line: \(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out), "nothing written")
    }

    @Test func theSameShardTwiceFails() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let reports = try Self.shardReports(try Self.folder(dir, "uploads", copies: ["a", "b"]), dir: dir, label: "up")
        let copy = dir.appendingPathComponent("again-0.json").path
        try FileManager.default.copyItem(atPath: reports[0], toPath: copy)
        let out = dir.appendingPathComponent("all.json").path
        let r = try Self.merge(reports + [copy], out: out)
        #expect(r.status == 1)
        #expect(r.stderr.contains("shard 0 of 3 given 2 times"), "\(r.stderr)")
        let rows = try BatchReport.readDocument(reports[0]).rows
        if !rows.isEmpty { #expect(r.stderr.contains("\(rows.count) asset\(rows.count == 1 ? "" : "s") in two reports"), "\(r.stderr)") }
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    /// Issue 44: the same names uploaded twice, sharded into two output folders (or with other settings): the
    /// reports do not merge, although their keys and sizes are the same.
    @Test func theSameNamesOfAnotherBatchDoNotMerge() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let input = try Self.folder(dir, "uploads", copies: ["a"])
        let one = try Self.shardReports(input, dir: dir, label: "one")
        let two = try Self.shardReports(input, dir: dir, label: "two")
        let scans = try (one + two).map { try #require(try BatchReport.readDocument($0).shard) }
        #expect(Set(scans.map(\.scanFingerprint)).count == 1, "the same scan")
        #expect(Set(scans.map(\.batchFingerprint)).count == 2, "of two batches")
        let r = try Self.merge([one[0], two[1], one[2]], out: dir.appendingPathComponent("all.json").path)
        #expect(r.status == 1 && r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
        #expect(r.stderr.contains("reports of different batches"), "\(r.stderr)")
        #expect(try Self.merge([one[0], one[1], one[2]], out: dir.appendingPathComponent("one.json").path).status == 0)
    }

    @Test func shardsOfTwoFoldersFail() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let one = try Self.shardReports(try Self.folder(dir, "one", copies: ["a", "b"]), dir: dir, label: "one")
        let two = try Self.shardReports(try Self.folder(dir, "two", copies: ["a"]), dir: dir, label: "two")
        let out = dir.appendingPathComponent("all.json").path
        let r = try Self.merge([one[0], two[1], two[2]], out: out)
        #expect(r.status == 1)
        #expect(r.stderr.contains("reports of different batches (another output folder or other settings)"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
        // A sharded report with an unsharded one is refused too; unsharded ones merge as before.
        let plain = dir.appendingPathComponent("plain.json").path
        let p = try TestSupport.tool(["batch", dir.appendingPathComponent("two").path, "--out", dir.appendingPathComponent("out-plain").path,
                                      "--preset", "passthrough", "--dry-run", "-q", "--report", plain])
        #expect(p.status == 0, "\(p.stderr)")
        #expect(try BatchReport.readDocument(plain).shard == nil)
        let mixed = try Self.merge([plain] + two, out: out)
        #expect(mixed.status == 1 && mixed.stderr.contains("has no shard fields"), "\(mixed.stderr)")
        let alone = try Self.merge([plain, plain], out: out)
        #expect(alone.status == 0, "\(alone.stderr)")
        #expect(try BatchReport.read(out).count == Self.files.count)
    }

    @Test func theScanFingerprintIsTheKeysNotTheirOrder() {
        let keys = ["b/x.mov", "a/x.mov", "é.mov", "c.mp4"]
        let one = BatchShardScan(shard: BatchOptions.Shard(index: 1, count: 3), keys: keys)
        let two = BatchShardScan(shard: BatchOptions.Shard(index: 2, count: 3), keys: keys.reversed())
        #expect(one.scanFingerprint == two.scanFingerprint && one.shardSizes == two.shardSizes)
        #expect(one.shardSizes.reduce(0, +) == keys.count)
        #expect(BatchShardScan(shard: BatchOptions.Shard(index: 1, count: 3), keys: keys.dropLast()).scanFingerprint != one.scanFingerprint)
        for (i, size) in one.shardSizes.enumerated() {
            #expect(size == keys.filter { BatchOptions.Shard(index: i, count: 3).contains($0) }.count)
        }
    }
}
