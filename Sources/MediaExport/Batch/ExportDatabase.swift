import Foundation
import GRDB
import MediaExportCore
import MediaExportFFmpeg
#if canImport(Glibc)
import Glibc
#endif

/// The batch's memory: one SQLite database inside the output folder, managed by GRDB (a `DatabaseQueue` in WAL
/// mode, its schema built by a `DatabaseMigrator`), recording per asset what was read, how it was exported and
/// where it went, so a rerun exports only what is new or changed and a crash mid-batch loses nothing that had
/// finished.
///
/// Paths and keys are stored as the library carries them: a name that is not UTF-8 is kept in `FileName`'s
/// lossless encoding (its raw bytes as private-use scalars), so a rerun finds the same file again.
///
/// One connection, one writer: GRDB's `DatabaseQueue` serializes every access, so the jobs of a batch share it and
/// each `upsert` is one IMMEDIATE transaction; no other process writes at the same time (the folder's `BatchLock`).
public final class ExportDatabase: Sendable {
    /// The file name inside the output folder.
    public static let fileName = ".mediaexport.sqlite"
    /// Schema version stored in `meta` (kept for tools that read it; the migrations are GRDB's `grdb_migrations`).
    static let schemaVersion = 5

    /// The migrations, in order. "v1" is the schema the first batches wrote (`meta` and `assets`); "v2" adds the
    /// per-export account; "v3" the asset whose output a duplicate's is (`duplicate_of`) and the poster frame's SHA-256
    /// (`thumbnail_sha256`). A database written before
    /// GRDB managed it is adopted by `adoptLegacySchema`.
    static let migrationIdentifiers = ["v1", "v2", "v3", "v4", "v5"]

    private let queue: DatabaseQueue
    /// The output folder, kept open while its name holds bytes that are not UTF-8 (SQLite is given
    /// `/proc/self/fd/N/…`, since GRDB takes a path as a Swift `String`); -1 otherwise.
    private let folderDescriptor: Int32
    /// The database file.
    public let path: String
    /// Opened read-only (a dry run): `rows()` works, `upsert` fails.
    public let readOnly: Bool
    private let hasAssetsTable: Bool

