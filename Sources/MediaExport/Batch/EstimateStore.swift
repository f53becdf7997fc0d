import Foundation
import GRDB
import MediaExportCore
import MediaExportFFmpeg

/// The size estimates a batch's dry run measured on samples (`batch --dry-run`), kept so that the run that follows
/// shows the same number for the same asset and settings — the `planned` record, the report's `estimatedBytes` and
/// `estimateMethod` — instead of a guess from the CRF. A run without one (no dry run before, or the asset or the
/// settings changed since) reports the guess and says so (`estimateMethod: "guess"`).
///
/// It lives in the user's cache folder (`BatchOptions.estimateStore`: `$XDG_CACHE_HOME/mediaexport/estimates.sqlite`,
/// else `~/.cache/mediaexport/estimates.sqlite`), not in the output folder: a dry run writes nothing there (not the
/// folder, not the export database, which it reads read-only) and runs beside a batch. An estimate is keyed by the
/// asset's files (path, size, modification time: a changed file is another asset) and the run's settings hash;
/// no time is stored. At most `capacity` estimates are kept, the oldest written going first.
final class EstimateStore: Sendable {
    private let table: CacheTable
    /// The most estimates kept.
    static let capacity = 100_000

    /// The default place: `$XDG_CACHE_HOME/mediaexport/estimates.sqlite`, else under `$HOME/.cache`; nil without either.
    static var defaultPath: String? { CacheTable.defaultPath("estimates.sqlite") }

    /// Opens (creating it and its folder when `create`) the store at `path`; nil when it cannot be (a cache is
    /// never a reason for a batch to fail).
    init?(path: String, create: Bool) {
        guard let table = CacheTable(path: path, create: create, table: "estimates",
                                     columns: "bytes INTEGER NOT NULL, method TEXT NOT NULL", capacity: Self.capacity) else { return nil }
        self.table = table
    }

    /// The key of `item` under `settings` (the batch's settings hash and the version asked): its files' paths, sizes
    /// and modification times (`FileIdentity`); nil when one of them cannot be read.
    static func key(_ item: BatchItem, settings: String) -> String? {
        FileIdentity.fingerprint(paths: [item.input] + item.resources.filter({ $0 != item.input }), settings: settings)
    }

    /// The estimate kept under `key`, if any.
    func estimate(_ key: String) -> (bytes: Int64, method: OutputSize.EstimateMethod)? {
        guard let row = table.row(key), let method = OutputSize.EstimateMethod(rawValue: row["method"] as String) else { return nil }
        return (row["bytes"] as Int64, method)
    }

    /// Keeps `bytes` (made by `method`) under `key`, replacing what was there, and drops the oldest beyond `capacity`.
    func keep(_ key: String, bytes: Int64, method: OutputSize.EstimateMethod) {
        table.keep(key, [("bytes", bytes), ("method", method.rawValue)])
    }

    /// One estimate for an asset whatever shows it: a dry run keeps its sampled estimates (`EstimateStore`), and a run
    /// shows the one kept for the same files and settings instead of its guess.
    static func share(_ items: inout [BatchItem], options: BatchOptions) {
        let samples = OutputSize.EstimateMethod.samples.rawValue
        let measured = items.contains { $0.estimateMethod == samples }
        guard let path = options.estimateStore, let store = EstimateStore(path: path, create: options.dryRun && measured) else { return }
        let settings = options.settingsHash + "|" + options.version.rawValue
        for i in items.indices where items[i].route == .transcode || items[i].route == .salvage {
            guard let bytes = items[i].estimatedBytes, let key = EstimateStore.key(items[i], settings: settings) else { continue }
            if options.dryRun {
                if items[i].estimateMethod == samples { store.keep(key, bytes: bytes, method: .samples) }
            } else if items[i].estimateMethod != samples, let kept = store.estimate(key) {
                (items[i].estimatedBytes, items[i].estimateMethod) = (kept.bytes, kept.method.rawValue)
            }
        }
    }
}
