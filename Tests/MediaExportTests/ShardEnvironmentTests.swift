import Foundation
import Testing
@testable import MediaExport
@testable import MediaExportCore

/// `--shard auto` (issue 32, item 1): the shard from the engine's variables, as a pure function of a dictionary.
@Suite struct ShardEnvironmentTests {
    typealias Shard = BatchOptions.Shard

    static func slurm(_ id: Int, min: Int = 1, step: Int? = nil, count: Int = 3) -> [String: String] {
        var env = ["SLURM_ARRAY_TASK_ID": "\(id)", "SLURM_ARRAY_TASK_MIN": "\(min)", "SLURM_ARRAY_TASK_COUNT": "\(count)",
                   "SLURM_ARRAY_JOB_ID": "41"]
        if let step { env["SLURM_ARRAY_TASK_STEP"] = "\(step)" }
        return env
    }

    static func message(_ env: [String: String], count: Int? = nil) -> String? {
        do { _ = try Shard.fromEnvironment(env, count: count); return nil } catch { return (error as? Shard.EnvironmentError)?.description }
    }

    @Test func theThreeEnginesGiveTheSameShards() throws {
        for rank in 0..<3 {
            let expected = Shard(index: rank, count: 3)
            #expect(try Shard.fromEnvironment(["JOB_COMPLETION_INDEX": "\(rank)"], count: 3) == expected)
            #expect(try Shard.fromEnvironment(Self.slurm(rank + 1), count: nil) == expected, "IDs 1-3, count from Slurm")
            #expect(try Shard.fromEnvironment(Self.slurm(rank + 1, step: 1), count: 3) == expected)
            #expect(try Shard.fromEnvironment(["AWS_BATCH_JOB_ARRAY_INDEX": "\(rank)"], count: 3) == expected)
        }
    }

    @Test func slurmRankCountsFromTheMinimumByTheStep() throws {
        // --array=1-7:2 gives the IDs 1, 3, 5, 7 and a count of 4.
        #expect(try Shard.fromEnvironment(Self.slurm(5, min: 1, step: 2, count: 4), count: nil) == Shard(index: 2, count: 4))
        #expect(try Shard.fromEnvironment(Self.slurm(0, min: 0, count: 2), count: nil) == Shard(index: 0, count: 2))
        #expect(Self.message(Self.slurm(4, min: 1, step: 2, count: 4))?.contains("not on the array's range") == true)
        #expect(Self.message(["SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_COUNT": "3"])?.contains("SLURM_ARRAY_TASK_MIN is not") == true)
    }