    /// Opens (creating if needed) the database at `path` and migrates it to the current schema; `readOnly` opens
    /// an existing one without writing to it (no migration either).
    /// The database and its journal files are never followed through a symlink, nor used when hard-linked
    /// elsewhere (`BatchError.unsafeStateFile`): a planted link must not make the batch write outside its folder.
    /// `rollbackJournal` (a shard's database, meant for a shared folder that may be on a network file system) uses
    /// SQLite's rollback journal (`journal_mode=DELETE`, `synchronous=FULL`) instead of WAL, whose shared-memory
    /// index does not work across the hosts of a network file system.
    public init(path: String, readOnly: Bool = false, rollbackJournal: Bool = false) throws {
        // The folder is resolved first, so only the file itself (and SQLite's files beside it) must not be links.
        let folder = PathName.directory(path)
        let resolvedFolder = FileSystem.realPath(folder)
        self.path = resolvedFolder.map { PathName.join($0, PathName.lastComponent(path)) } ?? path
        self.readOnly = readOnly
        let path = self.path
        try Self.checkNotLinked(path)

        var sqlitePath = path
        var descriptor: Int32 = -1
        if FileName.hasRawBytes(path) {
            let folderPath = PathName.directory(path)
            descriptor = Glibc.open(FileName.cString(folderPath), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            guard descriptor >= 0 else {
                throw ExportError.outputUnwritable(path: FileName.display(path),
                                                   reason: "cannot open the export database: \(String(cString: strerror(errno)))")
            }
            sqlitePath = "/proc/self/fd/\(descriptor)/" + PathName.lastComponent(path)
        }
        folderDescriptor = descriptor

        var configuration = Configuration()
        configuration.readonly = readOnly
        configuration.busyMode = .timeout(5)
        configuration.label = "mediaexport.batch-database"
        if !readOnly && !rollbackJournal { configuration.journalMode = .wal }  // also sets synchronous=NORMAL
        if !readOnly && rollbackJournal {
            configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA journal_mode = DELETE; PRAGMA synchronous = FULL") }
        }
        do {
            queue = try DatabaseQueue(path: sqlitePath, configuration: configuration)
        } catch {
            if descriptor >= 0 { Glibc.close(descriptor) }
            throw Self.failure(path, "cannot open the export database", error)
        }
        do {
            // SQLite opened it by name: a link planted between the check and the open is refused here.
            try Self.checkNotLinked(path)
            if readOnly {
                hasAssetsTable = try queue.read { try $0.tableExists(AssetRecord.databaseTableName) }
            } else {
                try queue.writeWithoutTransaction { db in try Self.adoptLegacySchema(db) }
                try Self.migrator.migrate(queue)
                hasAssetsTable = true
            }
        } catch {
            try? queue.close()
            if descriptor >= 0 { Glibc.close(descriptor) }
            if let error = error as? BatchError { throw error }
            throw Self.failure(path, "export database: migrate", error)
        }
    }

    deinit {
        try? queue.close()
        if folderDescriptor >= 0 { Glibc.close(folderDescriptor) }
    }

    /// Closes the connection now (checkpointing the WAL into the file), rather than when the last job thread lets
    /// go of the object: a batch closes it before it releases the folder's lock. Reading or writing afterwards
    /// throws; closing again does nothing.
    public func close() {
        try? queue.close()
    }

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

    // MARK: Schema

    /// The schema's history. Each migration runs once, in its own transaction, and is recorded in `grdb_migrations`.
    static let migrator: DatabaseMigrator = {
        var migrator = DatabaseMigrator()
        // Version 1: exactly what the first (hand-written) batch database created.
        migrator.registerMigration("v1") { db in
            try db.execute(sql: """
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
            try MetaRecord(key: "schema_version", value: "1").insert(db, onConflict: .replace)
        }
        // Version 2: what was verified and what was dropped, per export (a JSON `ExportAccount`).
        migrator.registerMigration("v2") { db in
            if try !db.columns(in: AssetRecord.databaseTableName).contains(where: { $0.name == "account_json" }) {
                try db.alter(table: AssetRecord.databaseTableName) { t in t.add(column: "account_json", .text) }
            }
            try MetaRecord(key: "schema_version", value: "2").insert(db, onConflict: .replace)
        }
        // Version 3: the asset a duplicate's output was linked from, and the poster frame written (issue 31).
        migrator.registerMigration("v3") { db in
            try db.alter(table: AssetRecord.databaseTableName) { t in
                t.add(column: "duplicate_of", .text)
                t.add(column: "thumbnail_sha256", .text)
            }
            try MetaRecord(key: "schema_version", value: "3").insert(db, onConflict: .replace)
        }
        // Version 4: the route is the route alone (`fallbacks` counts the fallbacks); earlier rows wrote a prefix.
        migrator.registerMigration("v4") { db in
            try db.execute(sql: "UPDATE assets SET route = substr(route, 10) WHERE route LIKE 'fallback:%'")
            try MetaRecord(key: "schema_version", value: "4").insert(db, onConflict: .replace)
        }
        // Version 5: the uploads a person acknowledged as never exportable (`--accept`, issue 46).
        migrator.registerMigration("v5") { db in
            try db.execute(sql: "CREATE TABLE IF NOT EXISTS accepted(asset_key TEXT PRIMARY KEY, accepted_at REAL NOT NULL)")
            try MetaRecord(key: "schema_version", value: "5").insert(db, onConflict: .replace)
        }
        return migrator
    }()

    /// A database written before GRDB managed it has `meta` and `assets` but no `grdb_migrations`: the migrations
    /// its schema already holds are recorded as applied (v1 for the tables; v2 when `assets` has `account_json`),
    /// so the migrator runs only what is missing and never recreates what is there.
    static func adoptLegacySchema(_ db: Database) throws {
        guard try !db.tableExists("grdb_migrations"), try db.tableExists(AssetRecord.databaseTableName) else { return }
        let columns = Set(try db.columns(in: AssetRecord.databaseTableName).map(\.name))
        try db.inTransaction(.immediate) {
            // The table exactly as GRDB's migrator creates it.
            try db.execute(sql: "CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v1')")
            if columns.contains("account_json") {
                try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v2')")
            }
            return .commit
        }
    }

    // MARK: Records

    /// One row of `meta`.
    struct MetaRecord: Codable, FetchableRecord, PersistableRecord {
        static let databaseTableName = "meta"
        var key: String
        var value: String
    }

    /// One row of `assets`, column for column. The nested values are kept as the JSON text the table has always
    /// held (`JSONEncoder`'s default form), so rows written before and after GRDB read alike.
    struct AssetRecord: FetchableRecord, PersistableRecord {
        static let databaseTableName = "assets"
        /// The public row. Unreadable JSON reads as no sources / no account, as it always did.
        var row: Row
        var sourcesJSON: String
        var accountJSON: String?

        init(_ row: Row) throws {
            self.row = row
            sourcesJSON = String(decoding: try JSONEncoder().encode(row.sources), as: UTF8.self)
            accountJSON = try row.account.map { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) }
        }

        init(row r: GRDB.Row) throws {
            func v<Value: DatabaseValueConvertible>(_ column: String) throws -> Value { try r.decode(forColumn: column) }
            sourcesJSON = try v("sources_json")
            accountJSON = try v("account_json")  // absent in a version-1 table (read-only opens do not migrate): nil
            let sources = (try? JSONDecoder().decode([SourceRecord].self, from: Data(sourcesJSON.utf8))) ?? []
            let account = accountJSON.flatMap { try? JSONDecoder().decode(ExportAccount.self, from: Data($0.utf8)) }
            row = Row(assetKey: try v("asset_key"), sources: sources, sourceFingerprint: try v("source_fingerprint"),
                      presetName: try v("preset_name"), presetHash: try v("preset_hash"), versionRequested: try v("version_requested"),
                      versionDelivered: try v("version_delivered"), action: try v("action"), route: try v("route"),
                      fallbacks: try v("fallbacks"), outputPath: try v("output_path"), outputSize: try v("output_size"),
                      outputSHA256: try v("output_sha256"), status: try v("status"), error: try v("error"),
                      startedAt: try v("started_at"), finishedAt: try v("finished_at"), wallTime: try v("wall_time"),
                      ffmpegVersions: try v("ffmpeg_versions"), account: account,
                      duplicateOf: try v("duplicate_of"), thumbnailSHA256: try v("thumbnail_sha256"))  // absent before v3: nil
        }

        func encode(to c: inout PersistenceContainer) {
            c["asset_key"] = row.assetKey; c["sources_json"] = sourcesJSON; c["source_fingerprint"] = row.sourceFingerprint
            c["preset_name"] = row.presetName; c["preset_hash"] = row.presetHash; c["version_requested"] = row.versionRequested
            c["version_delivered"] = row.versionDelivered; c["action"] = row.action; c["route"] = row.route; c["fallbacks"] = row.fallbacks
            c["output_path"] = row.outputPath; c["output_size"] = row.outputSize; c["output_sha256"] = row.outputSHA256
            c["status"] = row.status; c["error"] = row.error; c["started_at"] = row.startedAt; c["finished_at"] = row.finishedAt
            c["wall_time"] = row.wallTime; c["ffmpeg_versions"] = row.ffmpegVersions; c["account_json"] = accountJSON
            c["duplicate_of"] = row.duplicateOf; c["thumbnail_sha256"] = row.thumbnailSHA256
        }
    }

    /// One asset's row.
    public struct Row: Codable, Sendable, Equatable {
        /// The asset's key, relative to its input (`BatchItem.key`).
        public var assetKey: String
        /// Every resource of the asset as it was when exported.
        public var sources: [SourceRecord]
        /// A digest of `sources` that tells whether the asset changed since.
        public var sourceFingerprint: String
        /// The preset's name.
        public var presetName: String
        /// A digest of the preset and the options that change the output: a different one means the asset is done again.
        public var presetHash: String
        /// The asset version asked for (`current` or `original`).
        public var versionRequested: String
        /// The version actually delivered; nil when nothing was.
        public var versionDelivered: String?
        /// The planned action (`transcode`, `remux`, `copy`).
        public var action: String
        /// The route that made the output (`fallbacks` says whether it was a fallback). Nil when nothing was delivered.
        public var route: String?
        /// How many fallbacks were taken.
        public var fallbacks: Int
        /// The output file's path; nil when there is none.
        public var outputPath: String?
        /// Bytes of the output; nil when there is none.
        public var outputSize: Int64?
        /// SHA-256 of the output file, hex; nil when there is none.
        public var outputSHA256: String?
        /// `running`, `completed`, `failed`, `cancelled`.
        public var status: String
        /// Why the export failed; nil otherwise.
        public var error: String?
        /// When the export started, seconds since 1970.
        public var startedAt: Double?
        /// When the export finished, seconds since 1970.
        public var finishedAt: Double?
        /// Seconds the export took, wall clock.
        public var wallTime: Double?
        /// The FFmpeg library versions the export ran with.
        public var ffmpegVersions: String
        /// What was verified and what was dropped (schema 2; nil for rows of older runs and unfinished ones).
        public var account: ExportAccount? = nil
        /// The key of the asset whose output this one's is a hard link to (or copy of): the same content, version
        /// and settings (schema 3; nil otherwise).
        public var duplicateOf: String? = nil
        /// SHA-256 of the poster frame written next to the output (`--thumbnails`; schema 3), so a later run knows
        /// that file is its own; nil when none was written.
        public var thumbnailSHA256: String? = nil
    }

    /// A source resource as it was when exported.
    public struct SourceRecord: Codable, Sendable, Equatable {
        /// The resource's path.
        public var path: String
        /// Its size in bytes.
        public var size: Int64
        /// Its modification time, seconds since 1970.
        public var modified: Double
        /// SHA-256 of its contents, hex.
        public var sha256: String
    }

    // MARK: Reading and writing

    /// All rows by asset key.
    public func rows() throws -> [String: Row] {
        guard hasAssetsTable else { return [:] }
        do {
            let records = try queue.read { db in try AssetRecord.fetchAll(db) }
            var result: [String: Row] = [:]
            for record in records { result[record.row.assetKey] = record.row }
            return result
        } catch {
            throw Self.failure(path, "export database: read", error)
        }
    }

    /// Inserts or replaces a row, in its own (IMMEDIATE) transaction.
    public func upsert(_ row: Row) throws {
        let record = try AssetRecord(row)
        do {
            try queue.inTransaction(.immediate) { db in
                try record.insert(db, onConflict: .replace)
                return .commit
            }
        } catch {
            throw Self.failure(path, "export database: write", error)
        }
    }

    /// The settings of the runs that wrote here (settings hash → the settings as JSON text, `BatchPlanner.settingsRecord`),
    /// so that a rerun with other settings says which changed.
    public func settings() throws -> [String: String] {
        do {
            let records = try queue.read { db in try MetaRecord.filter(sql: "key LIKE 'settings:%'").fetchAll(db) }
            return Dictionary(records.map { (String($0.key.dropFirst("settings:".count)), $0.value) }, uniquingKeysWith: { a, _ in a })
        } catch {
            throw Self.failure(path, "export database: read", error)
        }
    }

    /// Records the settings of hash `hash` (kept when already there).
    public func recordSettings(_ hash: String, json: String) throws {
        do {
            try queue.inTransaction(.immediate) { db in
                try MetaRecord(key: "settings:" + hash, value: json).insert(db, onConflict: .ignore)
                return .commit
            }
        } catch {
            throw Self.failure(path, "export database: write", error)
        }
    }

    /// The assets acknowledged with `--accept` (key → when, seconds since 1970).
    public func accepted() throws -> [String: Double] {
        do {
            return try queue.read { db in
                guard try db.tableExists("accepted") else { return [:] }
                let rows = try GRDB.Row.fetchAll(db, sql: "SELECT asset_key, accepted_at FROM accepted")
                return Dictionary(rows.map { ($0["asset_key"] as String, $0["accepted_at"] as Double) }, uniquingKeysWith: { a, _ in a })
            }
        } catch {
            throw Self.failure(path, "export database: read", error)
        }
    }

    /// Records `key` as acknowledged at `time` (kept when it already was).
    public func accept(_ key: String, at time: Double) throws {
        do {
            try queue.inTransaction(.immediate) { db in
                try db.execute(sql: "INSERT OR IGNORE INTO accepted(asset_key, accepted_at) VALUES (?, ?)", arguments: [key, time])
                return .commit
            }
        } catch {
            throw Self.failure(path, "export database: write", error)
        }
    }

    /// An SQLite error as the batch reports it: the output is refused (`outputUnwritable`), with SQLite's message.
    private static func failure(_ path: String, _ what: String, _ error: any Error) -> ExportError {
        let message = (error as? DatabaseError).map { $0.message ?? "\($0.resultCode)" } ?? "\(error)"
        return .outputUnwritable(path: FileName.display(path), reason: "\(what): \(message)")
    }
}
