import Foundation
import GRDB
import Testing
@testable import MediaExport
@testable import MediaExportCore
@testable import MediaExportFFmpeg

/// Issue 31: byte-identical uploads are exported once.
@Suite struct BatchDuplicateTests {
    /// uploads/IMG_0001.MOV and uploads/IMG_0001 (1).MOV, the same bytes (a clip `low` transcodes: HEVC).
    static func folder() throws -> URL {
        let dir = TestSupport.tempDir()
        let uploads = dir.appendingPathComponent("uploads")
        try FileManager.default.createDirectory(at: uploads, withIntermediateDirectories: true)
        for name in ["IMG_0001 (1).MOV", "IMG_0001.MOV"] {
            try FileManager.default.copyItem(atPath: TestSupport.fixture("hevc.mp4"), toPath: uploads.appendingPathComponent(name).path)
        }
        return dir
    }

    @Test func byteIdenticalUploadsAreTranscodedOnce() async throws {
        let dir = try Self.folder()
        defer { TestSupport.cleanup(dir) }
        let out = dir.appendingPathComponent("out")
        let options = try BatchStateTests.options(dir) { $0.jobs = 2 }
        let (plan, _) = try await BatchTests.run(try BatchStateTests.options(dir) { $0.dryRun = true })
        #expect(plan.rows.first { $0.key == "IMG_0001 (1).MOV" }?.reason.contains("the same content as IMG_0001.MOV: its output would be linked") == true)
        let (result, events) = try await BatchTests.run(options)
        // One export ran, by transcode.
        let completed = events.all.compactMap { event -> ExportEvent.Completed? in
            if case .export(_, _, .completed(let c)) = event { return c } else { return nil }
        }
        #expect(completed.count == 1 && completed.first?.route == .transcode, "\(completed.map(\.route))")
        let rows = Dictionary(uniqueKeysWithValues: result.rows.map { ($0.key, $0) })
        let original = try #require(rows["IMG_0001.MOV"]), copy = try #require(rows["IMG_0001 (1).MOV"])
        #expect(original.status == "exported" && original.route == "transcode", "\(original)")
        #expect(copy.status == "duplicate" && copy.duplicateOf == "IMG_0001.MOV" && copy.route == "transcode", "\(copy)")
        // Both outputs exist, the same bytes (a hard link here).
        let a = out.appendingPathComponent("IMG_0001.mp4").path, b = out.appendingPathComponent("IMG_0001 (1).mp4").path
        #expect(try TestSupport.sha256(a) == TestSupport.sha256(b))
        #expect(copy.outputSHA256 == original.outputSHA256 && copy.output == b && copy.bytesOut == FileSystem.size(a))
        #expect(FileSystem.stat(a)?.st_ino == FileSystem.stat(b)?.st_ino, "a hard link, not a second file")
        #expect(result.counts.duplicates == 1 && result.counts.transcoded == 1 && result.outcome == .completed, "\(result.counts)")
        let records = try ExportDatabase(path: out.appendingPathComponent(ExportDatabase.fileName).path, readOnly: true).rows()
        #expect(records["IMG_0001 (1).MOV"]?.duplicateOf == "IMG_0001.MOV" && records["IMG_0001.MOV"]?.duplicateOf == nil)

        // A rerun keeps both as they are and still says which is the duplicate.
        let (rerun, rerunEvents) = try await BatchTests.run(options)
        #expect(rerunEvents.all.allSatisfy { if case .export = $0 { return false } else { return true } })
        #expect(rerun.rows.map(\.status).sorted() == ["duplicate", "unchanged"], "\(rerun.rows.map(\.status))")

        // A third copy in a later run is linked to the earlier run's output, not exported.
        try FileManager.default.copyItem(atPath: TestSupport.fixture("hevc.mp4"), toPath: dir.appendingPathComponent("uploads/IMG_0001 (2).MOV").path)
        let (third, thirdEvents) = try await BatchTests.run(options)
        #expect(thirdEvents.all.allSatisfy { if case .export = $0 { return false } else { return true } })
        let late = try #require(third.rows.first { $0.key == "IMG_0001 (2).MOV" })
        #expect(late.status == "duplicate" && late.duplicateOf == "IMG_0001.MOV", "\(late)")
        #expect(try TestSupport.sha256(out.appendingPathComponent("IMG_0001 (2).mp4").path) == TestSupport.sha256(a))
    }
}


