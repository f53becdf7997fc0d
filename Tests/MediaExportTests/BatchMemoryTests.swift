import Foundation
import Testing
@testable import MediaExport
@testable import MediaExportFFmpeg

/// Batch memory: a job asks the run's hash cache for its own files only, and hashes each file once.
@Suite struct BatchMemoryTests {
    /// A job's sources through the shared cache are those of the whole-dictionary path, and the cache keeps the
    /// first hash stored for a key.
    @Test func jobSourcesAskTheCacheForTheirOwnFilesOnly() throws {
        let dir = TestSupport.tempDir()
        let clip = dir.appendingPathComponent("clip.mov").path
        try FileManager.default.copyItem(atPath: TestSupport.fixture("landscape.mov"), toPath: clip)
        let item = BatchItem(key: "clip.mov", input: clip, resources: [clip], output: "", route: .transcode, reason: "",
                             duration: nil, sourceBytes: 0, estimatedBytes: nil, created: 0)
        var dictionary: [String: String] = [:]
        let expected = try BatchPlanner.sources(of: item, cached: { dictionary[$0] }, store: { dictionary[$0] = $1 })

        let cache = HashCache(["unrelated|1|2.0": "beef"])
        var asked: [String] = []
        let first = try BatchPlanner.sources(of: item, cached: { asked.append($0); return cache.hash($0) }, store: cache.store(_:_:))
        #expect(first == expected)
        #expect(asked == Array(dictionary.keys))
        // Stored once: a second job finds it, and a later store does not replace it.
        cache.store(asked[0], "other")
        #expect(cache.hash(asked[0]) == expected[0].sha256)
        #expect(cache.hash("unrelated|1|2.0") == "beef")
    }

    /// Giving freed memory back is safe at any point (the planner calls it after every asset, each job after its export).
    @Test func releasingFreedMemoryKeepsLiveMemory() {
        let kept = (0..<10_000).map { "value \($0)" }
        FreedMemory.release()
        #expect(kept[9_999] == "value 9999")
    }
}
