import Foundation
import Testing
@testable import MediaExport
@testable import MediaExportCore
@testable import MediaExportFFmpeg
@testable import mediaexport

/// The bad-input corpus, the fallback chain, the decode-error policy, the stall watchdog and faults.
@Suite struct RobustnessTests {
    static let bad = TestSupport.fixtures.appendingPathComponent("bad")

    /// What must happen to each file of `Fixtures/bad/` (made by `Fixtures/make-bad-fixtures.sh`).
    struct Expectation: Sendable, CustomStringConvertible {
        var file: String
        var preset: String
        /// Exit code of the tool.
        var exit: Int32
        /// The final record's kind.
        var kind: String
        /// The route that delivered the output (completed only).
        var route: ExportRoute?
        /// The fallback steps, as "from>to".
        var fallbacks: [String]
        /// Files that must be in the output folder afterwards.
        var outputs: [String]
        /// Words the failure message must contain.
        var message: String?
        var description: String { file }
    }

    static let corpus: [Expectation] = [
        .init(file: "empty.mov", preset: "low", exit: ExitStatus.notMedia, kind: "failed", route: nil, fallbacks: [], outputs: [], message: "file is empty"),
        .init(file: "text.mov", preset: "low", exit: ExitStatus.notMedia, kind: "failed", route: nil, fallbacks: [], outputs: [], message: "moov atom not found"),
        .init(file: "cut-before-moov.mp4", preset: "low", exit: ExitStatus.notMedia, kind: "failed", route: nil, fallbacks: [], outputs: [], message: "moov atom not found"),
        .init(file: "cut-at-half.mp4", preset: "low", exit: ExitStatus.completedWithFallback, kind: "completed", route: .salvage,
              fallbacks: ["transcode>salvage"], outputs: ["out.mp4"], message: nil),
        // Damage goes to the salvage, never to a remux that would copy it unseen (issue 43).
        .init(file: "flipped-bytes.mp4", preset: "low", exit: ExitStatus.completedWithFallback, kind: "completed", route: .salvage,
              fallbacks: ["transcode>salvage"], outputs: ["out.mp4"], message: nil),
        .init(file: "no-decoder.mp4", preset: "low", exit: ExitStatus.completedWithFallback, kind: "completed", route: .copy,
              fallbacks: ["transcode>remux", "remux>copy"], outputs: ["out.mp4"], message: nil),
        .init(file: "huge-header.y4m", preset: "low", exit: ExitStatus.notMedia, kind: "failed", route: nil, fallbacks: [], outputs: [], message: "100000x100000"),
        .init(file: "audio-only.m4a", preset: "highest", exit: ExitStatus.success, kind: "completed", route: .transcode, fallbacks: [], outputs: ["out.mp4"], message: nil),
        .init(file: "clip with spaces – été.mov", preset: "low", exit: ExitStatus.success, kind: "completed", route: .transcode, fallbacks: [], outputs: ["out.mp4"], message: nil),
    ]

