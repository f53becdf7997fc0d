import Foundation
import Testing
@testable import MediaExport
@testable import MediaExportCore
@testable import mediaexport

/// What the tool prints for people: a usage error is one line, and text from files cannot break a line or a terminal.
@Suite struct CLIOutputTests {
    /// Every usage error, whatever the subcommand: exactly one line on stderr, `mediaexport: `, exit 64, nothing on stdout.
    @Test func usageErrorsAreOneLine() throws {
        let fixture = TestSupport.fixture("landscape.mov")
        let cases: [([String], String)] = [
            (["--crff", "3", fixture, "/tmp/never.mp4"], "mediaexport: unknown option '--crff' (did you mean"),
            (["--crf", "60", fixture, "/tmp/never.mp4"], "mediaexport: --crf must be between 0 and 51 for libx264, got 60"),
            (["--preset"], "mediaexport: missing value for '--preset <preset>'"),
            (["--start", "abc", fixture, "/tmp/never.mp4"], "mediaexport: the value 'abc' is invalid for '--start <start>'"),
            (["--pipeline", "weird", fixture, "/tmp/never.mp4"], "Please provide one of 'auto', 'on' or 'off'."),
            (["--threads", "0", fixture, "/tmp/never.mp4"], "mediaexport: --threads must be from 1 to 1024, got 0"),
            ([fixture], "mediaexport: missing expected argument '<output>'"),
            (["batch", "--bogus", fixture, "--out", "/tmp/never"], "mediaexport: unknown option '--bogus' (did you mean '--out'?)"),
            (["batch", fixture], "mediaexport: missing expected argument '--out <out>'"),
            (["batch", "--jobs", "0", fixture, "--out", "/tmp/never"], "mediaexport: --jobs must be from 1 to 1024, got 0"),
            (["report", "merge", "a.json"], "mediaexport: missing expected argument '--out <out>'"),
            (["report", "merge", "--frob", "a.json", "--out", "b.json"], "mediaexport: unknown option '--frob'"),
            (["thumbnail", fixture, "/tmp/never.jpg", "--size", "1x"], "mediaexport: --size must be WxH or a width W, e.g. 320x180 or 320"),
            (["probe"], "mediaexport: missing expected argument '<file>'"),
            (["presest"], "mediaexport: 'presest' is neither a file nor a subcommand: did you mean 'presets'?"),
        ]
        for (args, expected) in cases {
            let r = try TestSupport.tool(args)
            #expect(r.status == ExitStatus.usage, "\(args): \(r.stderr)")
            #expect(r.stderr.hasPrefix("mediaexport: ") && r.stderr.hasSuffix("\n"), "\(args): \(r.stderr)")
            #expect(r.stderr.split(separator: "\n", omittingEmptySubsequences: false).count == 2, "\(args): \(r.stderr)")
            #expect(r.stderr.contains(expected), "\(args): \(r.stderr)")
            #expect(!r.stderr.contains("Usage:") && !r.stderr.contains("--help"), "\(args): \(r.stderr)")
            #expect(r.stdout.isEmpty, "\(args): \(r.stdout)")
        }
    }

