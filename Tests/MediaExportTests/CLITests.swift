import Foundation
import Testing
@testable import MediaExport
@testable import MediaExportCore
@testable import MediaExportFFmpeg
@testable import mediaexport

/// Runs the built `mediaexport` binary and checks stdout, stderr and exit codes.
@Suite struct CLITests {
    @Test func exportIsTheDefaultSubcommand() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let out = dir.appendingPathComponent("o.mp4").path
        let r = try TestSupport.tool(["--preset", "AVAssetExportPreset640x480", "-q", TestSupport.fixture("hd1080.mp4"), out])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.isEmpty && r.stderr.isEmpty, "-q prints nothing on success: \(r.stdout)\(r.stderr)")
        let v = try #require(try FFprobe(out).video)
        #expect(v.width == 640 && v.height == 360)
        let again = try TestSupport.tool(["export", "--preset", "low", "-q", TestSupport.fixture("hd1080.mp4"), out])
        #expect(again.status == ExitStatus.outputRefused)
        #expect(again.stderr == "mediaexport: \(out): output exists (use --overwrite to replace it)\n")
    }

    /// `--policy needed` on one file asks the plans as a batch does: a file that already fits is byte copied into its
    /// own container and remuxed into another; without it the export transcodes.
    @Test func policyNeededCopiesOrRemuxesAFileThatFits() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        func route(_ extra: [String], _ name: String) throws -> String? {
            let r = try TestSupport.tool(["--json", "--preset", "1280x720"] + extra + [TestSupport.fixture("vfr.mp4"), dir.appendingPathComponent(name).path])
            #expect(r.status == 0, "\(r.stderr)")
            let last = try JSONSerialization.jsonObject(with: Data(r.stdout.split(separator: "\n").last!.utf8)) as? [String: Any]
            return (last?["payload"] as? [String: Any])?["route"] as? String
        }
        #expect(try route(["--policy", "needed"], "a.mp4") == "copy")
        #expect(try route(["--policy", "needed"], "b.mkv") == "remux")
        #expect(try route([], "c.mp4") == "transcode")
        #expect(FileManager.default.contentsEqual(atPath: dir.appendingPathComponent("a.mp4").path, andPath: TestSupport.fixture("vfr.mp4")))
    }

    @Test func jsonLinesHaveOneFinalRecord() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let out = dir.appendingPathComponent("o.mp4").path
        let r = try TestSupport.tool(["--json", "--preset", "low", TestSupport.fixture("landscape.mov"), out])
        #expect(r.status == 0)
        let records = r.stdout.split(separator: "\n").map { try! JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
        #expect(records.allSatisfy { $0["version"] as? Int == 1 })
        let kinds = records.map { $0["kind"] as! String }
        #expect(kinds.first == "started" && kinds.last == "completed" && kinds.contains("progress"))
        let started = records[0]["payload"] as! [String: Any]
        let streams = started["streams"] as! [[String: Any]]
        #expect(streams.map { $0["action"] as! String } == ["transcode", "transcode"])
        let completed = records.last!["payload"] as! [String: Any]
        #expect(completed["output"] as? String == out)
        #expect(completed["codecs"] as? [String] == ["h264", "aac"])
        #expect((completed["bytes"] as? Int ?? 0) > 0)
        #expect(r.stderr.isEmpty, "JSON mode keeps stderr quiet: \(r.stderr)")
    }

    @Test func failuresAreOneLineWithDocumentedExitCodes() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let text = dir.appendingPathComponent("notes.mov").path
        try "hello".write(toFile: text, atomically: true, encoding: .utf8)
        let out = dir.appendingPathComponent("o.mp4").path
        let cases: [([String], Int32, String)] = [
            ([text, out], ExitStatus.notMedia, text),
            ([dir.appendingPathComponent("missing.mov").path, out], ExitStatus.inputUnreadable, "missing.mov"),
            (["--preset", "nope", TestSupport.fixture("landscape.mov"), out], ExitStatus.badPreset, "unknown preset 'nope'"),
            ([TestSupport.fixture("landscape.mov"), dir.path + "/x/o.mp4"], ExitStatus.outputRefused, "does not exist"),
            (["--start", "9", TestSupport.fixture("landscape.mov"), out], ExitStatus.usage, "past the end"),
            (["--start", "3", "--end", "1", TestSupport.fixture("landscape.mov"), out], ExitStatus.usage, "--end must be after --start"),
        ]
        for (args, code, text) in cases {
            let r = try TestSupport.tool(["-q"] + args)
            #expect(r.status == code, "\(args): \(r.stderr)")
            #expect(r.stderr.contains(text), "\(args): \(r.stderr)")
            #expect(r.stderr.split(separator: "\n").count <= 3)
        }
        // JSON mode: a failed record on stdout too.
        let r = try TestSupport.tool(["--json", text, out])
        let last = try #require(r.stdout.split(separator: "\n").last)
        let record = try JSONSerialization.jsonObject(with: Data(last.utf8)) as! [String: Any]
        #expect(record["kind"] as? String == "failed")
        #expect((record["payload"] as? [String: Any])?["stage"] as? String == "open")
        #expect(TestSupport.contents(dir) == ["notes.mov"])
    }

    @Test func sigintCancelsAndLeavesNothing() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        for (sig, code) in [(SIGINT, ExitStatus.cancelledByInterrupt), (SIGTERM, ExitStatus.cancelledByTerminate)] {
            let out = dir.appendingPathComponent("o.mp4").path
            let (status, text) = try TestSupport.interrupt(arguments: ["--json", "--preset", "highest", TestSupport.fixture("hd1080.mp4"), out], with: sig)
            // hd1080 with `highest` takes seconds after its first progress record: a 0 here is a signal lost.
            #expect(status == code)
            #expect(text.contains("\"kind\":\"cancelled\""))
            #expect(TestSupport.contents(dir).isEmpty, "left behind: \(TestSupport.contents(dir))")
        }
    }

    @Test func presetsAndProbeAndVersion() throws {
        let table = try TestSupport.tool(["presets"])
        #expect(table.status == 0)
        #expect(table.stdout.contains("AVAssetExportPreset1280x720"))
        let list = try TestSupport.tool(["presets", "--json"])
        let presets = try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as! [[String: Any]]
        #expect(presets.count == 18)

        let probe = try TestSupport.tool(["probe", "--json", TestSupport.fixture("portrait-rotated.mov")])
        let info = try JSONDecoder().decode(MediaInfo.self, from: Data(probe.stdout.utf8))
        let oracle = try FFprobe(TestSupport.fixture("portrait-rotated.mov"))
        #expect(info.streams.first?.rotation == oracle.video?.rotation)
        #expect(info.streams.first?.displayWidth == 180 && info.streams.first?.displayHeight == 320)
        #expect(abs((info.duration ?? 0) - oracle.duration) < 0.001)
        #expect(info.streams.last?.channels == oracle.audio?.channels)
        let meta = try TestSupport.tool(["probe", TestSupport.fixture("metadata.mov")])
        #expect(meta.stdout.contains("created 2024-05-01T12:34:56.000000Z"))
        #expect(meta.stdout.contains("location +48.8584+002.2945/"))

        let version = try TestSupport.tool(["--version"])
        #expect(version.stdout.contains("mediaexport \(MediaExportVersion.string)"))
        #expect(version.stdout.contains("libavcodec 59."))
        let help = try TestSupport.tool(["export", "--help"])
        #expect(help.stdout.contains("Examples:"))
    }
}
