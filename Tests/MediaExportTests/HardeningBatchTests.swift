import Foundation
import Testing
@testable import MediaExport
@testable import MediaExportCore
@testable import MediaExportFFmpeg
@testable import mediaexport

/// Issue 12, items 6–8 for batches: one batch per output folder (a lock), no symlinked state files, no silent
/// nothing (symlinks, the output folder as an input, duplicates, no media), file names that are not UTF-8 from
/// the command line to the report and the database, and CSV cells that cannot start a formula.
@Suite("Hardening: batch") struct HardeningBatchTests {
    // MARK: Helpers

    /// Two small clips that the `low` preset remuxes (quick to export): `landscape.mov`, `clip.mov`.
    private static let clips = [("landscape.mov", "landscape.mov"), ("clip.mov", "odd-322x242.mov")]

    /// `dir/uploads` with `files` (name in the folder → fixture), made with byte-exact names.
    private static func uploads(_ dir: URL, _ files: [(String, String)] = clips) throws -> String {
        let uploads = dir.appendingPathComponent("uploads").path
        try BatchPlanner.makeDirectories(uploads)
        for (name, fixture) in files { try place(TestSupport.fixture(fixture), at: uploads + "/" + name) }
        return uploads
    }

    /// Copies `source` to `path`, whose name may hold raw bytes (`FileName`'s lossless form): written under a
    /// plain name, then renamed by its bytes.
    private static func place(_ source: String, at path: String) throws {
        let folder = (path as NSString).deletingLastPathComponent
        try BatchPlanner.makeDirectories(folder)
        let plain = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("mediaexport-place-\(UUID().uuidString)").path
        try FileManager.default.copyItem(atPath: source, toPath: plain)
        guard rename(plain, FileName.cString(path)) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno)!) }
    }

    /// A symlink at `path` (raw bytes allowed) to `target`.
    private static func link(_ path: String, to target: String) throws {
        guard symlink(FileName.cString(target), FileName.cString(path)) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno)!) }
    }

    /// A path for the shell: `"$(printf '…')"` with every byte that is not plain ASCII written in octal, so a
    /// name that is not UTF-8 reaches the program's argv byte for byte (`Process.arguments` takes only Strings).
    private static func shellWord(_ path: String) -> String {
        let plain = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+=:,@ ".utf8)
        let bytes = FileName.bytes(path)
        if bytes.allSatisfy(plain.contains) { return "'" + path + "'" }
        // printf's format may not start with '-' (it would be an option): '-' is written in octal too.
        let format = bytes.map { plain.contains($0) && $0 != UInt8(ascii: "-") ? String(UnicodeScalar($0)) : String(format: "\\%03o", $0) }.joined()
        return "\"$(printf '\(format)')\""
    }

    /// Runs the tool through `/bin/sh` with byte-exact arguments.
    private static func tool(_ arguments: [String]) throws -> TestSupport.RunResult {
        try TestSupport.run("/bin/sh", ["-c", "exec " + ([TestSupport.binary] + arguments).map(shellWord).joined(separator: " ")])
    }

    private static func batch(_ inputs: [String], out: String, _ extra: [String] = []) throws -> TestSupport.RunResult {
        try tool(["batch"] + inputs + ["--out", out, "--preset", "low", "--jobs", "1", "--quiet"] + extra)
    }

    private static func databaseRows(_ out: String) throws -> [String: ExportDatabase.Row] {
        try ExportDatabase(path: out + "/" + ExportDatabase.fileName, readOnly: true).rows()
    }

    private static func dryRun(_ inputs: [String], out: String) async throws -> BatchResult {
        try await BatchRunner(options: BatchOptions(inputs: inputs, outputDirectory: out, preset: try TestSupport.preset("low"), dryRun: true)).run()
    }

    // MARK: One batch per output folder

    @Test("two concurrent batches on one --out, then a plain rerun: exit 0, every output completed")
    func concurrentBatchesThenRerun() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let uploads = try Self.uploads(dir, Self.clips + [("a/one.mp4", "hd1080.mp4"), ("b/two.mp4", "hd1080.mp4"), ("c/three.mp4", "hd1080.mp4")])
        let out = dir.appendingPathComponent("out").path
        let slow = ["--policy", "always"]
        // The folder is held here while the two batches start (a batch of small clips may finish before a slow
        // machine starts the next process): one is refused, the two that wait run one after the other.
        try BatchPlanner.makeDirectories(out)
        let held = try BatchLock.acquire(directory: try BatchPlanner.outputRoot(out, create: false), wait: false)
        let first = HardeningRunBox(), waiting = HardeningRunBox(), group = DispatchGroup()
        for box in [first, waiting] {
            group.enter()
            DispatchQueue.global().async { box.set(try? Self.batch([uploads], out: out, slow + ["--wait"])); group.leave() }
        }
        let refused = try Self.batch([uploads], out: out, slow)
        held.release()
        group.wait()
        #expect(refused.status == ExitStatus.outputRefused, "\(refused.stderr)")
        #expect(refused.stderr.contains("is being exported by PID") && refused.stderr.contains("use --wait"), "\(refused.stderr)")
        for box in [first, waiting] {
            #expect(box.value?.status == 0, "\(box.value?.stderr ?? "")")
            #expect(box.value?.stdout == "", "-q: nothing on success: \(box.value?.stdout ?? "")")
        }
        #expect(try Self.databaseRows(out).values.allSatisfy { $0.status == "completed" } && Self.databaseRows(out).count == 5)

        let rerun = try Self.batch([uploads], out: out, slow)
        #expect(rerun.status == 0, "\(rerun.stderr)")
        let rows = try Self.databaseRows(out)
        #expect(rows.count == 5)
        #expect(rows.values.allSatisfy { $0.status == "completed" }, "\(rows.values.map { ($0.assetKey, $0.status, $0.error ?? "") })")
        for row in rows.values { #expect(FileSystem.size(row.outputPath ?? "") == row.outputSize) }
    }

    @Test("a held lock: exit 73 naming the holder, nothing written; --wait waits, then runs")
    func heldLockRefusesOrWaits() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let uploads = try Self.uploads(dir)
        let out = dir.appendingPathComponent("out").path
        try BatchPlanner.makeDirectories(out)
        let held = try BatchLock.acquire(directory: try BatchPlanner.outputRoot(out, create: false), wait: false)

        let refused = try Self.batch([uploads], out: out)
        #expect(refused.status == ExitStatus.outputRefused)
        #expect(refused.stderr.contains("is being exported by PID \(getpid())") && refused.stderr.contains("use --wait"), "\(refused.stderr)")
        #expect(TestSupport.contents(URL(fileURLWithPath: out)) == [BatchLock.fileName], "no database, no output")

        // A dry run writes nothing, so it needs no lock.
        let plan = try Self.tool(["batch", uploads, "--out", out, "--preset", "low", "--dry-run"])
        #expect(plan.status == 0, "\(plan.stderr)")

        let waited = HardeningRunBox()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async {
            // Not quiet: the note that it waits is for people.
            waited.set(try? Self.tool(["batch", uploads, "--out", out, "--preset", "low", "--jobs", "1", "--wait"]))
            group.leave()
        }
        // Released only once the batch has met the lock (a loaded machine can take seconds to start a process).
        let lockPath = try BatchPlanner.outputRoot(out, create: false) + "/" + BatchLock.fileName
        let deadline = Date().addingTimeInterval(120)
        while !Self.anotherProcessHasOpen(lockPath), waited.value == nil, Date() < deadline { usleep(20_000) }
        Thread.sleep(forTimeInterval: 1)
        #expect(waited.value == nil, "still waiting while the lock is held")
        held.release()
        group.wait()
        let r = try #require(waited.value)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("note: ") && r.stderr.contains("waiting for it"), "\(r.stderr)")
        #expect(try Self.databaseRows(out).values.filter { $0.status == "completed" }.count == 2)
    }

    @Test("a symlinked database or lock file is refused (exit 73) and its target left alone",
          arguments: [(ExportDatabase.fileName, true), (BatchLock.fileName, false), (ExportDatabase.fileName + "-wal", false)])
    func symlinkedStateFileRefused(name: String, dryRunToo: Bool) throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let uploads = try Self.uploads(dir)
        let out = dir.appendingPathComponent("out").path
        try BatchPlanner.makeDirectories(out)
        let target = dir.appendingPathComponent("elsewhere").path
        try "precious\n".write(toFile: target, atomically: true, encoding: .utf8)
        try Self.link(out + "/" + name, to: target)
        for extra in dryRunToo ? [[], ["--dry-run"]] : [[]] {
            let r = try Self.batch([uploads], out: out, extra)
            #expect(r.status == ExitStatus.outputRefused, "\(extra): \(r.stderr)")
            #expect(r.stderr.contains("symbolic link") && r.stderr.contains(name), "\(r.stderr)")
        }
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "precious\n")
        #expect(!TestSupport.contents(URL(fileURLWithPath: out)).contains { $0.hasSuffix(".mp4") })
    }

    @Test func lockFileRecordsHolderAndIsReleased() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let lock = try BatchLock.acquire(directory: dir.path, wait: false)
        let holder = try #require(lock.holder())
        #expect(holder.pid == getpid() && !holder.started.isEmpty)
        // flock locks belong to the open file: a second open in this process conflicts like another process.
        #expect(throws: BatchError.locked(directory: dir.path, holder: holder)) { try BatchLock.acquire(directory: dir.path, wait: false) }
        // The refused run leaves the holder's record as it was: a third run still names the holder.
        #expect(lock.holder() == holder)
        lock.release()
        let again = try BatchLock.acquire(directory: dir.path, wait: false)
        again.release()
    }

    @Test("a lock file hard-linked to another file is refused and that file is not emptied")
    func hardLinkedLockFileUntouched() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let precious = dir.appendingPathComponent("precious.db").path
        try "precious\n".write(toFile: precious, atomically: false, encoding: .utf8)
        let out = dir.appendingPathComponent("out").path
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        #expect(Glibc.link(precious, out + "/" + BatchLock.fileName) == 0)
        #expect(throws: BatchError.unsafeStateFile(path: out + "/" + BatchLock.fileName, reason: "the batch lock has other hard links")) {
            try BatchLock.acquire(directory: out, wait: false)
        }
        #expect(try String(contentsOfFile: precious, encoding: .utf8) == "precious\n")
    }

    // MARK: Silent nothing

    /// One input layout, what the dry run plans and which notes it must carry.
    struct Layout: CustomTestStringConvertible, Sendable {
        var name: String
        /// Builds the layout under `dir`; returns the batch inputs and the output folder.
        var build: @Sendable (URL) throws -> (inputs: [String], out: String)
        var keys: [String]
        var notes: [String]
        var exitCode: Int32 = 0
        var include: [String] = []
        var testDescription: String { name }
    }

    static let layouts: [Layout] = [
        Layout(name: "input folder given through a symlink", build: { dir in
            let uploads = try uploads(dir)
            try link(dir.path + "/via-link", to: uploads)
            return ([dir.path + "/via-link"], dir.path + "/out")
        }, keys: ["clip.mov", "landscape.mov"], notes: []),
        Layout(name: "input folder is the output folder", build: { dir in
            let uploads = try uploads(dir)
            return ([uploads], uploads)
        }, keys: [], notes: ["is the output folder", "no media found"], exitCode: ExitStatus.inputUnreadable),
        Layout(name: "output folder inside the input", build: { dir in
            let uploads = try uploads(dir)
            try place(TestSupport.fixture("hevc.mp4"), at: uploads + "/ready/old.mp4")
            return ([uploads], uploads + "/ready")
        }, keys: ["clip.mov", "landscape.mov"], notes: ["the output folder, inside an input; skipped"]),
        Layout(name: "a folder without media", build: { dir in
            try BatchPlanner.makeDirectories(dir.path + "/empty/sub")
            try "notes".write(toFile: dir.path + "/empty/sub/readme.txt", atomically: true, encoding: .utf8)
            return ([dir.path + "/empty"], dir.path + "/out")
        }, keys: [], notes: ["no media found"], exitCode: ExitStatus.inputUnreadable),
        Layout(name: "symlinks inside the tree: file followed, duplicate once, folder and dangling noted", build: { dir in
            let uploads = try uploads(dir)
            let other = dir.path + "/other"
            try place(TestSupport.fixture("hevc.mp4"), at: other + "/far.mp4")
            try link(uploads + "/far-link.mp4", to: other + "/far.mp4")
            try link(uploads + "/again.mov", to: uploads + "/landscape.mov")
            try link(uploads + "/folder-link", to: other)
            try link(uploads + "/gone.mov", to: dir.path + "/nothing-here.mov")
            return ([uploads], dir.path + "/out")
        }, keys: ["clip.mov", "far-link.mp4", "landscape.mov"],
           notes: ["again.mov: the same file as", "folder-link: a symbolic link to a folder; skipped", "gone.mov: a symbolic link to nothing"]),
        Layout(name: "the same file given twice, and its folder", build: { dir in
            let uploads = try uploads(dir)
            return ([uploads + "/clip.mov", uploads + "/clip.mov", uploads], dir.path + "/out")
        }, keys: ["clip.mov", "landscape.mov"], notes: ["clip.mov: given more than once; exported once"]),
        Layout(name: "filters leave nothing: not an error", build: { dir in
            ([try uploads(dir)], dir.path + "/out")
        }, keys: [], notes: ["2 assets found, none selected"], include: ["*.nothing"]),
    ]

    @Test("every input layout is planned with a note for what is left out", arguments: layouts)
    func layoutsArePlannedAndNoted(layout: Layout) async throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let (inputs, out) = try layout.build(dir)
        var options = BatchOptions(inputs: inputs, outputDirectory: out, preset: try TestSupport.preset("low"), dryRun: true)
        options.include = layout.include
        let existed = FileSystem.exists(out)
        let result = try await BatchRunner(options: options).run()
        #expect(result.rows.map(\.key).sorted() == layout.keys)
        #expect(result.exitCode == layout.exitCode)
        for expected in layout.notes {
            #expect(result.notes.contains { $0.contains(expected) }, "\(expected) in \(result.notes)")
        }
        if layout.notes.isEmpty { #expect(result.notes.isEmpty, "\(result.notes)") }
        #expect(!FileSystem.exists(out + "/" + ExportDatabase.fileName) && !FileSystem.exists(out + "/" + BatchLock.fileName),
                "a dry run writes nothing")
        #expect(FileSystem.exists(out) == existed, "a dry run does not even create the output folder")
    }

    @Test("a batch over a symlinked folder exports every file; one with no media exits 66 and says so")
    func cliSymlinkedFolderAndNoMedia() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let uploads = try Self.uploads(dir)
        try Self.link(dir.path + "/via-link", to: uploads)
        let out = dir.path + "/out"
        let r = try Self.batch([dir.path + "/via-link"], out: out)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(FileSystem.isRegularFile(out + "/clip.mp4") && FileSystem.isRegularFile(out + "/landscape.mp4"))

        let none = try Self.batch([out], out: out)
        #expect(none.status == ExitStatus.inputUnreadable)
        #expect(none.stderr.contains("note: ") && none.stderr.contains("is the output folder") && none.stderr.contains("no media found"), "\(none.stderr)")

        let json = try Self.batch([out], out: out, ["--json"])
        let last = try #require(json.stdout.split(separator: "\n").last)
        let record = try #require(try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any])
        let payload = record["payload"] as? [String: Any]
        #expect(record["kind"] as? String == "batchFinished" && payload?["exitCode"] as? Int == 66)
        #expect((payload?["notes"] as? [String])?.contains { $0.contains("no media found") } == true)
    }

    @Test("a batch removes what killed runs left in its output folder; a dry run removes nothing")
    func staleTemporaryFilesSwept() async throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let uploads = try Self.uploads(dir, [("clip.mov", "odd-322x242.mov")])
        let out = dir.path + "/out"
        try BatchPlanner.makeDirectories(out)
        // A PID that is certainly gone: a child that has exited and been reaped.
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/bin/true")
        try child.run()
        child.waitUntilExit()
        let stale = out + "/.clip.mp4.mediaexport-tmp-\(child.processIdentifier)-k1"
        try "partial".write(toFile: stale, atomically: false, encoding: .utf8)
        _ = try await Self.dryRun([uploads], out: out)
        #expect(FileSystem.exists(stale), "a dry run writes (and removes) nothing")
        let r = try Self.batch([uploads], out: out)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(!FileSystem.exists(stale))
        #expect(FileSystem.isRegularFile(out + "/clip.mp4"))
    }

    // MARK: File names as bytes

    /// `caf\xE9` in Latin-1: not UTF-8.
    static let latin1 = FileName.decode([0x63, 0x61, 0x66, 0xE9])

    @Test("a folder with a Latin-1 name, given on the command line as bytes: every file exported, reported escaped, resumed")
    func latin1NamesThroughBatch() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let uploads = dir.path + "/d\(Self.latin1)"  // the input folder's own name is not UTF-8 either
        try Self.place(TestSupport.fixture("landscape.mov"), at: uploads + "/\(Self.latin1).mov")
        try Self.place(TestSupport.fixture("odd-322x242.mov"), at: uploads + "/plain.mov")
        let out = dir.path + "/out-\(Self.latin1)"
        let report = dir.path + "/report.csv"
        let r = try Self.batch([uploads], out: out, ["--report", report])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(FileSystem.isRegularFile(out + "/\(Self.latin1).mp4"), "the output keeps the name's bytes")
        #expect(try MediaProbe.probe(path: out + "/\(Self.latin1).mp4").streams.contains { $0.type == "video" }, "a real video, read by its bytes")
        let rows = try Self.databaseRows(out)
        #expect(Set(rows.keys) == ["\(Self.latin1).mov", "plain.mov"], "keys round-trip through SQLite byte for byte")
        #expect(rows.values.allSatisfy { $0.status == "completed" })
        let csv = try String(contentsOfFile: report, encoding: .utf8)
        #expect(csv.contains("caf\\xE9.mov") && !csv.unicodeScalars.contains { FileName.isEscape($0) }, "\(csv)")
        #expect(try BatchReport.read(report).map(\.key).sorted() == ["caf\\xE9.mov", "plain.mov"])

        let again = try Self.batch([uploads], out: out)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try Self.databaseRows(out).count == 2)
        #expect(FileSystem.contents(ofDirectory: dir.path)?.sorted() == ["d\(Self.latin1)", "out-\(Self.latin1)", "report.csv"],
                "nothing was made under a repaired name")
    }

    @Test("a single export of a Latin-1 file name, argv decoded losslessly")
    func latin1NameThroughExport() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let input = dir.path + "/\(Self.latin1).mov"
        try Self.place(TestSupport.fixture("landscape.mov"), at: input)
        let output = dir.path + "/\(Self.latin1)-out.mp4"
        let r = try Self.tool(["--preset", "low", input, output])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(FileSystem.isRegularFile(output))
    }

    @Test func shardHashUsesTheNameBytes() {
        // FNV-1a over the name's bytes: UTF-8 keys hash as they always did; a Latin-1 key by its one byte 0xE9.
        func index(_ bytes: [UInt8]) -> Int {
            var hash: UInt64 = 0xcbf29ce484222325
            for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100000001b3 }
            return Int(hash % 7)
        }
        #expect(BatchOptions.Shard(index: index(Array("café/x.mov".utf8)), count: 7).contains("café/x.mov"))
        #expect(BatchOptions.Shard(index: index([0x63, 0x61, 0x66, 0xE9]), count: 7).contains(Self.latin1))
    }

    // MARK: CSV cells

    static let cells = ["=HYPERLINK(\"http://x\",\"y\")", "+1", "-2", "@SUM(A1)", "\tx", "\rx", "'=x", "'plain", "plain", "a,b \"c\""]

    @Test("CSV cells never start a formula, and read back as written", arguments: cells)
    func csvCellsAreNeutralised(cell: String) throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let row = BatchReportRow(key: cell, input: "/in/" + cell, action: "transcode", reason: cell, status: "failed", route: nil,
                                 fallbacks: 0, versionRequested: "current", versionDelivered: nil, output: nil, bytesIn: 1,
                                 bytesOut: nil, estimatedBytes: nil, outputSHA256: nil, error: cell, wallTime: nil)
        let path = dir.path + "/r.csv"
        try BatchReport.write([row], to: path)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let line = String(text.split(separator: "\n", omittingEmptySubsequences: false)[1])
        let dangerous: Set<Character> = ["=", "+", "-", "@", "\t", "\r"]
        // The first cell (unquoted or quoted) must not begin with a formula character.
        let first = line.hasPrefix("\"") ? line.dropFirst().first : line.first
        #expect(first.map { !dangerous.contains($0) } ?? true, "\(line.debugDescription)")
        let back = try #require(try BatchReport.read(path).first)
        let shown = FileName.display(cell)
        #expect(back.key == shown && back.reason == shown && back.error == shown && back.input == "/in/" + shown)
    }

    @Test func fileNamedLikeAFormulaIsNeutralisedInTheReport() async throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let name = "=HYPERLINK(\"evil.example\",\"x\").mov"
        let uploads = try Self.uploads(dir, [(name, "landscape.mov")])
        let report = dir.path + "/r.csv"
        let runner = BatchRunner(options: BatchOptions(inputs: [uploads], outputDirectory: dir.path + "/out",
                                                       preset: try TestSupport.preset("low"), dryRun: true))
        runner.reportPath = report
        #expect(try await runner.run().rows.map(\.key) == [name])
        let text = try String(contentsOfFile: report, encoding: .utf8)
        #expect(text.split(separator: "\n")[1].hasPrefix("\"'=HYPERLINK("), "\(text)")
        #expect(try BatchReport.read(report).first?.key == name)
    }
}

/// A run's result handed from another thread.
private final class HardeningRunBox: @unchecked Sendable {
    private let lock = NSLock()
    private var result: TestSupport.RunResult?
    func set(_ r: TestSupport.RunResult?) { lock.withLock { result = r } }
    var value: TestSupport.RunResult? { lock.withLock { result } }
}

extension HardeningBatchTests {
    /// True when a process other than this one has `path` open (read from `/proc/PID/fd`).
    static func anotherProcessHasOpen(_ path: String) -> Bool {
        let me = "\(getpid())"
        let pids = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return pids.contains { pid in
            guard pid != me, pid.allSatisfy(\.isNumber) else { return false }
            let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
            return fds.contains { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\($0)")) == path }
        }
    }
}

