import CSQLite
import Foundation
import MediaExportCore
import MediaExportFFmpeg

/// The batch's memory: one SQLite database inside the output folder, written in transactions (WAL journal),
/// recording per asset what was read, how it was exported and where it went, so a rerun exports only what is
/// new or changed and a crash mid-batch loses nothing that had finished.
///
/// Paths and keys are stored as the library carries them: a name that is not UTF-8 is kept in `FileName`'s
/// lossless encoding (its raw bytes as private-use scalars), so a rerun finds the same file again.
///
/// `@unchecked Sendable`: it owns a C handle (`sqlite3 *`, opened `FULLMUTEX`), and every statement runs under
/// `lock`, so jobs on several threads share it safely; issue 18 replaces it with GRDB's `DatabaseQueue`.
public final class ExportDatabase: @unchecked Sendable {
    /// The file name inside the output folder.
    public static let fileName = ".mediaexport.sqlite"
    /// Schema version stored in `meta`.
    static let schemaVersion = 2

    private var db: OpaquePointer?
    private let lock = NSLock()
    /// The database file.
    public let path: String
    /// Opened read-only (a dry run): `rows()` works, `upsert` fails.
    public let readOnly: Bool
    private var hasAssetsTable = true

    /// Opens (creating if needed) the database at `path`; `readOnly` opens an existing one without writing to it.
    /// The database and its journal files are never followed through a symlink, nor used when hard-linked
    /// elsewhere (`BatchError.unsafeStateFile`): a planted link must not make the batch write outside its folder.
    public init(path: String, readOnly: Bool = false) throws {
        // SQLite's NOFOLLOW refuses a symlink anywhere in the path: the folder is resolved first, so only the
        // file itself (and SQLite's files beside it) must not be links.
        let folder = (path as NSString).deletingLastPathComponent
        self.path = FileSystem.realPath(folder.isEmpty ? "." : folder).map { ($0 as NSString).appendingPathComponent((path as NSString).lastPathComponent) } ?? path
        self.readOnly = readOnly
        let path = self.path
        try Self.checkNotLinked(path)
        let flags = (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) | SQLITE_OPEN_FULLMUTEX | SQLITE_OPEN_NOFOLLOW
        if sqlite3_open_v2(FileName.cString(path), &db, flags, nil) != SQLITE_OK {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close(db)
            db = nil
            throw ExportError.outputUnwritable(path: FileName.display(path), reason: "cannot open the export database: \(message)")
        }
        sqlite3_busy_timeout(db, 5000)
        if readOnly {
            var found = false
            try query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'assets'") { _ in found = true }
            hasAssetsTable = found
            return
        }
        try execute("PRAGMA journal_mode=WAL")
        try execute("PRAGMA synchronous=NORMAL")
        try execute("""
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
            """)
        // Version 2: what was verified and what was dropped, per export (a JSON `ExportAccount`).
        var columns: Set<String> = []
        try query("PRAGMA table_info(assets)") { s in columns.insert(text(s, 1)) }
        if !columns.contains("account_json") { try execute("ALTER TABLE assets ADD COLUMN account_json TEXT") }
        try execute("INSERT OR REPLACE INTO meta(key, value) VALUES('schema_version', '\(ExportDatabase.schemaVersion)')")
    }

    deinit { sqlite3_close(db) }

    /// Refuses a database (or one of SQLite's files beside it) that is a symlink, a hard link or not a regular file.
    static func checkNotLinked(_ path: String) throws {
        for suffix in ["", "-wal", "-shm", "-journal"] {
            let file = path + suffix
            guard let st = FileSystem.lstat(file) else { continue }
            switch st.st_mode & S_IFMT {
            case S_IFLNK: throw BatchError.unsafeStateFile(path: file, reason: "the export database is a symbolic link")
            case S_IFREG: if st.st_nlink > 1 { throw BatchError.unsafeStateFile(path: file, reason: "the export database has other hard links") }
            default: throw BatchError.unsafeStateFile(path: file, reason: "the export database is not a regular file")
            }
        }
    }

    /// One asset's row.
    public struct Row: Codable, Sendable, Equatable {
        public var assetKey: String
        public var sources: [SourceRecord]
        public var sourceFingerprint: String
        public var presetName: String
        public var presetHash: String
        public var versionRequested: String
        public var versionDelivered: String?
        public var action: String
        public var route: String?
        public var fallbacks: Int
        public var outputPath: String?
        public var outputSize: Int64?
        public var outputSHA256: String?
        /// `running`, `completed`, `failed`, `cancelled`.
        public var status: String
        public var error: String?
        public var startedAt: Double?
        public var finishedAt: Double?
        public var wallTime: Double?
        public var ffmpegVersions: String
        /// What was verified and what was dropped (schema 2; nil for rows of older runs and unfinished ones).
        public var account: ExportAccount? = nil
    }

    /// A source resource as it was when exported.
    public struct SourceRecord: Codable, Sendable, Equatable {
        public var path: String
        public var size: Int64
        public var modified: Double
        public var sha256: String
    }

