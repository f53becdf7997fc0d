import Foundation
import Testing
@testable import MediaExport
@testable import MediaExportCore
@testable import MediaExportFFmpeg

/// Issue 29, items 1 and 6: paths the way uploads and people write them. One-letter names, relative or absolute
/// (NSString's `deletingLastPathComponent` trapped on them: exit 132), a tree deeper than `PATH_MAX`, and an upload
/// name of 255 bytes whose output name would not fit.
@Suite("Hardening: paths") struct HardeningPathTests {
    /// Runs the tool in `dir` as the current folder, through `/bin/sh` (`TestSupport.run` takes no working folder).
    private static func tool(in dir: String, _ arguments: [String]) throws -> TestSupport.RunResult {
        let words = ([TestSupport.binary] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        return try TestSupport.run("/bin/sh", ["-c", "cd '\(dir)' && exec " + words.joined(separator: " ")])
    }

    /// `dir/name` holding `landscape.mov`, a one-letter movie `v` (no extension) and a one-letter text file `x`.
    private static func uploads(_ dir: URL, _ name: String) throws -> String {
        let up = dir.appendingPathComponent(name).path
        try FileManager.default.createDirectory(atPath: up, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: TestSupport.fixture("landscape.mov"), toPath: up + "/landscape.mov")
        try FileManager.default.copyItem(atPath: TestSupport.fixture("odd-322x242.mov"), toPath: up + "/v")
        try "hi\n".write(toFile: up + "/x", atomically: false, encoding: .utf8)
        return up
    }

    private static func expectExported(_ out: String, report: String) throws {
        #expect(FileSystem.isRegularFile(out + "/landscape.mp4"))
        #expect(FileSystem.isRegularFile(out + "/v.mp4"), "a one-letter movie is exported under its own name")
        let document = try BatchReport.readDocument(report)
        #expect(document.rows.map(\.key).sorted() == ["landscape.mov", "v"])
        #expect(document.rows.allSatisfy { $0.status == "exported" })
        #expect(document.ignored.map { PathName.lastComponent($0.path) } == ["x"], "the one-letter text file is said, not dropped")
    }

    @Test("relative one-letter upload folder, --out and --report: exit 0, the work done")
    func relativeOneLetterNames() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        _ = try Self.uploads(dir, "u")
        let r = try Self.tool(in: dir.path, ["batch", "u", "--out", "o", "--report", "r", "--preset", "low", "--jobs", "1", "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        try Self.expectExported(dir.path + "/o", report: dir.path + "/r")
    }

    @Test("the issue's own case: `batch up --out ready` with a one-letter file in `up`")
    func issueReproduction() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        _ = try Self.uploads(dir, "up")
        let r = try Self.tool(in: dir.path, ["batch", "up", "--out", "ready", "--preset", "low", "--jobs", "1", "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(FileSystem.isRegularFile(dir.path + "/ready/v.mp4"))
    }

    @Test("absolute one-letter upload folder, --out and --report: exit 0, the work done")
    func absoluteOneLetterNames() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let up = try Self.uploads(dir, "u")
        let out = dir.path + "/o", report = dir.path + "/r"
        let r = try TestSupport.tool(["batch", up, "--out", out, "--report", report, "--preset", "low", "--jobs", "1", "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        try Self.expectExported(out, report: report)
    }

    @Test("report merge A B --out r, relative and absolute: exit 0, every row merged")
    func mergeToOneLetterReport() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        _ = try Self.uploads(dir, "u")
        try FileManager.default.createDirectory(atPath: dir.path + "/w", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: TestSupport.fixture("odd-322x242.mov"), toPath: dir.path + "/w/odd.mov")
        for (input, report) in [("u", "A"), ("w", "B")] {
            let r = try Self.tool(in: dir.path, ["batch", input, "--out", "o", "--dry-run", "--report", report, "--preset", "low", "--quiet"])
            #expect(r.status == 0, "\(r.stderr)")
        }
        let relative = try Self.tool(in: dir.path, ["report", "merge", "A", "B", "--out", "r"])
        #expect(relative.status == 0, "\(relative.stderr)")
        #expect(try BatchReport.readDocument(dir.path + "/r").rows.map(\.key).sorted() == ["landscape.mov", "odd.mov", "v"])
        let absolute = try TestSupport.tool(["report", "merge", dir.path + "/A", dir.path + "/B", "--out", dir.path + "/m"])
        #expect(absolute.status == 0, "\(absolute.stderr)")
        #expect(try BatchReport.readDocument(dir.path + "/m").rows.count == 3)
    }

    @Test("a file below PATH_MAX is planned; the folder past it is in `ignored` with its reason")
    func deeperThanPathMax() async throws {
        let dir = TestSupport.tempDir()
        defer { _ = try? TestSupport.run("/bin/rm", ["-rf", dir.path]) }
        let up = dir.path + "/up"
        try FileManager.default.createDirectory(atPath: up, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: TestSupport.fixture("landscape.mov"), toPath: up + "/top.mov")
        // 20 folders of 250 bytes: past 4096 bytes by the 17th. Made relative to a folder descriptor, as no path can name them.
        var fd = open(up, O_RDONLY | O_DIRECTORY)
        for _ in 0..<20 {
            #expect(mkdirat(fd, String(repeating: "d", count: 250), 0o755) == 0)
            let next = openat(fd, String(repeating: "d", count: 250), O_RDONLY | O_DIRECTORY)
            close(fd)
            fd = next
        }
        let movie = try Data(contentsOf: URL(fileURLWithPath: TestSupport.fixture("landscape.mov")))
        let file = openat(fd, "deep.mov", O_WRONLY | O_CREAT | O_EXCL, 0o644)
        #expect(file >= 0 && movie.withUnsafeBytes { write(file, $0.baseAddress, $0.count) } == movie.count)
        close(file)
        close(fd)
        let result = try await BatchRunner(options: BatchOptions(inputs: [up], outputDirectory: dir.path + "/o",
                                                                 preset: try TestSupport.preset("low"), dryRun: true)).run()
        #expect(result.rows.map(\.key) == ["top.mov"])
        let tooLong = result.ignored.filter { $0.kind == .pathTooLong }
        #expect(tooLong.count == 1, "\(result.ignored)")
        if let entry = tooLong.first {
            #expect(FileName.bytes(entry.path).count >= Int(PATH_MAX))
            #expect(FileName.bytes(PathName.directory(entry.path)).count < Int(PATH_MAX), "the first entry past the limit, not deeper")
            #expect(entry.reason.contains("PATH_MAX"))
        }
        #expect(result.notes.contains { $0.contains("longer than PATH_MAX") })
    }

    @Test("255-byte upload names: outputs shortened within 255 bytes, kept apart, .mp4 kept, said on the row")
    func longUploadNames() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let up = dir.path + "/up"
        try FileManager.default.createDirectory(atPath: up, withIntermediateDirectories: true)
        let first = String(repeating: "b", count: 255), second = String(repeating: "b", count: 254) + "c"
        let third = String(repeating: "é", count: 125) + ".mov"  // 254 bytes: its output fits and is left alone
        for n in [first, second] { try FileManager.default.copyItem(atPath: TestSupport.fixture("landscape.mov"), toPath: up + "/" + n) }
        try FileManager.default.copyItem(atPath: TestSupport.fixture("odd-322x242.mov"), toPath: up + "/" + third)
        let out = dir.path + "/o", report = dir.path + "/r.json"
        let r = try TestSupport.tool(["batch", up, "--out", out, "--report", report, "--preset", "low", "--jobs", "1", "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        let rows = try BatchReport.read(report)
        // The two b… uploads are the same bytes: one is exported, the other is its duplicate (issue 31).
        #expect(rows.count == 3 && rows.allSatisfy { ["exported", "duplicate"].contains($0.status) }, "\(rows.map { ($0.key.prefix(8), $0.status, $0.error) })")
        let outputs = rows.compactMap(\.output)
        #expect(Set(outputs).count == 3, "two names that differ only at the end stay two outputs")
        for row in rows {
            let name = PathName.lastComponent(row.output ?? "")
            #expect(name.utf8.count <= 255 && name.hasSuffix(".mp4"))
            #expect(FileSystem.isRegularFile(row.output ?? ""))
            let long = row.key != third
            #expect(row.reason.contains("output name shortened") == long, "\(row.reason)")
            #expect(name.hasPrefix(String(repeating: "b", count: 200)) || !long)
        }
        #expect(FileSystem.isRegularFile(out + "/" + String(repeating: "é", count: 125) + ".mp4"))
    }
}
