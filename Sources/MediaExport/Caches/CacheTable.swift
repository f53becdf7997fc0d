import Foundation
import GRDB
import MediaExportFFmpeg

/// One table of rows by key in a SQLite file of the user's cache folder, shared by the processes and threads of
/// several batches (a busy timeout, not a lock of ours). At most `capacity` rows are kept, the oldest written going
/// first. A cache is never a reason to fail: what cannot be opened is nil, and what cannot be written is not kept.
final class CacheTable: Sendable {
    private let queue: DatabaseQueue
    private let table: String
    private let capacity: Int

    /// `file` in the default place: `$XDG_CACHE_HOME/mediaexport/`, else `$HOME/.cache/mediaexport/`; nil without either.
    static func defaultPath(_ file: String) -> String? {
        let env = ProcessInfo.processInfo.environment
        let cache = env["XDG_CACHE_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? env["HOME"].map { $0 + "/.cache" }
        return cache.map { $0 + "/mediaexport/" + file }
    }

    /// Opens (creating it and its folder when `create`) the file at `path` with `table(key TEXT PRIMARY KEY,
    /// columns)`; nil when it cannot be.
    init?(path: String, create: Bool, table: String, columns: String, capacity: Int) {
        if !create && !FileSystem.exists(path) { return nil }
        if create { try? FileManager.default.createDirectory(atPath: PathName.directory(path), withIntermediateDirectories: true) }
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        configuration.label = "mediaexport." + table
        guard let queue = try? DatabaseQueue(path: path, configuration: configuration) else { return nil }
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: "CREATE TABLE IF NOT EXISTS \(table)(key TEXT PRIMARY KEY, \(columns))")
        }
        // Two processes opening a new file at once can both find "v1" not applied; the second to write it fails,
        // and a second try finds it applied.
        guard (try? migrator.migrate(queue)) != nil || (try? migrator.migrate(queue)) != nil else { return nil }
        (self.queue, self.table, self.capacity) = (queue, table, capacity)
    }

    /// The row kept under `key`, if any.
    func row(_ key: String) -> Row? {
        try? queue.read { db in try Row.fetchOne(db, sql: "SELECT * FROM \(table) WHERE key = ?", arguments: [key]) }
    }

    /// Keeps `values` (column, value) under `key`, replacing what was there, and drops the oldest beyond `capacity`.
    func keep(_ key: String, _ values: [(column: String, value: any DatabaseValueConvertible)]) {
        let columns = (["key"] + values.map(\.column)).joined(separator: ", ")
        let marks = Array(repeating: "?", count: values.count + 1).joined(separator: ", ")
        let list: [(any DatabaseValueConvertible)?] = [key] + values.map(\.value)
        let arguments = StatementArguments(list)
        try? queue.inTransaction(.immediate) { db in
            try db.execute(sql: "DELETE FROM \(table) WHERE key = ?", arguments: [key])
            try db.execute(sql: "INSERT INTO \(table)(\(columns)) VALUES (\(marks))", arguments: arguments)
            try db.execute(sql: "DELETE FROM \(table) WHERE rowid <= (SELECT max(rowid) FROM \(table)) - ?", arguments: [capacity])
            return .commit
        }
    }
}