    /// All rows by asset key.
    public func rows() throws -> [String: Row] {
        try lock.withLock {
            var result: [String: Row] = [:]
            guard hasAssetsTable else { return result }
            try query("SELECT asset_key, sources_json, source_fingerprint, preset_name, preset_hash, version_requested, version_delivered, action, route, fallbacks, output_path, output_size, output_sha256, status, error, started_at, finished_at, wall_time, ffmpeg_versions, account_json FROM assets") { s in
                let sources = (try? JSONDecoder().decode([SourceRecord].self, from: Data(text(s, 1).utf8))) ?? []
                let row = Row(assetKey: text(s, 0), sources: sources, sourceFingerprint: text(s, 2), presetName: text(s, 3), presetHash: text(s, 4),
                              versionRequested: text(s, 5), versionDelivered: optText(s, 6), action: text(s, 7), route: optText(s, 8),
                              fallbacks: Int(sqlite3_column_int64(s, 9)), outputPath: optText(s, 10), outputSize: optInt(s, 11),
                              outputSHA256: optText(s, 12), status: text(s, 13), error: optText(s, 14), startedAt: optDouble(s, 15),
                              finishedAt: optDouble(s, 16), wallTime: optDouble(s, 17), ffmpegVersions: text(s, 18),
                              account: optText(s, 19).flatMap { try? JSONDecoder().decode(ExportAccount.self, from: Data($0.utf8)) })
                result[row.assetKey] = row
            }
            return result
        }
    }

    /// Inserts or replaces a row, in its own transaction.
    public func upsert(_ row: Row) throws {
        let sources = String(decoding: try JSONEncoder().encode(row.sources), as: UTF8.self)
        let account = try row.account.map { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) }
        try lock.withLock {
            try execute("BEGIN IMMEDIATE")
            do {
                try run("""
                    INSERT OR REPLACE INTO assets(asset_key, sources_json, source_fingerprint, preset_name, preset_hash, version_requested,
                        version_delivered, action, route, fallbacks, output_path, output_size, output_sha256, status, error, started_at,
                        finished_at, wall_time, ffmpeg_versions, account_json) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)
                    """, [row.assetKey, sources, row.sourceFingerprint, row.presetName, row.presetHash, row.versionRequested,
                          row.versionDelivered, row.action, row.route, Int64(row.fallbacks), row.outputPath, row.outputSize, row.outputSHA256,
                          row.status, row.error, row.startedAt, row.finishedAt, row.wallTime, row.ffmpegVersions, account])
                try execute("COMMIT")
            } catch {
                try? execute("ROLLBACK")
                throw error
            }
        }
    }

    // MARK: SQLite plumbing

    private func fail(_ what: String) -> ExportError {
        .outputUnwritable(path: FileName.display(path), reason: "export database: \(what): \(String(cString: sqlite3_errmsg(db)))")
    }

    private func execute(_ sql: String) throws {
        if sqlite3_exec(db, sql, nil, nil, nil) != SQLITE_OK { throw fail(sql.prefix(40).description) }
    }

    private func prepare(_ sql: String) throws -> OpaquePointer {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else { throw fail("prepare") }
        return statement
    }

    private func run(_ sql: String, _ values: [Any?]) throws {
        let s = try prepare(sql)
        defer { sqlite3_finalize(s) }
        for (i, value) in values.enumerated() {
            let index = Int32(i + 1)
            switch value {
            case nil: sqlite3_bind_null(s, index)
            case let v as String: sqlite3_bind_text(s, index, v, -1, cff_sqlite_transient())
            case let v as Int64: sqlite3_bind_int64(s, index, v)
            case let v as Int: sqlite3_bind_int64(s, index, Int64(v))
            case let v as Double: sqlite3_bind_double(s, index, v)
            default: sqlite3_bind_text(s, index, "\(value!)", -1, cff_sqlite_transient())
            }
        }
        if sqlite3_step(s) != SQLITE_DONE { throw fail("write") }
    }

    private func query(_ sql: String, _ each: (OpaquePointer) throws -> Void) throws {
        let s = try prepare(sql)
        defer { sqlite3_finalize(s) }
        while true {
            let rc = sqlite3_step(s)
            if rc == SQLITE_DONE { return }
            guard rc == SQLITE_ROW else { throw fail("read") }
            try each(s)
        }
    }
}

private func text(_ s: OpaquePointer, _ i: Int32) -> String { optText(s, i) ?? "" }
private func optText(_ s: OpaquePointer, _ i: Int32) -> String? {
    guard sqlite3_column_type(s, i) != SQLITE_NULL, let p = sqlite3_column_text(s, i) else { return nil }
    return String(cString: p)
}
private func optInt(_ s: OpaquePointer, _ i: Int32) -> Int64? {
    sqlite3_column_type(s, i) == SQLITE_NULL ? nil : sqlite3_column_int64(s, i)
}
private func optDouble(_ s: OpaquePointer, _ i: Int32) -> Double? {
    sqlite3_column_type(s, i) == SQLITE_NULL ? nil : sqlite3_column_double(s, i)
}
