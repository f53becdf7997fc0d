import Foundation
import Testing
@testable import MediaExport
@testable import MediaExportCore
@testable import MediaExportFFmpeg

/// Issue 31: what a batch leaves in its output folder, and what its report says of it.
@Suite struct BatchStateTests {
    /// uploads/landscape.mov (fits `low` once remuxed) and out/, as `BatchTests` makes them.
    static func folder() throws -> URL {
        let dir = TestSupport.tempDir()
        let uploads = dir.appendingPathComponent("uploads")
        try FileManager.default.createDirectory(at: uploads, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: TestSupport.fixture("landscape.mov"), toPath: uploads.appendingPathComponent("landscape.mov").path)
        return dir
    }

    static func options(_ dir: URL, _ configure: (inout BatchOptions) -> Void = { _ in }) throws -> BatchOptions {
        var o = BatchOptions(inputs: [dir.appendingPathComponent("uploads").path], outputDirectory: dir.appendingPathComponent("out").path,
                             preset: try TestSupport.preset("low"), jobs: 1)
        configure(&o)
        return o
    }

    static let foreign = Data("not ours".utf8)

    @Test func forceLeavesAForeignFileAndOverwriteReplacesIt() async throws {
        let dir = try Self.folder()
        defer { TestSupport.cleanup(dir) }
        let output = dir.appendingPathComponent("out/landscape.mp4").path
        let (first, _) = try await BatchTests.run(try Self.options(dir))
        #expect(first.counts.failed == 0 && FileSystem.size(output) ?? 0 > 1000)
        // Someone puts a file of their own where the batch wrote: --force redoes only what the batch wrote.
        try Self.foreign.write(to: URL(fileURLWithPath: output))
        let (forced, _) = try await BatchTests.run(try Self.options(dir) { $0.force = true })
        let row = try #require(forced.rows.first)
        #expect(row.status == "failed" && forced.outcome == .failed, "\(row)")
        #expect(row.error?.contains("landscape.mp4: exists and is not the file this batch wrote there") == true, "\(row.error ?? "")")
        #expect(row.error?.contains("--overwrite") == true && row.output == nil)
        #expect(try Data(contentsOf: URL(fileURLWithPath: output)) == Self.foreign, "the foreign file is untouched")
        // --overwrite replaces it.
        let (overwritten, _) = try await BatchTests.run(try Self.options(dir) { $0.force = true; $0.overwrite = true })
        let replaced = try #require(overwritten.rows.first)
        #expect(replaced.status == "exported" && overwritten.outcome == .completed, "\(replaced)")
        #expect(try TestSupport.sha256(output) == replaced.outputSHA256)
        #expect(try Data(contentsOf: URL(fileURLWithPath: output)) != Self.foreign)
    }