    @Test(arguments: corpus)
    func badInputHasItsDocumentedOutcome(_ e: Expectation) throws {
        let input = Self.bad.appendingPathComponent(e.file).path
        let before = try TestSupport.sha256(input)
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let r = try TestSupport.tool(["--json", "--preset", e.preset, input, dir.appendingPathComponent("out.mp4").path])
        #expect(r.status == e.exit, "\(e.file): \(r.stderr)")
        let records = r.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let finals = records.filter { ["completed", "failed", "cancelled"].contains($0["kind"] as? String ?? "") }
        #expect(finals.count == 1)
        let final = try #require(finals.last)
        #expect(final["kind"] as? String == e.kind)
        let payload = final["payload"] as? [String: Any] ?? [:]
        if let route = e.route { #expect(payload["route"] as? String == route.rawValue) }
        let fallbacks = (payload["fallbacks"] as? [[String: Any]] ?? []).map { "\($0["from"]!)>\($0["to"]!)" }
        #expect(fallbacks == e.fallbacks)
        let events = records.filter { $0["kind"] as? String == "fallback" }.map { r -> String in
            let p = r["payload"] as! [String: Any]
            return "\(p["from"]!)>\(p["to"]!)"
        }
        #expect(events == e.fallbacks, "each step is an event")
        if let m = e.message { #expect((payload["message"] as? String ?? "").contains(m), "\(payload)") }
        #expect(TestSupport.contents(dir) == e.outputs, "stray or missing files: \(TestSupport.contents(dir))")
        if e.route == .copy {
            let out = dir.appendingPathComponent("out.mp4").path
            #expect(try TestSupport.sha256(out) == before)
            #expect(payload["sha256"] as? String == before)
        } else if e.kind == "completed" {
            #expect(try FFprobe(dir.appendingPathComponent("out.mp4").path).streams.isEmpty == false)
        }
        #expect(try TestSupport.sha256(input) == before, "the input was modified")
    }

    @Test func byteCopyKeepsTheSourceExtension() throws {
        let dir = try AssetVersionTests.folder(["IMG_0300.MOV": Self.bad.appendingPathComponent("no-decoder.mp4").path])
        defer { TestSupport.cleanup(dir) }
        let out = dir.appendingPathComponent("out/export.mp4")
        try FileManager.default.createDirectory(at: out.deletingLastPathComponent(), withIntermediateDirectories: true)
        let done = try TestSupport.export(dir.appendingPathComponent("IMG_0300.MOV").path, to: out.path, preset: "low")
        #expect(done.route == .copy)
        #expect(done.output.hasSuffix("out/export.mov"), "asked for export.mp4, got \(done.output)")
        #expect(TestSupport.contents(out.deletingLastPathComponent()) == ["export.mov"])
    }

    @Test func fallbackPolicies() throws {
        let input = Self.bad.appendingPathComponent("no-decoder.mp4").path
        let flipped = Self.bad.appendingPathComponent("flipped-bytes.mp4").path
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        func run(_ args: [String]) throws -> (Int32, [String: Any]) {
            let r = try TestSupport.tool(["--json", "-y"] + args)
            let last = r.stdout.split(separator: "\n").last.map { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] } ?? nil
            return (r.status, last ?? [:])
        }
        let out = dir.appendingPathComponent("o.mp4").path
        var (code, record) = try run(["--fallback", "none", input, out])
        #expect(code == ExitStatus.exportFailed && record["kind"] as? String == "failed")
        #expect(((record["payload"] as? [String: Any])?["message"] as? String)?.contains("no decoder") == true)
        (code, record) = try run(["--fallback", "remux", input, out])
        #expect(code == ExitStatus.exportFailed, "remux alone cannot hold an unknown codec")
        // Damaged data (corrupt packets past the limit) is salvaged, unless `--damaged copy` asks for the copy.
        (code, record) = try run(["--fallback", "copy", flipped, out])
        #expect(code == ExitStatus.completedWithFallback && (record["payload"] as? [String: Any])?["route"] as? String == "salvage")
        (code, record) = try run(["--fallback", "copy", "--damaged", "copy", flipped, out])
        #expect(code == ExitStatus.completedWithFallback && (record["payload"] as? [String: Any])?["route"] as? String == "copy")
        #expect(TestSupport.contents(dir) == ["o.mp4"])
        // A raised threshold lets the transcode skip the corrupt packets and count them.
        (code, record) = try run(["--max-decode-errors", "10000", flipped, out])
        let payload = record["payload"] as? [String: Any] ?? [:]
        #expect(code == 0 && payload["route"] as? String == "transcode")
        #expect((payload["skippedPackets"] as? Int ?? 0) > 25)
        // Strict: the first corrupt packet ends the transcode.
        (code, record) = try run(["--strict", "--fallback", "none", flipped, out])
        #expect(code == ExitStatus.exportFailed)
        #expect(((record["payload"] as? [String: Any])?["message"] as? String)?.contains("strict") == true)
        (code, _) = try run(["--strict", TestSupport.fixture("landscape.mov"), out])
        #expect(code == 0, "a clean file passes strict mode")
    }

    @Test func requireCurrentForbidsAFallbackThatDropsTheEdits() throws {
        let dir = try AssetVersionTests.folder([
            "IMG_0400.MP4": Self.bad.appendingPathComponent("no-decoder.mp4").path,
            "IMG_0400.edit.json": #"{"formatVersion": 1, "trim": {"start": 0.5, "end": 1.5}}"#,
        ])
        defer { TestSupport.cleanup(dir) }
        let input = dir.appendingPathComponent("IMG_0400.MP4").path
        let out = dir.appendingPathComponent("out.mp4").path
        let (done, events) = try AssetVersionTests.export(input, to: out)
        #expect(done.route == .copy)
        #expect(done.version?.requested == .current && done.version?.delivered == .original, "a raw copy of the original is a version change")
        #expect(done.version?.reason.contains("does not apply") == true)
        #expect(events.kinds.filter { $0 == "fallback" }.count == 2)
        try FileManager.default.removeItem(atPath: out)
        #expect(throws: ExportError.self) { try AssetVersionTests.export(input, to: out, requireCurrent: true) }
        #expect(TestSupport.contents(dir) == ["IMG_0400.MP4", "IMG_0400.edit.json"])
    }

    @Test func stallWatchdogStopsAHungTranscodeAndFallsBack() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let out = dir.appendingPathComponent("s.mp4").path
        var request = ExportRequest(input: TestSupport.fixture("landscape.mov"), output: out, preset: try TestSupport.preset("low"),
                                    errors: ErrorPolicy(stallTimeout: 0.5))
        let session = ExportSession(request: request)
        session.debugStallAtOutputTime = 0.5
        let collector = EventCollector()
        session.onEvent = { collector.append($0) }
        let began = Date()
        let done = try session.run()
        #expect(Date().timeIntervalSince(began) < 10)
        #expect(done.route == .remux)
        #expect(done.fallbacks.first?.reason.contains("stalled") == true)
        #expect(try FFprobe(out).video?.codec == "h264")

        request.fallback = .none
        let strict = ExportSession(request: ExportRequest(input: request.input, output: dir.appendingPathComponent("n.mp4").path,
                                                          preset: request.preset, fallback: .none, errors: request.errors))
        strict.debugStallAtOutputTime = 0.5
        #expect(throws: ExportError.stalled(path: request.input, seconds: 0.5)) { try strict.run() }
        #expect(TestSupport.contents(dir) == ["s.mp4"])
    }

