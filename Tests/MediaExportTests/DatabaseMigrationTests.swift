import Foundation
import GRDB
import Testing
@testable import MediaExport
@testable import MediaExportCore

/// Issue 18, item 2: the batch export database is GRDB-managed (a `DatabaseMigrator`, WAL mode), and a database
/// written by the hand-written SQLite code before it is adopted as it is: its rows resume, its schema is not rebuilt.
@Suite("Export database: GRDB migrations") struct DatabaseMigrationTests {
    /// The tables exactly as the hand-written code (before GRDB) created them.
    static let legacyTables = """
        CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE IF NOT EXISTS assets(
            asset_key TEXT PRIMARY KEY,
            sources_json TEXT NOT NULL,
            source_fingerprint TEXT NOT NULL,
            preset_name TEXT NOT NULL,
            preset_hash TEXT NOT NULL,
            version_requested TEXT NOT NULL,
            version_delivered TEXT,
            action TEXT NOT NULL,
            route TEXT,
            fallbacks INTEGER NOT NULL DEFAULT 0,
            output_path TEXT,
            output_size INTEGER,
            output_sha256 TEXT,
            status TEXT NOT NULL,
            error TEXT,
            started_at REAL,
            finished_at REAL,
            wall_time REAL,
            ffmpeg_versions TEXT NOT NULL
        );
        """

