import Foundation
import Testing
@testable import MediaExport
@testable import MediaExportCore
@testable import MediaExportFFmpeg

/// One shared `--out` for every shard (issue 32, item 2): each shard keeps its own database and lock, named by shard;
/// shards run one after another or at once into one folder, every asset exported once; a rerun of a shard resumes from
/// its own database; another shard count or a plain run into the same folder is refused (exit 73).
@Suite struct SharedOutTests {
    typealias Shard = BatchOptions.Shard

    /// A folder of six assets (two in a subfolder), as `scripts/test-slurm.sh` uses.
    static func folder(_ dir: URL) throws -> String {
        let input = dir.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: input.appendingPathComponent("sub"), withIntermediateDirectories: true)
        let files = ["colors.mp4": "colors.mp4", "hevc.mp4": "hevc.mp4", "vfr.mp4": "vfr.mp4", "audio.m4a": "song.m4a",
                     "landscape.mov": "sub/landscape.mov", "odd-322x242.mov": "sub/odd-322x242.mov"]
        for (fixture, name) in files.sorted(by: { $0.key < $1.key }) {
            try FileManager.default.copyItem(atPath: TestSupport.fixture(fixture), toPath: input.appendingPathComponent(name).path)
        }
        return input.path
    }

    static let keys = ["colors.mp4", "hevc.mp4", "song.m4a", "sub/landscape.mov", "sub/odd-322x242.mov", "vfr.mp4"]

    static func arguments(_ input: String, out: String, shard: String?, report: String) -> [String] {
        ["batch", input, "--out", out, "--preset", "passthrough", "--jobs", "1", "-q", "--report", report]
            + (shard.map { ["--shard", $0] } ?? [])
    }

    /// The rows of a JSON report: key, status, output.
    static func rows(_ path: String) throws -> [(key: String, status: String, output: String)] {
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any]
        let rows = object?["rows"] as? [[String: Any]] ?? []
        return rows.map { ($0["key"] as? String ?? "", $0["status"] as? String ?? "", $0["output"] as? String ?? "") }
    }

    /// The files in `out` the batch exported (not its hidden state files), relative.
    static func outputs(_ out: String) -> [String] {
        let walker = FileManager.default.enumerator(atPath: out)
        var found: [String] = []
        while let path = walker?.nextObject() as? String {
            let full = (out as NSString).appendingPathComponent(path)
            if !(path as NSString).lastPathComponent.hasPrefix("."), FileSystem.isRegularFile(full) { found.append(path) }
        }
        return found.sorted()
    }

    /// Every asset exported exactly once across the shards' reports, each output a real media file, one per asset.
    static func expectEachAssetOnce(reports: [String], out: String) throws {
        var seen: [String: Int] = [:]
        for report in reports {
            for row in try rows(report) {
                seen[row.key, default: 0] += 1
                #expect(row.status == "exported", "\(row.key): \(row.status)")
                let probe = try TestSupport.run("/usr/bin/ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", row.output])
                #expect(probe.status == 0 && (Double(probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) > 0,
                        "\(row.output): \(probe.stderr)")
            }
        }
        #expect(seen.keys.sorted() == keys && seen.values.allSatisfy { $0 == 1 }, "\(seen)")
        #expect(outputs(out).count == keys.count, "\(outputs(out))")
    }

    /// SQLite's file format bytes (offsets 18 and 19): 1 for a rollback journal, 2 for WAL.
    static func journalFormat(_ path: String) throws -> UInt8 {
        try Data(contentsOf: URL(fileURLWithPath: path))[18]
    }

    @Test func stateFileNamesByShard() {
        #expect(BatchStateFiles.name(nil, ".sqlite") == ExportDatabase.fileName && BatchStateFiles.name(nil, ".lock") == BatchLock.fileName)
        #expect(BatchStateFiles.name(Shard(index: 2, count: 3), ".sqlite") == ".mediaexport.shard-2-of-3.sqlite")
        #expect(BatchStateFiles.name(Shard(index: 0, count: 12), ".lock") == ".mediaexport.shard-0-of-12.lock")
        #expect(BatchStateFiles.layout(ofName: ".mediaexport.shard-2-of-3.sqlite", suffix: ".sqlite") == .some(Shard(index: 2, count: 3)))
        #expect(BatchStateFiles.layout(ofName: ".mediaexport.sqlite", suffix: ".sqlite") == .some(nil))
        for other in [".mediaexport.shard-3-of-3.sqlite", ".mediaexport.shard-01-of-3.sqlite", ".mediaexport.sqlite-wal",
                      ".mediaexport.shard-1-of-3.sqlite-journal", ".mediaexport.shard-x-of-3.sqlite", "clip.sqlite"] {
            #expect(BatchStateFiles.layout(ofName: other, suffix: ".sqlite") == nil, "\(other)")
        }
    }

    @Test func threeShardsOneAfterAnotherShareOneOut() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let input = try Self.folder(dir), out = dir.appendingPathComponent("out").path
        let reports = (0..<3).map { dir.appendingPathComponent("report-\($0).json").path }
        for k in 0..<3 {
            let r = try TestSupport.tool(Self.arguments(input, out: out, shard: "\(k)/3", report: reports[k]))
            #expect(r.status == 0, "shard \(k): \(r.stderr)")
        }
        try Self.expectEachAssetOnce(reports: reports, out: out)
        for k in 0..<3 {
            let database = (out as NSString).appendingPathComponent(".mediaexport.shard-\(k)-of-3.sqlite")
            #expect(FileManager.default.fileExists(atPath: database), "shard \(k)'s database")
            #expect(FileManager.default.fileExists(atPath: (out as NSString).appendingPathComponent(".mediaexport.shard-\(k)-of-3.lock")))
            #expect(try Self.journalFormat(database) == 1, "a shard's database uses a rollback journal, not WAL")
            #expect(!FileManager.default.fileExists(atPath: database + "-wal"))
        }
        #expect(!FileManager.default.fileExists(atPath: (out as NSString).appendingPathComponent(".mediaexport.sqlite")))

        // A rerun of shard 1 (a retried task) resumes from its own database: its assets unchanged, their outputs untouched.
        let before = try Self.rows(reports[1])
        let sums = try before.map { try TestSupport.sha256($0.output) }
        let again = dir.appendingPathComponent("again-1.json").path
        let rerun = try TestSupport.tool(Self.arguments(input, out: out, shard: "1/3", report: again))
        #expect(rerun.status == 0, "\(rerun.stderr)")
        let after = try Self.rows(again)
        #expect(after.map(\.key) == before.map(\.key) && !after.isEmpty && after.allSatisfy { $0.status == "unchanged" }, "\(after)")
        #expect(try before.map { try TestSupport.sha256($0.output) } == sums)

        // Another count, or a plain run, into the same folder would own assets twice: refused before any file is made.
        let four = try TestSupport.tool(Self.arguments(input, out: out, shard: "0/4", report: dir.appendingPathComponent("r4.json").path))
        #expect(four.status == 73 && four.stderr.contains("a batch split into 3 shards") && four.stderr.contains("shard 0/4"), "\(four.stderr)")
        let plain = try TestSupport.tool(Self.arguments(input, out: out, shard: nil, report: dir.appendingPathComponent("r.json").path))
        #expect(plain.status == 73 && plain.stderr.contains("a run without --shard"), "\(plain.stderr)")
        let state = (try? FileManager.default.contentsOfDirectory(atPath: out))?.filter { $0.hasPrefix(".mediaexport") }.sorted() ?? []
        #expect(state == (0..<3).flatMap { [".mediaexport.shard-\($0)-of-3.lock", ".mediaexport.shard-\($0)-of-3.sqlite"] }, "\(state)")
        #expect(Self.outputs(out).count == Self.keys.count)
    }

    @Test func twoShardsAtOnceIntoOneOut() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let input = try Self.folder(dir), out = dir.appendingPathComponent("out").path
        let reports = (0..<2).map { dir.appendingPathComponent("report-\($0).json").path }
        // Two processes at once (each blocks its own thread until it exits).
        let results = LockedBox<[Int: TestSupport.RunResult]>([:])
        DispatchQueue.concurrentPerform(iterations: 2) { k in
            let r = (try? TestSupport.tool(Self.arguments(input, out: out, shard: "\(k)/2", report: reports[k])))
                ?? TestSupport.RunResult(status: -1, stdout: "", stderr: "could not run")
            results.withLock { $0[k] = r }
        }
        for (k, r) in results.withLock({ $0 }).sorted(by: { $0.key < $1.key }) { #expect(r.status == 0, "shard \(k): \(r.stderr)") }
        try Self.expectEachAssetOnce(reports: reports, out: out)
        for k in 0..<2 {
            #expect(FileManager.default.fileExists(atPath: (out as NSString).appendingPathComponent(".mediaexport.shard-\(k)-of-2.sqlite")))
        }
    }

    @Test func aShardIntoAPlainRunsFolderIsRefused() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let input = try Self.folder(dir), out = dir.appendingPathComponent("out").path
        let plain = try TestSupport.tool(Self.arguments(input, out: out, shard: nil, report: dir.appendingPathComponent("r.json").path)
                                         + ["--include", "colors.mp4"])
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(try Self.journalFormat((out as NSString).appendingPathComponent(".mediaexport.sqlite")) == 2, "a plain run keeps WAL")
        let shard = try TestSupport.tool(Self.arguments(input, out: out, shard: "0/2", report: dir.appendingPathComponent("s.json").path))
        #expect(shard.status == 73 && shard.stderr.contains("a batch without --shard") && shard.stderr.contains(".mediaexport.sqlite"),
                "\(shard.stderr)")
        #expect(!FileManager.default.fileExists(atPath: (out as NSString).appendingPathComponent(".mediaexport.shard-0-of-2.lock")))
        #expect(Self.outputs(out).count == 1, "\(Self.outputs(out))")
    }

    /// Two layouts starting at once into a new folder: each checks again once its database exists, finds the other's,
    /// and removes the database it just made before refusing (here the other's appeared between the two checks).
    @Test func theSecondCheckRemovesTheDatabaseItMade() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let other = dir.appendingPathComponent(".mediaexport.shard-1-of-3.sqlite").path
        #expect(FileManager.default.createFile(atPath: other, contents: Data()))
        let options = BatchOptions(inputs: [], outputDirectory: dir.path, preset: try TestSupport.preset("passthrough"))
        #expect(throws: BatchError.self) { _ = try BatchStateFiles.openDatabase(in: dir.path, options: options) }
        let left = (try? FileManager.default.contentsOfDirectory(atPath: dir.path))?.sorted() ?? []
        #expect(left == [".mediaexport.shard-1-of-3.sqlite"], "\(left)")
    }
}