    @Test func cancelDuringTheFallbackCopyLeavesNothing() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        // A file too big to copy in one block: the copy checks for cancellation between blocks.
        let input = dir.appendingPathComponent("big.mp4")
        var data = try Data(contentsOf: Self.bad.appendingPathComponent("no-decoder.mp4"))
        data.append(Data(count: 8 << 20))
        try data.write(to: input)
        let out = dir.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let session = ExportSession(request: ExportRequest(input: input.path, output: out.appendingPathComponent("x.mp4").path,
                                                           preset: try TestSupport.preset("low")))
        session.onEvent = { event in
            if case .fallback(let f) = event, f.to == .copy { session.cancel() }
        }
        #expect(throws: ExportError.cancelled) { try session.run() }
        #expect(session.status == .cancelled)
        #expect(TestSupport.contents(out).isEmpty, "left behind: \(TestSupport.contents(out))")
    }

    @Test func inputThatShrinksMidExportFailsCleanly() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let input = dir.appendingPathComponent("in.mp4").path
        try FileManager.default.copyItem(atPath: TestSupport.fixture("hd1080.mp4"), toPath: input)
        let out = dir.appendingPathComponent("out.mp4").path
        let session = ExportSession(request: ExportRequest(input: input, output: out, preset: try TestSupport.preset("highest")))
        session.progressInterval = 0
        session.onEvent = { event in
            if case .progress(let p) = event, p.outputTime > 0, let h = FileHandle(forWritingAtPath: input) {
                try? h.truncate(atOffset: 4096)
                try? h.close()
            }
        }
        do {
            try session.run()
            Issue.record("export of a shrinking input completed")
        } catch let ExportError.inputChanged(path, reason) {
            #expect(path.hasSuffix("in.mp4") && reason.contains("size changed"))
        }
        #expect(TestSupport.contents(dir) == ["in.mp4"])
    }

    @Test func inputThatDisappearsMidExportFailsCleanly() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let input = dir.appendingPathComponent("in.mp4").path
        try FileManager.default.copyItem(atPath: TestSupport.fixture("hd1080.mp4"), toPath: input)
        let out = dir.appendingPathComponent("out.mp4").path
        let session = ExportSession(request: ExportRequest(input: input, output: out, preset: try TestSupport.preset("highest")))
        session.progressInterval = 0
        session.onEvent = { event in
            if case .progress(let p) = event, p.outputTime > 0 { unlink(input) }
        }
        #expect(throws: ExportError.inputChanged(path: input, reason: "the file was removed")) { try session.run() }
        #expect(TestSupport.contents(dir).isEmpty)
    }

    @Test func racingExportsToOneOutputLeaveOneWholeFile() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let out = dir.appendingPathComponent("same.mp4").path
        let results = ResultBox()
        let group = DispatchGroup()
        for input in ["landscape.mov", "odd-322x242.mov"] {
            group.enter()
            let session = ExportSession(request: ExportRequest(input: TestSupport.fixture(input), output: out, preset: try TestSupport.preset("low")))
            Thread {
                do { try session.run(); results.add("ok") } catch let e as ExportError { results.add("\(e)") } catch { results.add("?") }
                group.leave()
            }.start()
        }
        group.wait()
        let all = results.all.sorted()
        #expect(all.count == 2)
        #expect(all.filter { $0 == "ok" }.count == 1, "\(all)")
        #expect(all.contains { $0.contains("output exists") }, "\(all)")
        #expect(TestSupport.contents(dir) == ["same.mp4"])
        #expect(try FFprobe(out).video?.codec == "h264")
    }

    /// Mounting a small tmpfs needs root (CI and the development machines run the suite as root).
    static let canMount = geteuid() == 0 && FileManager.default.isExecutableFile(atPath: "/bin/mount")

    @Test(.enabled(if: canMount, "mounting a tmpfs needs root"))
    func fullDiskFailsCleanlyWithoutFallback() throws {
        let mountPoint = TestSupport.tempDir()
        defer { _ = try? TestSupport.run("/bin/umount", [mountPoint.path]); TestSupport.cleanup(mountPoint) }
        let mount = try TestSupport.run("/bin/mount", ["-t", "tmpfs", "-o", "size=96k", "tmpfs", mountPoint.path])
        try #require(mount.status == 0, "mount -t tmpfs failed: \(mount.stderr)")
        let out = mountPoint.appendingPathComponent("out.mp4").path
        let collector = EventCollector()
        let session = ExportSession(request: ExportRequest(input: TestSupport.fixture("hd1080.mp4"), output: out, preset: try TestSupport.preset("highest")))
        session.onEvent = { collector.append($0) }
        do {
            try session.run()
            Issue.record("wrote 360 kB into 96 kB")
        } catch let ExportError.outputUnwritable(_, reason) {
            #expect(reason.contains("No space left"), "\(reason)")
        }
        #expect(!collector.kinds.contains("fallback"), "a full disk is not the input's fault")
        #expect(TestSupport.contents(mountPoint).isEmpty, "left behind: \(TestSupport.contents(mountPoint))")
    }

    @Test(.enabled(if: canMount, "mounting a tmpfs needs root"))
    func readOnlyOutputFolderIsRefusedBeforeDecoding() throws {
        let mountPoint = TestSupport.tempDir()
        defer { _ = try? TestSupport.run("/bin/umount", [mountPoint.path]); TestSupport.cleanup(mountPoint) }
        let mount = try TestSupport.run("/bin/mount", ["-t", "tmpfs", "-o", "size=64k,ro", "tmpfs", mountPoint.path])
        try #require(mount.status == 0, "mount -t tmpfs failed: \(mount.stderr)")
        let collector = EventCollector()
        let session = ExportSession(request: ExportRequest(input: TestSupport.fixture("landscape.mov"), output: mountPoint.appendingPathComponent("o.mp4").path,
                                                           preset: try TestSupport.preset("low")))
        session.onEvent = { collector.append($0) }
        #expect(throws: ExportError.self) { try session.run() }
        #expect(collector.kinds == ["failed"], "refused before anything started: \(collector.kinds)")
    }
}

final class ResultBox: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [String] = []
    func add(_ v: String) { lock.withLock { values.append(v) } }
    var all: [String] { lock.withLock { values } }
}
