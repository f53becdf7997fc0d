import Foundation
import GRDB

/// The CRF searches of `--quality` kept, so that a rerun of the same export — a retry, a batch run after its dry
/// run, another batch over the same uploads — takes the CRF found before instead of searching again.
///
/// It lives in the user's cache folder (`defaultPath`: `$XDG_CACHE_HOME/mediaexport/quality.sqlite`, else
/// `~/.cache/mediaexport/quality.sqlite`), beside the batch's `estimates.sqlite`. A search is keyed by the asset's files
/// (path, size, modification time: a changed file is another asset) and the caller's settings text, and kept as JSON:
/// what the search found is the caller's type. At most `capacity` searches are kept, the oldest written going first;
/// the processes and threads of several batches may use it at once. Never a reason to fail: a cache that cannot be
/// opened is nil (no cache), a value that cannot be read is absent, and one that cannot be written is not kept.
final class SearchCache: Sendable {
    private let table: CacheTable
    /// The most searches kept.
    static let capacity = 100_000

    /// The default place: `$XDG_CACHE_HOME/mediaexport/quality.sqlite`, else under `$HOME/.cache`; nil without either.
    static var defaultPath: String? { CacheTable.defaultPath("quality.sqlite") }

    /// Opens the cache at `path`, creating it and its folder; nil when it cannot be. `capacity` is for tests.
    init?(path: String, capacity: Int = SearchCache.capacity) {
        guard let table = CacheTable(path: path, create: true, table: "searches", columns: "value TEXT NOT NULL",
                                     capacity: capacity) else { return nil }
        self.table = table
    }

    /// The key for an asset's `files` (path, size, modification time: `FileIdentity`) and `settings`, the caller's
    /// text of all that decides the search's result (encoder, options, filters, metric, target, bounds, library
    /// versions, the search's own version); nil when a file cannot be read.
    static func key(files: [String], settings: String) -> String? {
        FileIdentity.fingerprint(paths: files, settings: settings)
    }

    /// The value kept under `key`, decoded from JSON; nil when there is none or it does not decode as `type`.
    func value<T: Decodable>(_ type: T.Type, for key: String) -> T? {
        guard let text = table.row(key)?["value"] as String? else { return nil }
        return try? JSONDecoder().decode(type, from: Data(text.utf8))
    }

    /// Keeps `value` as JSON (sorted keys) under `key`, replacing what was there, and drops the oldest beyond the
    /// capacity; a value that does not encode is not kept.
    func keep<T: Encodable>(_ value: T, for key: String) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(value), let text = String(data: data, encoding: .utf8) else { return }
        table.keep(key, [("value", text)])
    }
}

extension ExportRequest {
    /// Where the command line keeps quality searches (`searchCache`): `$XDG_CACHE_HOME/mediaexport/quality.sqlite`,
    /// else under `$HOME/.cache`; nil without either.
    public static var defaultSearchCache: String? { SearchCache.defaultPath }
}
