import Foundation
import Testing
@testable import MediaExport
@testable import MediaExportCore
@testable import MediaExportFFmpeg

/// Issue 46: outputs shaped for the uploader: `--container`, `--name` templates, and where a byte copy of another
/// container goes (`--fallback-container`).
@Suite struct BatchShapeTests {
    /// uploads/landscape.mov, uploads/trip/landscape.mov, and uploads/trip/sample.ts: a file no route but a byte copy
    /// delivers (its video has no decoder; `--fallback copy`).
    static func folder() throws -> URL {
        let dir = try BatchStateTests.folder()
        let trip = dir.appendingPathComponent("uploads/trip")
        try FileManager.default.createDirectory(at: trip, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: TestSupport.fixture("landscape.mov"), toPath: trip.appendingPathComponent("landscape.mov").path)
        try FileManager.default.copyItem(atPath: TestSupport.fixture("bad/no-decoder.mp4"), toPath: trip.appendingPathComponent("sample.ts").path)
        return dir
    }

    static func files(_ dir: URL) -> [String] {
        let out = dir.appendingPathComponent("out").path
        return ((FileManager.default.enumerator(atPath: out)?.allObjects as? [String]) ?? [])
            .filter { !$0.hasPrefix(".") && !FileSystem.isDirectory(out + "/" + $0) }.sorted()
    }

    @Test func containerAndNameTemplateShapeEveryOutputAndRerunsAreUnchanged() async throws {
        let dir = try Self.folder()
        defer { TestSupport.cleanup(dir) }
        let shaped = { (o: inout BatchOptions) in
            (o.container, o.name, o.fallback) = (.mkv, try? BatchNameTemplate("{stem}_web.{ext}"), .copy)
        }
        let (result, _) = try await BatchTests.run(try BatchStateTests.options(dir, shaped))
        #expect(Self.files(dir) == ["landscape_web.mkv", "trip/fallback/sample_web.ts", "trip/landscape_web.mkv"], "\(Self.files(dir))")
        let rows = Dictionary(uniqueKeysWithValues: result.rows.map { ($0.key, $0) })
        #expect(rows["trip/sample.ts"]?.account?.warnings.contains { $0.contains("placed in fallback/") } == true, "\(rows["trip/sample.ts"].map { "\($0)" } ?? "")")
        let info = try MediaFileProbe.probe(path: dir.appendingPathComponent("out/landscape_web.mkv").path)
        #expect(info.format?.formatName.contains("matroska") == true)
        // The same options again: nothing to do.
        let (rerun, _) = try await BatchTests.run(try BatchStateTests.options(dir, shaped))
        #expect(rerun.rows.allSatisfy { $0.status == BatchRowStatus.unchanged }, "\(rerun.rows.map { ($0.key, $0.status, $0.reason) })")
        // Another container: another settings hash, so every asset is exported again.
        let mkv = try BatchStateTests.options(dir, shaped).settingsHash
        #expect(mkv != (try BatchStateTests.options(dir) { shaped(&$0); $0.container = .mp4 }.settingsHash))
    }

    @Test func theFallbackContainerKeepsOrFailsTheCopy() async throws {
        let dir = try Self.folder()
        defer { TestSupport.cleanup(dir) }
        let (kept, _) = try await BatchTests.run(try BatchStateTests.options(dir) { ($0.fallback, $0.fallbackContainer) = (.copy, .keep) })
        #expect(Self.files(dir) == ["landscape.mp4", "trip/landscape.mp4", "trip/sample.ts"], "\(Self.files(dir))")
        #expect(kept.rows.first { $0.key == "trip/sample.ts" }?.status == "exported")
        // The default now: the kept copy is not where the options put it, so it is made again under fallback/.
        let (folder, _) = try await BatchTests.run(try BatchStateTests.options(dir) { $0.fallback = .copy })
        #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("out/trip/fallback/sample.ts").path))
        #expect(folder.rows.first { $0.key == "trip/sample.ts" }?.reason.contains("output path changed") == true)
        let (failing, _) = try await BatchTests.run(try BatchStateTests.options(dir) {
            ($0.fallback, $0.fallbackContainer, $0.outputDirectory) = (.copy, .fail, dir.appendingPathComponent("out2").path)
        })
        let row = failing.rows.first { $0.key == "trip/sample.ts" }
        #expect(row?.status == "failed" && row?.error?.contains("--fallback-container fail") == true, "\(row.map { "\($0)" } ?? "")")
        let left = (FileManager.default.enumerator(atPath: dir.appendingPathComponent("out2").path)?.allObjects as? [String]) ?? []
        #expect(!left.contains { $0.hasSuffix(".ts") }, "\(left)")
    }

