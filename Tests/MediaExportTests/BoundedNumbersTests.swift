import Foundation
import Testing
@testable import MediaExport
@testable import MediaExportCore
@testable import mediaexport

/// Numbers from the command line and from reports are bounded before they size or divide anything (issue 44):
/// out of range, `nan` or `inf` is a usage error (exit 64) or a refused merge (exit 1), in well under a second.
@Suite struct BoundedNumbersTests {
    /// Runs the tool with at most 10 s of CPU time (`ulimit -t`; a debug build takes 1.5 s to start, a number that
    /// sized something took minutes and gigabytes; a loaded machine's wall clock says nothing) and checks it ends
    /// with `status`, its stderr one line holding `expected`.
    static func expectQuick(_ args: [String], status: Int32, _ expected: String) throws {
        let r = try TestSupport.run("/bin/sh", ["-c", "ulimit -t 10; exec \"$0\" \"$@\"", TestSupport.binary] + args)
        #expect(r.status == status, "\(args): \(r.stderr)")
        #expect(r.stderr.contains(expected), "\(args): \(r.stderr)")
        #expect(r.stderr.split(separator: "\n").count == 1 && r.stderr.utf8.count < 400, "\(args): one short line: \(r.stderr.prefix(400))")
    }

    @Test func shardSyntaxIsStrict() {
        for text in ["0//2", "+1/2", " 1/2", "1/2 ", "1/2/3", "-0/2", "1/-2", "0/0", "2/2", "/2", "1/", "0x1/2", "1/4294967296",
                     "0/1000001", "0/9223372036854775807", "٣/4"] {
            #expect(BatchOptions.Shard(text) == nil, "\(text)")
        }
        #expect(BatchOptions.Shard("0/1") == BatchOptions.Shard(index: 0, count: 1))
        #expect(BatchOptions.Shard("999999/1000000") == BatchOptions.Shard(index: 999_999, count: 1_000_000))
        #expect(BatchOptions.Shard("03/4") == BatchOptions.Shard(index: 3, count: 4))
        #expect(throws: BatchOptions.Shard.EnvironmentError.self) {
            try BatchOptions.Shard.fromEnvironment(["JOB_COMPLETION_INDEX": "0"], count: 1_000_001)
        }
    }

    @Test func shardsBeyondTheCapAreAUsageError() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let input = TestSupport.fixture("landscape.mov"), out = dir.appendingPathComponent("out").path
        for shard in ["1/4294967296", "0/9223372036854775807", "0/100000000", "0//2", "+1/2", " 1/2", "1/2/3"] {
            try Self.expectQuick(["batch", input, "--out", out, "--dry-run", "--shard", shard], status: ExitStatus.usage, "--shard must be K/N")
        }
        try Self.expectQuick(["batch", input, "--out", out, "--dry-run", "--shard", "auto", "--shard-count", "100000000"],
                             status: ExitStatus.usage, "--shard-count must be from 1 to 1000000")
        #expect(!FileManager.default.fileExists(atPath: out), "nothing made")
    }

    @Test func numericOptionsHaveRanges() throws {
        let fixture = TestSupport.fixture("landscape.mov"), never = "/tmp/never-bounded.mp4"
        let cases: [([String], String)] = [
            (["--threads", "9223372036854775807", fixture, never], "--threads must be from 1 to 1024"),
            (["--threads", "0", fixture, never], "--threads must be from 1 to 1024"),
            (["--stall-timeout", "nan", fixture, never], "--stall-timeout must be from 0"),
            (["--stall-timeout", "inf", fixture, never], "--stall-timeout must be from 0"),
            (["--stall-timeout=-1", fixture, never], "--stall-timeout must be from 0"),
            (["--max-decode-errors=-1", fixture, never], "--max-decode-errors must be from 0"),
            (["batch", fixture, "--out", "/tmp/never-bounded", "--jobs", "100000"], "--jobs must be from 1 to 1024"),
            (["batch", fixture, "--out", "/tmp/never-bounded", "--min-duration", "nan"], "--min-duration must be from 0"),
            (["batch", fixture, "--out", "/tmp/never-bounded", "--max-duration=-inf"], "--max-duration must be from 0"),
            (["batch", fixture, "--out", "/tmp/never-bounded", "--threads", "2000"], "--threads must be from 1 to 1024"),
            (["thumbnail", fixture, "/tmp/never-bounded.jpg", "--at", "nan"], "--at must be from 0"),
            (["regress", fixture, "--baseline", "/tmp/never-bounded.json", "--ssim-drop", "nan"], "--ssim-drop must be from 0 to 1"),
            (["regress", fixture, "--baseline", "/tmp/never-bounded.json", "--psnr-drop", "inf"], "--psnr-drop must be from 0"),
        ]
        for (args, expected) in cases { try Self.expectQuick(args, status: ExitStatus.usage, expected) }
    }

    /// Six assets in two shards, as a sharded run's reports say them: the path of each shard's report.
    static func shardReports(in dir: URL, edit: (Int, inout BatchReportDocument) -> Void = { _, _ in }) throws -> [String] {
        let keys = ["a.mov", "b.mov", "c.mov", "d.mov", "e.mov", "f.mov"]
        return try (0..<2).map { k in
            let shard = BatchOptions.Shard(index: k, count: 2)
            let rows = keys.filter(shard.contains).map { key in
                BatchReportRow(key: key, input: "/in/" + key, action: "transcode", reason: "", status: "exported", route: "transcode", fallbacks: 0,
                               versionRequested: "current", versionDelivered: "current", output: nil, bytesIn: 1, bytesOut: 1,
                               estimatedBytes: nil, outputSHA256: nil, error: nil, wallTime: nil)
            }
            var document = BatchReportDocument(rows: rows, shard: BatchShardScan(shard: shard, keys: keys))
            edit(k, &document)
            let path = dir.appendingPathComponent("shard-\(k).json").path
            try JSONEncoder().encode(document).write(to: URL(fileURLWithPath: path))
            return path
        }
    }

    @Test func mergeRefusesShardFieldsOutOfBounds() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let out = dir.appendingPathComponent("all.json").path
        let whole = try Self.shardReports(in: dir)
        #expect(try BatchReport.readDocument(whole[0]).shard?.shardSizes.reduce(0, +) == 6)
        let ok = try TestSupport.tool(["report", "merge"] + whole + ["--out", out])
        #expect(ok.status == 0, "\(ok.stderr)")
        #expect(try BatchReport.read(out).count == 6)
        try FileManager.default.removeItem(atPath: out)

        let edits: [(String, (inout BatchShardScan) -> Void)] = [
            ("shard count 0 is not from 1", { $0.count = 0 }),
            ("shard count -1 is not from 1", { $0.count = -1 }),
            ("shard count 100000000 is not from 1 to 1000000", { $0.count = 100_000_000 }),
            ("shard count 9223372036854775807", { $0.count = .max }),
            ("shard 5 is not from 0 to 1", { $0.index = 5 }),
            ("shard -1 is not from 0 to 1", { $0.index = -1 }),
            ("3 shard sizes for 2 shards", { $0.shardSizes.append(0) }),
            ("a shard size is not from 0", { $0.shardSizes[1] = .max }),
            ("a shard size is not from 0", { $0.shardSizes[1] = -3 }),
        ]
        for (expected, edit) in edits {
            let reports = try Self.shardReports(in: dir) { k, document in if k == 1 { edit(&document.shard!) } }
            try Self.expectQuick(["report", "merge"] + reports + ["--out", out], status: ReportMergeError.exitCode, "shard-1.json: " + (expected.hasPrefix("shard") ? "its " : "") + expected)
            #expect(!FileManager.default.fileExists(atPath: out), "nothing written")
        }
    }

    /// A shard's report with its rows taken out does not account for its shard's assets: refused.
    @Test func mergeRefusesAShardWithoutItsRows() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let out = dir.appendingPathComponent("all.json").path
        let reports = try Self.shardReports(in: dir) { k, document in if k == 0 { document.rows.removeAll() } }
        let size = try #require(try BatchReport.readDocument(reports[0]).shard?.shardSizes[0])
        #expect(size > 0)
        try Self.expectQuick(["report", "merge"] + reports + ["--out", out], status: ReportMergeError.exitCode,
                             "shard-0.json: 0 rows for the \(size) asset\(size == 1 ? "" : "s") of shard 0 of 2")
        #expect(!FileManager.default.fileExists(atPath: out))
        // Assets the shard filtered out or found not media are in its ignored files, not its rows: they account too.
        let filtered = try Self.shardReports(in: dir) { k, document in
            if k == 0 {
                document.ignored = document.rows.map { IgnoredFile(path: $0.input, kind: .filtered, reason: "shorter than --min-duration 5") }
                document.rows.removeAll()
            }
        }
        let r = try TestSupport.tool(["report", "merge"] + filtered + ["--out", out])
        #expect(r.status == 0, "\(r.stderr)")
    }

    /// Of many shards missing, a few are named and the rest counted.
    @Test func missingShardsAreNamedAFew() {
        let scans = (0..<1).map { _ in ("r.json", BatchShardScan(shard: BatchOptions.Shard(index: 0, count: 16), keys: [])) }
        let problems = BatchReport.shardProblems(scans)
        #expect(problems == ["missing shards 1, 2, 3 and 12 more of 16 (0 assets)"], "\(problems)")
    }
}

extension BoundedNumbersTests {
    /// A shard made in code, not parsed, is checked too before the plan sizes anything by its count.
    @Test func theLibraryRefusesAShardBeyondTheCap() async throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        var options = BatchOptions(inputs: [TestSupport.fixture("landscape.mov")], outputDirectory: dir.appendingPathComponent("out").path,
                                   preset: try TestSupport.preset("low"), dryRun: true)
        for shard in [BatchOptions.Shard(index: 1, count: 1 << 32), BatchOptions.Shard(index: 0, count: 0), BatchOptions.Shard(index: 2, count: 2)] {
            options.shard = shard
            var hashes: [String: String] = [:]
            #expect(throws: ExportError.self) { try BatchPlanner.makePlan(options, hashes: &hashes) }
            await #expect(throws: ExportError.self) { try await BatchRunner(options: options).run() }
        }
    }
}