    @Test func aForeignFileBeforeTheFirstRunIsLeftAlone() async throws {
        let dir = try Self.folder()
        defer { TestSupport.cleanup(dir) }
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("out"), withIntermediateDirectories: true)
        let output = dir.appendingPathComponent("out/landscape.mp4").path
        try Self.foreign.write(to: URL(fileURLWithPath: output))
        let (result, _) = try await BatchTests.run(try Self.options(dir) { $0.force = true })
        #expect(result.rows.first?.status == "failed" && result.outcome == .failed)
        #expect(try Data(contentsOf: URL(fileURLWithPath: output)) == Self.foreign)
        // A dry run exits as the run would.
        let dry = try TestSupport.tool(["batch", dir.appendingPathComponent("uploads").path, "--out", dir.appendingPathComponent("out").path,
                                        "--preset", "low", "--dry-run"])
        #expect(dry.status == 1 && dry.stderr.contains("landscape.mp4: exists and is not the file this batch wrote there"), "\(dry.stderr)")
        // The CLI's message names a flag that `batch` has.
        let cli = try TestSupport.tool(["batch", dir.appendingPathComponent("uploads").path, "--out", dir.appendingPathComponent("out").path,
                                        "--preset", "low", "-q"])
        #expect(cli.status == 1 && cli.stderr.contains("use --overwrite to replace it"), "\(cli.stderr)")
        let again = try TestSupport.tool(["batch", dir.appendingPathComponent("uploads").path, "--out", dir.appendingPathComponent("out").path,
                                          "--preset", "low", "-q", "--overwrite"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: output)) != Self.foreign)
    }

    /// The CLI on the folder, its report in `dir/report.json`.
    static func cli(_ dir: URL, _ extra: [String] = []) throws -> TestSupport.RunResult {
        try TestSupport.tool(["batch", dir.appendingPathComponent("uploads").path, "--out", dir.appendingPathComponent("out").path,
                              "--preset", "low", "--jobs", "1", "-q", "--report", dir.appendingPathComponent("report.json").path] + extra)
    }

    @Test func aRerunsReportIsTheStateOfTheOutputFolder() async throws {
        let dir = try Self.folder()
        defer { TestSupport.cleanup(dir) }
        // A file cut short, which `--damaged fail` fails (a file that is not media at all is `rejected`: BatchRejectTests).
        try FileManager.default.copyItem(atPath: RobustnessTests.bad.appendingPathComponent("cut-at-half.mp4").path,
                                         toPath: dir.appendingPathComponent("uploads/broken.mov").path)
        let report = dir.appendingPathComponent("report.json").path
        let cli = { (extra: [String]) in try Self.cli(dir, ["--damaged", "fail"] + extra) }
        let first = try cli([])
        #expect(first.status == 1 && first.stdout.contains("1 failed (broken.mov)"), "\(first.stdout)")
        let exported = try #require(try BatchReport.read(report).first { $0.key == "landscape.mov" })
        #expect(exported.status == "exported" && exported.route == "remux" && exported.finishedAt != nil)

        let rerun = try cli([])
        #expect(rerun.status == 1, "an earlier failure is still a failure: \(rerun.stdout)")
        #expect(rerun.stdout.contains("1 unchanged, 1 failed (broken.mov)"), "\(rerun.stdout)")
        #expect(rerun.stderr.contains("broken.mov: "), "the failed asset is named with its error: \(rerun.stderr)")
        let rows = try BatchReport.read(report)
        let unchanged = try #require(rows.first { $0.key == "landscape.mov" })
        let output = dir.appendingPathComponent("out/landscape.mp4").path
        #expect(unchanged.status == "unchanged" && unchanged.output == output, "\(unchanged)")
        let sha = try TestSupport.sha256(output)
        #expect(unchanged.bytesOut == FileSystem.size(output) && unchanged.outputSHA256 == sha)
        #expect(unchanged.route == "remux" && unchanged.versionDelivered == "current" && unchanged.account != nil)
        #expect(unchanged.finishedAt == exported.finishedAt && unchanged.outputSHA256 == exported.outputSHA256)
        let failed = try #require(rows.first { $0.key == "broken.mov" })
        #expect(failed.status == "failed" && failed.output == nil && failed.error != nil && failed.finishedAt != nil, "\(failed)")

        // A dry run exits as the run would, and calls the assets what the run does.
        let dry = try cli(["--dry-run"])
        #expect(dry.status == rerun.status, "\(dry.stdout)\n\(dry.stderr)")
        #expect(dry.stdout.contains("1 failed (broken.mov) in an earlier run"), "\(dry.stdout)")
        let dryRows = try BatchReport.read(report)
        #expect(dryRows.map(\.status).sorted() == ["failed", "unchanged"], "\(dryRows.map(\.status))")

        // A deleted output: the row says what is there (nothing), and a run redoes it.
        try FileManager.default.removeItem(atPath: output)
        let redo = try cli([])
        #expect(redo.status == 1 && FileSystem.isRegularFile(output), "\(redo.stdout)")
        #expect(try BatchReport.read(report).first { $0.key == "landscape.mov" }?.status == "exported")
    }

    @Test func olderReportsAreStillReadInTodaysWords() throws {
        func row(_ key: String, _ status: String, error: String? = nil) -> BatchReportRow {
            BatchReportRow(key: key, input: "/in/" + key, action: status == "skipped" ? "skip" : "transcode", reason: "", status: status,
                           route: "transcode", fallbacks: 0, versionRequested: "current", versionDelivered: "current", output: nil,
                           bytesIn: 1, bytesOut: 1, estimatedBytes: nil, outputSHA256: nil, error: error, wallTime: nil)
        }
        let counts = BatchCounts([row("a", "completed"), row("b", "skipped"), row("c", "skipped", error: "boom"), row("d", "duplicate")])
        #expect(counts.transcoded == 1 && counts.unchanged == 1 && counts.failed == 1 && counts.duplicates == 1, "\(counts)")
        #expect(counts.failedAssets == ["c"] && counts.skipped == 2)
        // A CSV of the columns before issue 31 is read.
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let path = dir.appendingPathComponent("old.csv").path
        let old = BatchReport.columnsVersion2.joined(separator: ",") + "\n" + "a.mov,/in/a.mov,transcode,,completed,transcode,0,current,current,,1,1,,,,,,\n"
        try old.write(toFile: path, atomically: true, encoding: .utf8)
        #expect(try BatchReport.read(path).map(\.status) == ["completed"])
        // Today's CSV round-trips the new columns.
        var new = row("b.mov", "duplicate")
        new.duplicateOf = "a.mov"
        new.finishedAt = "2026-11-26T15:00:00Z"
        try BatchReport.write([new], to: path)
        #expect(try BatchReport.read(path) == [new])
    }

    @Test func aForeignPosterIsLeftAloneAndSaid() async throws {
        let dir = try Self.folder()
        defer { TestSupport.cleanup(dir) }
        let poster = dir.appendingPathComponent("out/landscape.jpg").path
        let (first, _) = try await BatchTests.run(try Self.options(dir) { $0.thumbnails = true })
        #expect(first.rows.first?.thumbnail == poster && FileSystem.isRegularFile(poster))
        // Our own poster is redone by --force; the rerun's row lists it.
        let (forced, _) = try await BatchTests.run(try Self.options(dir) { $0.thumbnails = true; $0.force = true })
        #expect(forced.rows.first?.thumbnail == poster && forced.rows.first?.account?.warnings.isEmpty == true)
        let (rerun, _) = try await BatchTests.run(try Self.options(dir) { $0.thumbnails = true })
        #expect(rerun.rows.first?.status == "unchanged" && rerun.rows.first?.thumbnail == poster)
        // Someone else's file there is left alone, and said.
        try Self.foreign.write(to: URL(fileURLWithPath: poster))
        let (again, _) = try await BatchTests.run(try Self.options(dir) { $0.thumbnails = true; $0.force = true })
        let row = try #require(again.rows.first)
        #expect(row.status == "exported" && row.thumbnail == nil, "\(row)")
        #expect(row.account?.warnings.contains { $0.contains("poster frame not written") && $0.contains("landscape.jpg") } == true, "\(row.account?.warnings ?? [])")
        #expect(try Data(contentsOf: URL(fileURLWithPath: poster)) == Self.foreign)
    }
}