    /// `-q` on a successful export prints nothing at all: no summary, no verification line, no version line, no notes.
    @Test func quietSuccessPrintsNothing() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let out = dir.appendingPathComponent("q.mp4").path
        let r = try TestSupport.tool(["-q", "-p", "low", TestSupport.fixture("landscape.mov"), out])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.isEmpty, "\(r.stdout)")
        #expect(r.stderr.isEmpty, "\(r.stderr)")
        #expect(try FFprobe(out).video != nil)
    }

    /// With `--json` the export's usage error is still one `failed` record on stdout, and one line on stderr.
    @Test func usageErrorWithJSONIsOneRecordAndOneLine() throws {
        let r = try TestSupport.tool(["--json", "--jsn", "a.mov", "b.mp4"])
        #expect(r.status == ExitStatus.usage)
        #expect(r.stdout == #"{"kind":"failed","payload":{"error":"usage","exitCode":64,"message":"Unknown option '--jsn'. Did you mean '--json'?","stage":"usage"},"version":1}"# + "\n")
        #expect(r.stderr == "mediaexport: unknown option '--jsn' (did you mean '--json'?)\n", "\(r.stderr)")
    }

    /// `--help` is ArgumentParser's full help, on stdout, exit 0.
    @Test func helpIsUnchanged() throws {
        let r = try TestSupport.tool(["batch", "--help"])
        #expect(r.status == 0 && r.stderr.isEmpty)
        #expect(r.stdout.contains("USAGE: mediaexport batch") && r.stdout.contains("OPTIONS:"), "\(r.stdout)")
    }

    /// The one escaping function: controls, bidirectional controls and raw bytes visible; everything else as it was.
    @Test func terminalTextShowsWhatATerminalWouldObey() {
        #expect(TerminalText.escaped("a\u{202E}b\nc\r\u{1B}[31m\u{7F}\u{85}\u{9F}\t") == #"a\u{202E}b\u{A}c\u{D}\u{1B}[31m\u{7F}\u{85}\u{9F}\u{9}"#)
        #expect(TerminalText.escaped("\u{200E}\u{200F}\u{202A}\u{2066}\u{2069}\u{061C}\u{2028}") == #"\u{200E}\u{200F}\u{202A}\u{2066}\u{2069}\u{61C}\u{2028}"#)
        #expect(TerminalText.escaped(FileName.decode([0x63, 0x61, 0x66, 0xE9, 0x0A])) == #"caf\xE9\u{A}"#)
        for plain in ["IMG_1234.MOV", "日本語 — café e\u{301} 🎬 → ≤1280x720", "", #"already\u{A}escaped"#] {
            #expect(TerminalText.escaped(plain) == plain)
        }
        #expect(TerminalText.lines(["one\ntwo", "three"]) == #"one\u{A}two"# + "\nthree")
    }

    /// A file whose name holds U+202E, a newline and an ESC: every human line shows them escaped (no raw scalar, no
    /// extra line) in export, probe and batch; `--json` carries the exact name.
    @Test func controlAndBidiCharactersInNamesAreEscaped() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let name = "a\u{202E}vom.x\ny\u{1B}[31m.mov"
        let input = dir.appendingPathComponent("in").appendingPathComponent(name).path
        try FileManager.default.createDirectory(atPath: dir.appendingPathComponent("in").path, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: TestSupport.fixture("landscape.mov"), toPath: input)
        let output = dir.appendingPathComponent("o\u{202E}\nx.mp4").path
        func expectEscaped(_ text: String, _ what: String) {
            #expect(!text.contains("\u{202E}") && !text.contains("\u{1B}") && !text.contains("y\u{1B}"), "\(what): \(text)")
            #expect(!text.split(separator: "\n").contains { $0.hasPrefix("y") || $0.hasPrefix("x.mp4") }, "\(what): \(text)")
        }

        let export = try TestSupport.tool(["--preset", "low", input, output])
        #expect(export.status == 0, "\(export.stderr)")
        expectEscaped(export.stdout + export.stderr, "export")
        #expect(export.stdout.hasPrefix("Exported " + TerminalText.escaped(output) + ": "), "\(export.stdout)")
        #expect(export.stderr.hasPrefix(TerminalText.escaped(input) + " → "), "\(export.stderr)")

        let probe = try TestSupport.tool(["probe", input])
        #expect(probe.status == 0)
        expectEscaped(probe.stdout, "probe")
        #expect(probe.stdout.hasPrefix(TerminalText.escaped(input) + "\n"), "\(probe.stdout)")
        let probeJSON = try TestSupport.tool(["probe", "--json", input])
        let info = try #require(try JSONSerialization.jsonObject(with: Data(probeJSON.stdout.utf8)) as? [String: Any])
        #expect(info["path"] as? String == input)

        let again = try TestSupport.tool(["--preset", "low", "--json", "-y", input, output])
        let completed = try #require(again.stdout.split(separator: "\n").last)
        let record = try #require(try JSONSerialization.jsonObject(with: Data(completed.utf8)) as? [String: Any])
        #expect((record["payload"] as? [String: Any])?["output"] as? String == output, "\(completed)")

        let batch = try TestSupport.tool(["batch", dir.appendingPathComponent("in").path, "--out", dir.appendingPathComponent("out").path,
                                          "--preset", "low", "--jobs", "1", "--dry-run"])
        #expect(batch.status == 0, "\(batch.stderr)")
        expectEscaped(batch.stdout + batch.stderr, "batch --dry-run")
        #expect(batch.stdout.contains(TerminalText.escaped(name)), "\(batch.stdout)")
        let run = try TestSupport.tool(["batch", dir.appendingPathComponent("in").path, "--out", dir.appendingPathComponent("out").path,
                                        "--preset", "low", "--jobs", "1"])
        #expect(run.status == 0, "\(run.stderr)")
        expectEscaped(run.stdout + run.stderr, "batch")
        #expect(run.stderr.contains("completed: " + TerminalText.escaped(name)), "\(run.stderr)")
    }
}
