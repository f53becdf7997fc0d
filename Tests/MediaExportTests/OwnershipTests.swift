import Foundation
import Testing
@testable import MediaExport
@testable import MediaExportCore
@testable import MediaExportFFmpeg
#if canImport(Glibc)
import Glibc
#endif

/// Issue 44: nothing is replaced without proof of ownership at the moment of replacing (`FilePlacement`).
@Suite struct OwnershipTests {
    /// A folder with `new` (the finished temporary file) and, when given, `final` holding `existing`.
    private static func folder(existing: String?) throws -> (URL, Int32) {
        let dir = TestSupport.tempDir()
        try Data("new bytes".utf8).write(to: dir.appendingPathComponent("new"))
        if let existing { try Data(existing.utf8).write(to: dir.appendingPathComponent("final")) }
        return (dir, open(dir.path, O_RDONLY | O_DIRECTORY))
    }

    private static func place(_ folder: Int32, _ rule: FilePlacement.Rule) -> FilePlacement.Outcome {
        FilePlacement.place(directory: folder, temporary: FileName.cString("new"), final: FileName.cString("final"), rule: rule)
    }

    private static func owned(_ text: String) -> OwnedFile {
        let hasher = SHA256Hasher()
        Array(text.utf8).withUnsafeBytes { hasher.update($0) }
        return OwnedFile(size: Int64(text.utf8.count), sha256: hasher.finish())
    }

    @Test func aFileThereIsReplacedOnlyWhenItIsTheOneOwned() throws {
        for (existing, rule, expected) in [(nil, FilePlacement.Rule.never, FilePlacement.Outcome.placed),
                                           ("theirs", .never, .exists),
                                           ("ours!!", .owned([Self.owned("ours!!")]), .placed),
                                           ("theirs", .owned([Self.owned("ours!!")]), .notOwned),  // the same size, other bytes
                                           ("theirs", .any, .placed)] as [(String?, FilePlacement.Rule, FilePlacement.Outcome)] {
            let (dir, fd) = try Self.folder(existing: existing)
            defer { close(fd); TestSupport.cleanup(dir) }
            #expect(Self.place(fd, rule) == expected, "\(existing ?? "nothing") under \(rule)")
            let final = try String(contentsOf: dir.appendingPathComponent("final"), encoding: .utf8)
            let temporary = try? String(contentsOf: dir.appendingPathComponent("new"), encoding: .utf8)
            if expected == .placed {
                #expect(final == "new bytes" && temporary == nil, "the old file is gone, the new one in place")
            } else {
                #expect(final == existing && temporary == "new bytes", "theirs untouched; ours still under the temporary name")
            }
        }
    }

    /// A file written into the output path while a `--force` redo runs (into the batch's own file, or a file of
    /// its own renamed there) survives; the asset fails as foreign.
    @Test(arguments: [true, false]) func aFileWrittenDuringARedoSurvives(inPlace: Bool) async throws {
        let dir = try BatchStateTests.folder()
        defer { TestSupport.cleanup(dir) }
        let output = dir.appendingPathComponent("out/landscape.mp4")
        let (first, _) = try await BatchTests.run(try BatchStateTests.options(dir))
        #expect(first.counts.failed == 0 && FileSystem.size(output.path) ?? 0 > 1000)
        let runner = BatchRunner(options: try BatchStateTests.options(dir) { $0.force = true })
        runner.onEvent = { event in
            guard case .export(_, _, .started) = event else { return }
            if inPlace, let handle = try? FileHandle(forUpdating: output) {  // the batch's own file, edited while it works
                handle.write(Data("user's bytes".utf8))
                try? handle.close()
            } else if !inPlace {
                let theirs = dir.appendingPathComponent("theirs")
                try? BatchStateTests.foreign.write(to: theirs)
                rename(theirs.path, output.path)
            }
        }
        let before = try Data(contentsOf: output)
        let result = try await runner.run()
        let row = try #require(result.rows.first)
        #expect(row.status == "failed" && result.outcome == .failed, "\(row)")
        #expect(row.error?.contains("exists and is not the file this batch wrote there") == true, "\(row.error ?? "")")
        let after = try Data(contentsOf: output)
        #expect(inPlace ? after.prefix(12) == Data("user's bytes".utf8) && after.count == before.count : after == BatchStateTests.foreign)
        let left = try FileManager.default.contentsOfDirectory(atPath: output.deletingLastPathComponent().path)
        #expect(!left.contains { $0.contains(".mediaexport-tmp-") }, "no temporary file left: \(left)")
    }

    /// A report path holding a file that is not a report stops the batch before any work; an earlier report is replaced.
    @Test func aReportPathHoldingAnotherFileStopsTheBatch() async throws {
        let dir = try BatchStateTests.folder()
        defer { TestSupport.cleanup(dir) }
        let report = dir.appendingPathComponent("report.json").path
        try Data("my notes".utf8).write(to: URL(fileURLWithPath: report))
        await #expect(throws: ExportError.outputNotOwned(path: report)) {
            _ = try await BatchTests.run(try BatchStateTests.options(dir), report: report)
        }
        #expect(try String(contentsOfFile: report, encoding: .utf8) == "my notes")
        #expect(!FileSystem.exists(dir.appendingPathComponent("out/landscape.mp4").path), "nothing exported")
        try FileManager.default.removeItem(atPath: report)
        for _ in 0..<2 { _ = try await BatchTests.run(try BatchStateTests.options(dir), report: report) }
        #expect(try BatchReport.read(report).map(\.status) == ["unchanged"], "the second run's report replaced the first's")
    }
}