    @Test func aTemplateThatGivesTwoAssetsOneNameKeepsBoth() async throws {
        let dir = try Self.folder()
        defer { TestSupport.cleanup(dir) }
        let (result, _) = try await BatchTests.run(try BatchStateTests.options(dir) { $0.name = try? BatchNameTemplate("web/{stem}.{ext}") })
        #expect(Self.files(dir).filter { $0.hasPrefix("web/landscape") } == ["web/landscape-2.mp4", "web/landscape.mp4"], "\(Self.files(dir))")
        #expect(result.rows.contains { $0.reason.contains("another asset's output: named landscape-2.mp4") }, "\(result.rows.map(\.reason))")
        let sha8 = try BatchNameTemplate("{sha8}-{preset}.{ext}")
        let (hashed, _) = try await BatchTests.run(try BatchStateTests.options(dir) {
            ($0.name, $0.outputDirectory, $0.include) = (sha8, dir.appendingPathComponent("out3").path, ["landscape.mov"])
        })
        let sha = try SHA256Hasher.file(TestSupport.fixture("landscape.mov")).prefix(8)
        #expect(hashed.rows.first?.output?.hasSuffix("/\(sha)-low.mp4") == true, "\(hashed.rows.map { $0.output ?? "" })")
    }

    @Test func badTemplatesAreUsageErrors() throws {
        for bad in ["{nope}.{ext}", "{stem}.mp4", "{stem", "/abs/{stem}.{ext}", "../{stem}.{ext}", "a/./{stem}.{ext}", ".{ext}"] {
            #expect(throws: ExportError.self, "\(bad)") { try BatchNameTemplate(bad) }
            let r = try TestSupport.tool(["batch", TestSupport.fixture("landscape.mov"), "--out", TestSupport.tempDir().path, "--name", bad])
            #expect(r.status == 64 && r.stderr.split(separator: "\n").count == 1, "\(bad): \(r.status) \(r.stderr)")
        }
        let hint = try TestSupport.tool(["batch", TestSupport.fixture("landscape.mov"), "--out", "x", "--ext", "webm"])
        #expect(hint.status == 64 && hint.stderr.contains("--container webm"), "\(hint.stderr)")
    }

    @Test func theDefaultNamingAndHashAreUnchanged() throws {
        var o = BatchOptions(inputs: [], outputDirectory: "", preset: try TestSupport.preset("low"))
        let plain = o.settingsHash
        #expect(plain == BatchPlanner.presetHash(o.preset))
        o.container = Container(extension: o.preset.defaultExtension)
        #expect(o.settingsHash == plain)
        #expect(CopyPlacement.subfolder("fallback").path(output: "/o/a/clip.mp4", copyExtension: "mp4") == "/o/a/clip.mp4")
        #expect(CopyPlacement.subfolder("fallback").path(output: "/o/a/clip.mp4", copyExtension: "ts") == "/o/a/fallback/clip.ts")
        #expect(CopyPlacement.refuse.path(output: "clip.mp4", copyExtension: "ts") == nil)
    }

    @Test func theDoneExampleWritesWebM() throws {
        let dir = try Self.folder()
        defer { TestSupport.cleanup(dir) }
        let r = try TestSupport.tool(["batch", dir.appendingPathComponent("uploads").path, "--out", dir.appendingPathComponent("out").path,
                                      "--container", "webm", "--preset", "av1-1280x720", "--name", "{stem}_web.{ext}", "--fallback", "copy", "-q"])
        #expect(r.status == 3, "\(r.stderr)")  // the byte copy is a fallback
        #expect(Self.files(dir) == ["landscape_web.webm", "trip/fallback/sample_web.ts", "trip/landscape_web.webm"], "\(Self.files(dir))")
    }
}