    /// A connection of the test's own. It waits for a lock like the batch's (a batch's last connection may still be
    /// closing, and checkpointing, on its job's thread when the batch returns).
    static func connection(_ path: String, readonly: Bool = false) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.readonly = readonly
        configuration.busyMode = .timeout(10)
        return try DatabaseQueue(path: path, configuration: configuration)
    }

    /// Writes `path` as the hand-written code did at `schemaVersion` (1: the first tables; 2: plus
    /// `account_json`), with `rows` inserted by its own INSERT statement. No `grdb_migrations` table.
    static func writeLegacyDatabase(_ path: String, schemaVersion: Int, rows: [ExportDatabase.Row]) throws {
        let queue = try connection(path)
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA journal_mode=WAL")
            try db.execute(sql: "PRAGMA synchronous=NORMAL")
            try db.execute(sql: legacyTables)
            if schemaVersion >= 2 { try db.execute(sql: "ALTER TABLE assets ADD COLUMN account_json TEXT") }
            try db.execute(sql: "INSERT OR REPLACE INTO meta(key, value) VALUES('schema_version', '\(schemaVersion)')")
            for row in rows {
                let sources = String(decoding: try JSONEncoder().encode(row.sources), as: UTF8.self)
                var columns = ["asset_key", "sources_json", "source_fingerprint", "preset_name", "preset_hash", "version_requested",
                               "version_delivered", "action", "route", "fallbacks", "output_path", "output_size", "output_sha256",
                               "status", "error", "started_at", "finished_at", "wall_time", "ffmpeg_versions"]
                var values: [(any DatabaseValueConvertible)?] = [
                    row.assetKey, sources, row.sourceFingerprint, row.presetName, row.presetHash, row.versionRequested,
                    row.versionDelivered, row.action, row.route, Int64(row.fallbacks), row.outputPath, row.outputSize,
                    row.outputSHA256, row.status, row.error, row.startedAt, row.finishedAt, row.wallTime, row.ffmpegVersions,
                ]
                if schemaVersion >= 2 {
                    columns.append("account_json")
                    values.append(try row.account.map { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) })
                }
                let marks = Array(repeating: "?", count: columns.count).joined(separator: ",")
                try db.execute(sql: "INSERT OR REPLACE INTO assets(\(columns.joined(separator: ", "))) VALUES(\(marks))",
                               arguments: StatementArguments(values))
            }
        }
        try queue.close()
    }

    /// The applied GRDB migrations of `path` (empty when it has no `grdb_migrations` table).
    static func migrations(_ path: String) throws -> [String] {
        let queue = try connection(path, readonly: true)
        return try queue.read { db in
            try db.tableExists("grdb_migrations") ? try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY identifier") : []
        }
    }

    static func options(_ uploads: String, _ out: String) throws -> BatchOptions {
        BatchOptions(inputs: [uploads], outputDirectory: out, preset: try TestSupport.preset("low"), jobs: 2)
    }

    static func removeDatabase(_ path: String) {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    @Test("a database written before GRDB resumes: its completed asset is skipped, its schema adopted and migrated",
          arguments: [1, 2])
    func legacyDatabaseResumes(schemaVersion: Int) async throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let uploads = dir.appendingPathComponent("uploads").path
        let out = dir.appendingPathComponent("out").path
        try FileManager.default.createDirectory(atPath: uploads, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: TestSupport.fixture("landscape.mov"), toPath: uploads + "/landscape.mov")

        // A real completed row for landscape.mov, then the database replaced by a legacy one holding that row.
        let first = try await BatchRunner(options: try Self.options(uploads, out)).run()
        #expect(first.counts.failed == 0 && first.rows.map(\.status) == ["exported"], "\(first.rows)")
        let dbPath = out + "/" + ExportDatabase.fileName
        var completed = try #require(try ExportDatabase(path: dbPath, readOnly: true).rows()["landscape.mov"])
        #expect(completed.status == "completed")
        if schemaVersion < 2 { completed.account = nil }  // version 1 had no account column
        Self.removeDatabase(dbPath)
        try Self.writeLegacyDatabase(dbPath, schemaVersion: schemaVersion, rows: [completed])
        #expect(try Self.migrations(dbPath).isEmpty, "a legacy file has no GRDB migration table")

        // A dry run reads the legacy file as it is, without migrating it.
        let dry = try await BatchRunner(options: { var o = try Self.options(uploads, out); o.dryRun = true; return o }()).run()
        #expect(dry.rows.first { $0.key == "landscape.mov" }?.action == "skip", "\(dry.rows)")
        #expect(try Self.migrations(dbPath).isEmpty, "a dry run writes nothing")

        // A new asset beside it; the rerun skips the completed one and exports only the new one.
        try FileManager.default.copyItem(atPath: TestSupport.fixture("odd-322x242.mov"), toPath: uploads + "/clip.mov")
        let outputBefore = try FileManager.default.attributesOfItem(atPath: out + "/landscape.mp4")[.modificationDate] as? Date
        let rerun = try await BatchRunner(options: try Self.options(uploads, out)).run()
        let landscape = try #require(rerun.rows.first { $0.key == "landscape.mov" })
        #expect(landscape.status == "unchanged" && landscape.reason == "unchanged since the last run", "\(landscape)")
        #expect(rerun.rows.first { $0.key == "clip.mov" }?.status == "exported", "\(rerun.rows)")
        #expect(try FileManager.default.attributesOfItem(atPath: out + "/landscape.mp4")[.modificationDate] as? Date == outputBefore)

        // The file is now GRDB's: every migration recorded, the legacy row kept, the new one added.
        #expect(try Self.migrations(dbPath) == ExportDatabase.migrationIdentifiers)
        let rows = try ExportDatabase(path: dbPath, readOnly: true).rows()
        #expect(rows["landscape.mov"] == completed, "the legacy row is kept as it was")
        #expect(rows["clip.mov"]?.status == "completed" && rows["clip.mov"]?.account != nil)
        let queue = try Self.connection(dbPath)
        let (version, columns) = try await queue.read { db in
            (try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'schema_version'"), try db.columns(in: "assets").map(\.name))
        }
        try queue.close()
        #expect(version == "\(ExportDatabase.schemaVersion)")
        #expect(columns.contains("account_json"))
    }

    @Test("a fresh database is in WAL mode, fully migrated, and reopening it migrates nothing again")
    func freshDatabaseIsWAL() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let path = dir.appendingPathComponent(ExportDatabase.fileName).path
        let database = try ExportDatabase(path: path)
        #expect(try database.rows().isEmpty)
        let row = ExportDatabase.Row(assetKey: "a.mov", sources: [.init(path: "/x/a.mov", size: 3, modified: 1.5, sha256: "abc")],
                                     sourceFingerprint: "f", presetName: "low", presetHash: "h", versionRequested: "current",
                                     versionDelivered: "current", action: "remux", route: "remux", fallbacks: 0, outputPath: "/y/a.mp4",
                                     outputSize: 10, outputSHA256: "def", status: "completed", error: nil, startedAt: 1, finishedAt: 2,
                                     wallTime: 1, ffmpegVersions: "libavcodec 59.")
        try database.upsert(row)
        var changed = row
        changed.status = "failed"
        try database.upsert(changed)  // replaces, by key
        #expect(try database.rows() == ["a.mov": changed])

        let queue = try Self.connection(path)
        #expect(try queue.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") } == "wal")
        try queue.close()
        #expect(try Self.migrations(path) == ExportDatabase.migrationIdentifiers)
        // Reopened: nothing to migrate, rows intact.
        #expect(try ExportDatabase(path: path).rows() == ["a.mov": changed])
        #expect(try ExportDatabase(path: path, readOnly: true).rows() == ["a.mov": changed])
    }

    @Test("v4: a route written with the fallback prefix of schema 3 reads as the route alone; the count says it was a fallback")
    func fallbackPrefixTakenOff() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let path = dir.appendingPathComponent(ExportDatabase.fileName).path
        let row = ExportDatabase.Row(assetKey: "a.mov", sources: [.init(path: "/x/a.mov", size: 3, modified: 1.5, sha256: "abc")],
                                     sourceFingerprint: "f", presetName: "low", presetHash: "h", versionRequested: "current",
                                     versionDelivered: "current", action: "transcode", route: "remux", fallbacks: 1, outputPath: "/y/a.mp4",
                                     outputSize: 10, outputSHA256: "def", status: "completed", error: nil, startedAt: 1, finishedAt: 2,
                                     wallTime: 1, ffmpegVersions: "libavcodec 59.")
        try ExportDatabase(path: path).upsert(row)
        // As schema 3 wrote it: the prefix in the column, v4 not yet run.
        let queue = try Self.connection(path)
        try queue.write { db in
            try db.execute(sql: "UPDATE assets SET route = 'fallback:remux'")
            try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = 'v4'")
        }
        try queue.close()
        #expect(try ExportDatabase(path: path).rows() == ["a.mov": row])
        #expect(try Self.migrations(path) == ExportDatabase.migrationIdentifiers)
    }

    @Test("a file that is not a database is refused as an unwritable output, not crashed on")
    func corruptDatabaseRefused() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let path = dir.appendingPathComponent(ExportDatabase.fileName).path
        try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: path))
        for readOnly in [false, true] {
            do {
                _ = try ExportDatabase(path: path, readOnly: readOnly).rows()
                Issue.record("a corrupt database opened (readOnly: \(readOnly))")
            } catch let error as ExportError {
                guard case .outputUnwritable(_, let reason) = error else { Issue.record("\(error)"); continue }
                #expect(reason.contains("not a database"), "\(reason)")
            }
        }
    }
}
