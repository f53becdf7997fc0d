import Foundation
import Testing
@testable import MediaExport
@testable import MediaExportCore
@testable import MediaExportFFmpeg

/// Issue 47: the CRF searches are kept (`SearchCache`) so that a rerun of the same export does not search again —
/// keyed by the asset's files and the settings, in the user's cache folder (here a temporary one), never a reason to fail.
@Suite("SearchCache: CRF searches kept by files and settings") struct SearchCacheTests {
    struct Found: Codable, Equatable {
        var crf: Double
        var probes: [[Double]]
        var windows: Int
        var note: String?
    }

    static let found = Found(crf: 29.5, probes: [[18, 0.9923], [24, 0.985]], windows: 4, note: "é ✓")

    /// A folder with one file `clip.mov` of `bytes` bytes, and a cache path inside a folder not made yet.
    static func setUp(_ label: String = #function) throws -> (dir: URL, clip: String, cache: String) {
        let dir = TestSupport.tempDir(label)
        let clip = dir.appendingPathComponent("clip.mov").path
        try Data(repeating: 7, count: 1000).write(to: URL(fileURLWithPath: clip))
        return (dir, clip, dir.appendingPathComponent("cache/mediaexport/quality.sqlite").path)
    }

    @Test func aKeptSearchComesBackAndAMissingOneIsNil() throws {
        let (dir, clip, path) = try Self.setUp()
        defer { TestSupport.cleanup(dir) }
        let cache = try #require(SearchCache(path: path))
        #expect(FileManager.default.fileExists(atPath: path), "the folder and the database are made")
        let key = try #require(SearchCache.key(files: [clip], settings: "libx264|ssim|0.97|q1"))
        #expect(cache.value(Found.self, for: key) == nil)
        cache.keep(Self.found, for: key)
        #expect(cache.value(Found.self, for: key) == Self.found)
        #expect(SearchCache(path: path)?.value(Found.self, for: key) == Self.found, "another opening reads it too")
        #expect(cache.value(Int.self, for: key) == nil, "what does not decode is absent")
        cache.keep(Found(crf: 31, probes: [], windows: 1), for: key)
        #expect(cache.value(Found.self, for: key)?.crf == 31, "a keep replaces")
    }

    @Test func theKeyChangesWithTheFilesAndTheSettings() throws {
        let (dir, clip, _) = try Self.setUp()
        defer { TestSupport.cleanup(dir) }
        let settings = "libx264|crf-less options|ssim|0.97|12...40|q1"
        let first = try #require(SearchCache.key(files: [clip], settings: settings))
        #expect(SearchCache.key(files: [clip], settings: settings) == first, "the same files and settings: the same key")
        #expect(SearchCache.key(files: [clip], settings: settings.replacingOccurrences(of: "0.97", with: "0.98")) != first)
        #expect(SearchCache.key(files: [clip, clip], settings: settings) != first, "another list of files")
        #expect(SearchCache.key(files: [clip + ".missing"], settings: settings) == nil, "a file that cannot be read: no key")

        let old = Date(timeIntervalSince1970: 1_700_000_000)
        try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: clip)
        let touched = try #require(SearchCache.key(files: [clip], settings: settings))
        #expect(touched != first, "another modification time: another asset")
        try Data(repeating: 7, count: 1001).write(to: URL(fileURLWithPath: clip))
        try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: clip)
        let grown = try #require(SearchCache.key(files: [clip], settings: settings))
        #expect(grown != touched, "the same time but another size: another asset")
    }

    /// The estimates of a dry run are keyed as before the identity was shared: a store written by an older build
    /// still answers.
    @Test func estimateStoreKeysAreUnchanged() throws {
        let (dir, clip, _) = try Self.setUp()
        defer { TestSupport.cleanup(dir) }
        let sidecar = dir.appendingPathComponent("clip.aae").path
        try Data("aae".utf8).write(to: URL(fileURLWithPath: sidecar))
        let item = BatchItem(key: "clip.mov", input: clip, resources: [sidecar, clip], output: "", route: .transcode, reason: "",
                             duration: nil, sourceBytes: 0, estimatedBytes: nil, created: 0)
        var text = "hash|v\n"
        for path in [clip, sidecar] {
            let st = try #require(FileSystem.stat(path))
            text += "\(path)|\(st.st_size)|\(st.st_mtim.tv_sec).\(st.st_mtim.tv_nsec)\n"
        }
        let hasher = SHA256Hasher()
        Data(text.utf8).withUnsafeBytes { hasher.update($0) }
        #expect(EstimateStore.key(item, settings: "hash|v") == hasher.finish())
    }

    @Test func theOldestGoBeyondTheCapacity() throws {
        let (dir, _, path) = try Self.setUp()
        defer { TestSupport.cleanup(dir) }
        let cache = try #require(SearchCache(path: path, capacity: 3))
        for i in 1...5 { cache.keep(i, for: "k\(i)") }
        #expect((1...5).map { cache.value(Int.self, for: "k\($0)") } == [nil, nil, 3, 4, 5])
        cache.keep(33, for: "k3")
        cache.keep(6, for: "k6")
        #expect((3...6).map { cache.value(Int.self, for: "k\($0)") } == [33, nil, 5, 6], "a replaced search is new again")
        #expect(SearchCache.capacity == 100_000)
    }

    @Test func aPlaceThatCannotBeWrittenIsNoCache() throws {
        let (dir, clip, _) = try Self.setUp()
        defer { TestSupport.cleanup(dir) }
        #expect(SearchCache(path: clip + "/quality.sqlite") == nil, "a folder that is a file")
        let notDatabase = dir.appendingPathComponent("not.sqlite").path
        try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: notDatabase))
        #expect(SearchCache(path: notDatabase) == nil, "a file that is not a database")
        if let path = SearchCache.defaultPath { #expect(path.hasSuffix("/mediaexport/quality.sqlite")) }
    }

    /// Several batch jobs at once, each with its own opening of the file (as processes are) or sharing one: no keep is
    /// lost and the database stays readable.
    @Test func concurrentKeepsAreAllKept() async throws {
        let (dir, _, path) = try Self.setUp()
        defer { TestSupport.cleanup(dir) }
        let shared = try #require(SearchCache(path: path))
        let failures = await withTaskGroup(of: Int.self) { group in
            for job in 0..<8 {
                group.addTask {
                    guard let cache = job % 2 == 0 ? SearchCache(path: path) : shared else { return 1 }
                    var failed = 0
                    for i in 0..<25 {
                        let value = Found(crf: Double(i), probes: [[Double(job)]], windows: job, note: nil)
                        cache.keep(value, for: "job\(job)-\(i)")
                        if cache.value(Found.self, for: "job\(job)-\(i)") != value { failed += 1 }
                    }
                    return failed
                }
            }
            return await group.reduce(0, +)
        }
        #expect(failures == 0)
        let reopened = try #require(SearchCache(path: path))
        var kept = 0
        for job in 0..<8 {
            for i in 0..<25 where reopened.value(Found.self, for: "job\(job)-\(i)")?.windows == job { kept += 1 }
        }
        #expect(kept == 200)
    }
}
