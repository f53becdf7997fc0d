import Foundation
import Testing
@testable import MediaExport
@testable import MediaExportCore
@testable import MediaExportFFmpeg

/// Issue 46: uploads that can never be exported are `rejected`, not failures (unless `--strict`), and a person can
/// acknowledge a failing upload once (`--accept`) for every later run.
@Suite struct BatchRejectTests {
    /// uploads/landscape.mov and two that are not media: an empty `.mp4` and a text `.mp4`.
    static func folder() throws -> URL {
        let dir = try BatchStateTests.folder()
        let uploads = dir.appendingPathComponent("uploads")
        try Data().write(to: uploads.appendingPathComponent("empty.mp4"))
        try Data("not a video\n".utf8).write(to: uploads.appendingPathComponent("fake.mp4"))
        return dir
    }

    @Test func junkIsRejectedWithoutFailingTheRun() async throws {
        let dir = try Self.folder()
        defer { TestSupport.cleanup(dir) }
        let (result, events) = try await BatchTests.run(try BatchStateTests.options(dir))
        let rows = Dictionary(uniqueKeysWithValues: result.rows.map { ($0.key, $0) })
        #expect(rows["landscape.mov"]?.status == "exported")
        for key in ["empty.mp4", "fake.mp4"] {
            #expect(rows[key]?.status == "rejected" && rows[key]?.action == "skip", "\(key): \(rows[key].map { "\($0)" } ?? "")")
            #expect(rows[key]?.error?.contains("not a video or audio file") == true)
        }
        #expect(rows["empty.mp4"]?.error?.contains("empty") == true)
        #expect(result.counts.rejected == 2 && result.counts.rejectedAssets == ["empty.mp4", "fake.mp4"] && result.counts.failed == 0)
        #expect(result.outcome == .completed, "exit 0: \(result.counts)")
        #expect(events.all.filter { if case .export = $0 { return true } else { return false } }.allSatisfy { event in
            if case .export(_, let key, _) = event { return key == "landscape.mov" } else { return false }
        }, "the junk is never tried")
        // --strict makes them failures.
        let (strict, _) = try await BatchTests.run(try BatchStateTests.options(dir) { $0.errors.strict = true })
        #expect(strict.outcome == .failed && strict.counts.rejected == 2, "\(strict.counts)")
    }

    @Test func anAcceptedUploadNoLongerFailsLaterRuns() async throws {
        let dir = try Self.folder()
        defer { TestSupport.cleanup(dir) }
        let strict = { (o: inout BatchOptions) in o.errors.strict = true }
        let report = dir.appendingPathComponent("report.json").path
        let (accepting, _) = try await BatchTests.run(try BatchStateTests.options(dir) {
            strict(&$0)
            $0.accept = ["empty.mp4", dir.appendingPathComponent("uploads/fake.mp4").path, "nothere.mov"]
        })
        #expect(accepting.outcome == .completed && accepting.counts.accepted == 2, "\(accepting.counts)")
        #expect(accepting.notes.contains { $0.contains("--accept nothere.mov: no asset of this batch") }, "\(accepting.notes)")
        let (later, _) = try await BatchTests.run(try BatchStateTests.options(dir, strict), report: report)
        #expect(later.outcome == .completed && later.counts.accepted == 2 && later.counts.rejected == 0, "\(later.counts)")
        let rows = try BatchReport.read(report).filter { $0.status == "rejected" }
        #expect(rows.map(\.key) == ["empty.mp4", "fake.mp4"] && rows.allSatisfy { $0.accepted?.hasSuffix("Z") == true }, "\(rows)")
    }
}