extension BatchDuplicateTests {
    @Test func aDuplicateOfAFailedAssetFailsNamingIt() async throws {
        let dir = try Self.folder()
        defer { TestSupport.cleanup(dir) }
        let out = dir.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        try BatchStateTests.foreign.write(to: out.appendingPathComponent("IMG_0001.mp4"))  // the original fails: not ours
        let (result, _) = try await BatchTests.run(try BatchStateTests.options(dir))
        let copy = try #require(result.rows.first { $0.key == "IMG_0001 (1).MOV" })
        #expect(copy.status == "failed" && copy.error?.contains("the same content as IMG_0001.MOV, whose export failed") == true, "\(copy)")
        #expect(!FileSystem.exists(out.appendingPathComponent("IMG_0001 (1).mp4").path) && result.counts.failed == 2)
    }

    @Test func otherSettingsRelinkTheDuplicateToTheNewOutput() async throws {
        let dir = try Self.folder()
        defer { TestSupport.cleanup(dir) }
        let out = dir.appendingPathComponent("out")
        let a = out.appendingPathComponent("IMG_0001.mp4").path, b = out.appendingPathComponent("IMG_0001 (1).mp4").path
        _ = try await BatchTests.run(try BatchStateTests.options(dir))
        let before = try TestSupport.sha256(a)
        let (other, _) = try await BatchTests.run(try BatchStateTests.options(dir) { $0.preset = try! TestSupport.preset("1280x720") })
        #expect(other.rows.map(\.status).sorted() == ["duplicate", "exported"], "\(other.rows.map { ($0.key, $0.status, $0.error) })")
        let after = try TestSupport.sha256(a)
        let linked = try TestSupport.sha256(b)
        #expect(after != before && linked == after)
    }
}

/// Schema 3 (`duplicate_of`) over a database of schema 2.
@Suite struct DuplicateOfMigrationTests {
    @Test func aVersion2DatabaseGainsDuplicateOfAndKeepsItsRows() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let path = dir.appendingPathComponent(ExportDatabase.fileName).path
        var row = ExportDatabase.Row(assetKey: "a.mov", sources: [.init(path: "/x/a.mov", size: 3, modified: 1.5, sha256: "abc")],
                                     sourceFingerprint: "f", presetName: "low", presetHash: "h", versionRequested: "current",
                                     versionDelivered: "current", action: "remux", route: "remux", fallbacks: 0, outputPath: "/y/a.mp4",
                                     outputSize: 10, outputSHA256: "def", status: "completed", error: nil, startedAt: 1, finishedAt: 2,
                                     wallTime: 1, ffmpegVersions: "libavcodec 59.")
        try ExportDatabase(path: path).upsert(row)
        // Back to schema 2: no duplicate_of column, no v3 migration recorded.
        let queue = try DatabaseMigrationTests.connection(path)
        try queue.write { db in
            try db.execute(sql: "ALTER TABLE assets DROP COLUMN duplicate_of")
            try db.execute(sql: "ALTER TABLE assets DROP COLUMN thumbnail_sha256")
            try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = 'v3'")
            try db.execute(sql: "UPDATE meta SET value = '2' WHERE key = 'schema_version'")
        }
        try queue.close()
        #expect(try ExportDatabase(path: path, readOnly: true).rows() == ["a.mov": row], "a read-only open reads schema 2 as it is")
        let database = try ExportDatabase(path: path)
        #expect(try database.rows() == ["a.mov": row])
        #expect(try DatabaseMigrationTests.migrations(path) == ExportDatabase.migrationIdentifiers)
        row.assetKey = "b.mov"
        row.duplicateOf = "a.mov"
        try database.upsert(row)
        #expect(try database.rows()["b.mov"]?.duplicateOf == "a.mov")
    }
}
