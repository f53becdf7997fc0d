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
        #expect(plan.rows.first { $0.key == "IMG_0001 (1).MOV" }?.reason.contains("the same content as IMG_0001.MOV: its output would be copied") == true)
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
        // Both outputs exist, the same bytes, each a file of its own (a reflink clone or a copy).
        let a = out.appendingPathComponent("IMG_0001.mp4").path, b = out.appendingPathComponent("IMG_0001 (1).mp4").path
        #expect(try TestSupport.sha256(a) == TestSupport.sha256(b))
        #expect(copy.outputSHA256 == original.outputSHA256 && copy.output == b && copy.bytesOut == FileSystem.size(a))
        #expect(FileSystem.stat(a)?.st_ino != FileSystem.stat(b)?.st_ino, "a second file, not a hard link")
        #expect(result.counts.duplicates == 1 && result.counts.transcoded == 1 && result.outcome == .completed, "\(result.counts)")
        let records = try ExportDatabase(path: out.appendingPathComponent(ExportDatabase.fileName).path, readOnly: true).rows()
        #expect(records["IMG_0001 (1).MOV"]?.duplicateOf == "IMG_0001.MOV" && records["IMG_0001.MOV"]?.duplicateOf == nil)

        // A rerun keeps both as they are and still says which is the duplicate.
        let (rerun, rerunEvents) = try await BatchTests.run(options)
        #expect(rerunEvents.all.allSatisfy { if case .export = $0 { return false } else { return true } })
        #expect(rerun.rows.map(\.status) == ["unchanged", "unchanged"], "\(rerun.rows.map(\.status))")
        #expect(rerun.rows.map(\.duplicateOf) == ["IMG_0001.MOV", nil], "\(rerun.rows.map(\.duplicateOf))")

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
    /// Issue 44: a file that is not the batch's at the original's output path fails the original only; another
    /// member of its group is exported in its place, and the rest are its duplicates.
    @Test func anotherMemberIsExportedWhenTheOriginalsPathIsTaken() async throws {
        let dir = try Self.folder()
        defer { TestSupport.cleanup(dir) }
        let out = dir.appendingPathComponent("out")
        try FileManager.default.copyItem(atPath: TestSupport.fixture("hevc.mp4"), toPath: dir.appendingPathComponent("uploads/IMG_0001 (2).MOV").path)
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        try BatchStateTests.foreign.write(to: out.appendingPathComponent("IMG_0001.mp4"))  // the original fails: not ours
        let (result, _) = try await BatchTests.run(try BatchStateTests.options(dir))
        let rows = Dictionary(uniqueKeysWithValues: result.rows.map { ($0.key, $0) })
        #expect(rows["IMG_0001.MOV"]?.status == "failed" && rows["IMG_0001.MOV"]?.error?.contains("is not the file this batch wrote there") == true)
        #expect(rows["IMG_0001 (1).MOV"]?.status == "exported", "promoted: \(rows["IMG_0001 (1).MOV"].map { "\($0)" } ?? "")")
        #expect(rows["IMG_0001 (2).MOV"]?.status == "duplicate" && rows["IMG_0001 (2).MOV"]?.duplicateOf == "IMG_0001 (1).MOV")
        #expect(try Data(contentsOf: out.appendingPathComponent("IMG_0001.mp4")) == BatchStateTests.foreign, "left as it was")
        let one = out.appendingPathComponent("IMG_0001 (1).mp4").path, two = out.appendingPathComponent("IMG_0001 (2).mp4").path
        #expect(try TestSupport.sha256(one) == TestSupport.sha256(two) && FileSystem.size(one) ?? 0 > 1000)
        #expect(result.counts.failed == 1 && result.outcome == .failed, "\(result.counts)")
    }

    /// Issue 44: four identical uploads, one output then edited in place (the same size): the next run says the
    /// other three are unchanged and leaves them as they are, and keeps the edited one as the user left it.
    @Test func anOutputEditedInPlaceIsKeptAndTheOthersAreUnchanged() async throws {
        let dir = try Self.folder()
        defer { TestSupport.cleanup(dir) }
        let out = dir.appendingPathComponent("out")
        for n in [2, 3] {
            try FileManager.default.copyItem(atPath: TestSupport.fixture("hevc.mp4"), toPath: dir.appendingPathComponent("uploads/IMG_0001 (\(n)).MOV").path)
        }
        let options = try BatchStateTests.options(dir)
        _ = try await BatchTests.run(options)
        let names = ["IMG_0001", "IMG_0001 (1)", "IMG_0001 (2)", "IMG_0001 (3)"].map { out.appendingPathComponent($0 + ".mp4").path }
        let edited = names[2]
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: edited))
        try handle.seek(toOffset: 100)
        handle.write(Data("edited".utf8))
        try handle.close()
        let before = try names.map { try TestSupport.sha256($0) }
        let (rerun, events) = try await BatchTests.run(options)
        #expect(events.all.allSatisfy { if case .export = $0 { return false } else { return true } })
        let statuses = Dictionary(uniqueKeysWithValues: rerun.rows.map { ($0.key, $0.status) })
        #expect(statuses == ["IMG_0001.MOV": "unchanged", "IMG_0001 (1).MOV": "unchanged", "IMG_0001 (2).MOV": "edited", "IMG_0001 (3).MOV": "unchanged"],
                "\(statuses)")
        #expect(try names.map { try TestSupport.sha256($0) } == before, "nothing replaced")
        #expect(rerun.rows.first { $0.key == "IMG_0001 (2).MOV" }?.reason.contains("changed since this batch wrote it") == true)
        #expect(rerun.counts.edited == 1 && rerun.counts.failed == 0 && rerun.outcome == .completed, "\(rerun.counts)")
        // --overwrite puts the batch's output back.
        let (again, _) = try await BatchTests.run(try BatchStateTests.options(dir) { $0.overwrite = true })
        #expect(again.rows.first { $0.key == "IMG_0001 (2).MOV" }?.status == "duplicate")
        #expect(try TestSupport.sha256(edited) == before[0])
    }

    /// Issue 44: `--duplicates link` makes hard links; `skip` writes nothing and names the original.
    @Test func duplicatesAsLinksOrNothing() async throws {
        let dir = try Self.folder()
        defer { TestSupport.cleanup(dir) }
        let out = dir.appendingPathComponent("out")
        let a = out.appendingPathComponent("IMG_0001.mp4").path, b = out.appendingPathComponent("IMG_0001 (1).mp4").path
        let (linked, _) = try await BatchTests.run(try BatchStateTests.options(dir) { $0.duplicates = .link })
        #expect(linked.counts.duplicates == 1 && FileSystem.stat(a)?.st_ino == FileSystem.stat(b)?.st_ino, "a hard link")
        TestSupport.cleanup(out)
        let (skipped, _) = try await BatchTests.run(try BatchStateTests.options(dir) { $0.duplicates = .skip })
        let row = try #require(skipped.rows.first { $0.key == "IMG_0001 (1).MOV" })
        #expect(row.status == "duplicate" && row.duplicateOf == "IMG_0001.MOV" && row.output == nil, "\(row)")
        #expect(FileSystem.exists(a) && !FileSystem.exists(b))
        let (rerun, _) = try await BatchTests.run(try BatchStateTests.options(dir) { $0.duplicates = .skip })
        #expect(rerun.rows.map(\.status) == ["unchanged", "unchanged"] && !FileSystem.exists(b), "\(rerun.rows.map(\.status))")
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