    @Test func missingIndexOrCountNamesTheVariables() {
        let none = Self.message(["HOME": "/root", "JOB_COMPLETION_INDEX": ""], count: 3)
        #expect(none == "--shard auto: no shard index in the environment (looked for JOB_COMPLETION_INDEX, SLURM_ARRAY_TASK_ID, "
                + "AWS_BATCH_JOB_ARRAY_INDEX); give --shard K/N instead")
        let noCount = Self.message(["JOB_COMPLETION_INDEX": "1"])
        #expect(noCount == "--shard auto: no shard count (give --shard-count N; looked for SLURM_ARRAY_TASK_COUNT)")
        #expect(Self.message(["AWS_BATCH_JOB_ARRAY_INDEX": "1"], count: 0)?.contains("no shard count") == true)
    }

    @Test func inconsistentVariablesAreErrors() {
        #expect(Self.message(["JOB_COMPLETION_INDEX": "3"], count: 3) == "--shard auto: JOB_COMPLETION_INDEX=3 gives shard 3, not less than the count 3")
        #expect(Self.message(["JOB_COMPLETION_INDEX": "x"], count: 3) == "--shard auto: JOB_COMPLETION_INDEX=x is not a non-negative integer")
        #expect(Self.message(["JOB_COMPLETION_INDEX": "-1"], count: 3)?.contains("not a non-negative integer") == true)
        #expect(Self.message(Self.slurm(2), count: 4) == "--shard auto: --shard-count 4 disagrees with SLURM_ARRAY_TASK_COUNT=3")
        #expect(Self.message(Self.slurm(2).merging(["AWS_BATCH_JOB_ARRAY_INDEX": "0"]) { $1 })?.contains("says shard 1 but") == true)
        // Two engines that agree are fine.
        #expect(Self.message(Self.slurm(2).merging(["JOB_COMPLETION_INDEX": "1"]) { $1 }) == nil)
    }

    /// The environment of a task with no engine: the index variables set empty (read as unset), whatever the test runs under.
    static let noEngine = Dictionary(uniqueKeysWithValues: (Shard.indexVariables + ["SLURM_ARRAY_TASK_COUNT", "SLURM_ARRAY_TASK_MIN",
                                                                                   "SLURM_ARRAY_TASK_STEP"]).map { ($0, "") })

    @Test func cliUsageErrorsExit64OnOneLine() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let base = ["batch", TestSupport.fixture("colors.mp4"), "--out", dir.appendingPathComponent("out").path, "--dry-run"]
        let missing = try TestSupport.run(TestSupport.binary, base + ["--shard", "auto", "--shard-count", "3"], environment: Self.noEngine)
        #expect(missing.status == 64)
        #expect(missing.stderr.contains("JOB_COMPLETION_INDEX, SLURM_ARRAY_TASK_ID, AWS_BATCH_JOB_ARRAY_INDEX"), "\(missing.stderr)")
        #expect(missing.stderr.split(separator: "\n").count == 1, "\(missing.stderr)")
        let stray = try TestSupport.run(TestSupport.binary, base + ["--shard", "0/3", "--shard-count", "3"], environment: Self.noEngine)
        #expect(stray.status == 64 && stray.stderr.contains("--shard-count goes with --shard auto"), "\(stray.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("out").path), "nothing written on a usage error")
    }

    /// Dry-run keys of each shard of `folder` with `--shard auto`, from the rows of a JSON report.
    static func shardKeys(_ folder: String, _ dir: URL, env: (Int) -> [String: String], count: Int? = nil) throws -> [[String]] {
        try (0..<3).map { rank in
            let report = dir.appendingPathComponent("r\(rank)-\(UUID().uuidString.prefix(6)).json").path
            let args = ["batch", folder, "--out", dir.appendingPathComponent("out").path, "--preset", "low", "--dry-run", "-q",
                        "--report", report, "--shard", "auto"] + (count.map { ["--shard-count", "\($0)"] } ?? [])
            let r = try TestSupport.run(TestSupport.binary, args, environment: Self.noEngine.merging(env(rank)) { $1 })
            #expect(r.status == 0, "\(r.stderr)")
            let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report))) as? [String: Any]
            return ((json?["rows"] as? [[String: Any]]) ?? []).compactMap { $0["key"] as? String }.sorted()
        }
    }

    @Test func sameAssetSameShardUnderEveryEngineAndAfterAddingFiles() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let folder = dir.appendingPathComponent("in").path
        let names = ["colors.mp4", "hevc.mp4", "vfr.mp4", "odd-322x242.mov", "landscape.mov"]
        try FileManager.default.createDirectory(atPath: folder + "/sub", withIntermediateDirectories: true)
        for (i, name) in names.enumerated() {
            try FileManager.default.copyItem(atPath: TestSupport.fixture(name), toPath: folder + (i % 2 == 0 ? "/" : "/sub/") + name)
        }
        let k8s = try Self.shardKeys(folder, dir, env: { ["JOB_COMPLETION_INDEX": "\($0)"] }, count: 3)
        #expect(k8s.flatMap { $0 }.sorted() == ["colors.mp4", "landscape.mov", "sub/hevc.mp4", "sub/odd-322x242.mov", "vfr.mp4"])
        #expect(try Self.shardKeys(folder, dir, env: { Self.slurm($0 + 1) }) == k8s)
        #expect(try Self.shardKeys(folder, dir, env: { ["AWS_BATCH_JOB_ARRAY_INDEX": "\($0)"] }, count: 3) == k8s)
        // Files added later (before, between and after the others by name) never move an asset to another shard.
        for name in ["a-first.mp4", "m-middle.mov", "sub/z-last.mp4", "sub/a.mp4"] {
            try FileManager.default.copyItem(atPath: TestSupport.fixture("colors.mp4"), toPath: folder + "/" + name)
        }
        let after = try Self.shardKeys(folder, dir, env: { ["JOB_COMPLETION_INDEX": "\($0)"] }, count: 3)
        for rank in 0..<3 { #expect(Set(k8s[rank]).isSubset(of: Set(after[rank])), "shard \(rank): \(k8s[rank]) → \(after[rank])") }
        #expect(after.flatMap { $0 }.count == 9)
    }

    /// Real runs of the three shards of `folder` with `--shard auto` under one engine's variables, all into one shared
    /// `out`: the assets each shard exported (from its `completed` records), by rank.
    static func exportedByShard(_ folder: String, out: URL, env: (Int) -> [String: String], count: Int? = nil) throws -> [[String]] {
        try (0..<3).map { rank in
            let args = ["batch", folder, "--out", out.path, "--preset", "passthrough", "--json", "-q", "--shard", "auto"]
                + (count.map { ["--shard-count", "\($0)"] } ?? [])
            let r = try TestSupport.run(TestSupport.binary, args, environment: Self.noEngine.merging(env(rank)) { $1 })
            #expect(r.status == 0, "\(r.stderr)")
            return r.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
                .filter { $0["kind"] as? String == "completed" }.compactMap { $0["asset"] as? String }.sorted()
        }
    }

    @Test("Three shards under each engine's variables, each set into one shared --out: every asset exported once, in the same shard under all three")
    func threeEnginesIntoOneSharedOut() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let folder = dir.appendingPathComponent("in").path
        try FileManager.default.createDirectory(atPath: folder + "/sub", withIntermediateDirectories: true)
        for (i, name) in ["colors.mp4", "hevc.mp4", "vfr.mp4", "odd-322x242.mov", "landscape.mov", "audio.m4a"].enumerated() {
            try FileManager.default.copyItem(atPath: TestSupport.fixture(name), toPath: folder + (i % 2 == 0 ? "/" : "/sub/") + name)
        }
        let engines: [(String, (Int) -> [String: String], Int?)] = [
            ("kubernetes", { ["JOB_COMPLETION_INDEX": "\($0)"] }, 3),
            ("slurm", { Self.slurm($0 + 1) }, nil),
            ("aws", { ["AWS_BATCH_JOB_ARRAY_INDEX": "\($0)"] }, 3),
        ]
        var shards: [[String]] = []
        for (name, env, count) in engines {
            let out = dir.appendingPathComponent("out-\(name)")
            let exported = try Self.exportedByShard(folder, out: out, env: env, count: count)
            let all = exported.flatMap { $0 }
            #expect(all.count == 6 && Set(all).count == 6, "\(name): each asset exported exactly once: \(exported)")
            for key in all {
                let stem = PathName.deletingExtension(key)
                let made = (try? FileManager.default.contentsOfDirectory(atPath: out.appendingPathComponent(PathName.directory(key)).path)) ?? []
                #expect(made.contains { PathName.deletingExtension($0) == PathName.lastComponent(stem) }, "\(name): no output for \(key)")
            }
            if shards.isEmpty { shards = exported } else { #expect(exported == shards, "\(name) puts assets in other shards") }
        }
    }
}
