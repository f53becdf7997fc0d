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
            (["--crf", "3", fixture, "/tmp/never.mp4"], "mediaexport: unknown option '--crf' (did you mean"),
            (["--preset"], "mediaexport: missing value for '--preset <preset>'"),
            (["--start", "abc", fixture, "/tmp/never.mp4"], "mediaexport: the value 'abc' is invalid for '--start <start>'"),
            (["--pipeline", "weird", fixture, "/tmp/never.mp4"], "Please provide one of 'auto', 'on' or 'off'."),
            (["--threads", "0", fixture, "/tmp/never.mp4"], "mediaexport: --threads must be at least 1"),
            ([fixture], "mediaexport: missing expected argument '<output>'"),
            (["batch", "--bogus", fixture, "--out", "/tmp/never"], "mediaexport: unknown option '--bogus' (did you mean '--out'?)"),
            (["batch", fixture], "mediaexport: missing expected argument '--out <out>'"),
            (["batch", "--jobs", "0", fixture, "--out", "/tmp/never"], "mediaexport: --jobs must be at least 1"),
            (["report", "merge", "a.json"], "mediaexport: missing expected argument '--out <out>'"),
            (["report", "merge", "--frob", "a.json", "--out", "b.json"], "mediaexport: unknown option '--frob'"),
            (["thumbnail", fixture, "/tmp/never.jpg", "--size", "1x"], "mediaexport: --size must be WxH, e.g. 320x180"),
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

    /// With `--json` the export's usage error is still one `failed` record on stdout, and one line on stderr.
    @Test func usageErrorWithJSONIsOneRecordAndOneLine() throws {
        let r = try TestSupport.tool(["--json", "--frob", "a.mov", "b.mp4"])
        #expect(r.status == ExitStatus.usage)
        #expect(r.stdout == #"{"kind":"failed","payload":{"error":"usage","exitCode":64,"message":"Unknown option '--frob'. Did you mean '--json'?","stage":"usage"},"version":1}"# + "\n")
        #expect(r.stderr == "mediaexport: unknown option '--frob' (did you mean '--json'?)\n", "\(r.stderr)")
    }

    /// `--help` is ArgumentParser's full help, on stdout, exit 0.
    @Test func helpIsUnchanged() throws {
        let r = try TestSupport.tool(["batch", "--help"])
        #expect(r.status == 0 && r.stderr.isEmpty)
        #expect(r.stdout.contains("USAGE: mediaexport batch") && r.stdout.contains("OPTIONS:"), "\(r.stdout)")
    }
}
