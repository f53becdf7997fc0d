import Foundation
import Testing
@testable import MediaExport
@testable import MediaExportCore
@testable import mediaexport

/// What users of ffmpeg and HandBrake expect of a command line, and where presets come from.
@Suite struct CLIHabitsTests {
    @Test func aMistypedPresetGetsASuggestion() throws {
        let r = try TestSupport.tool(["--preset", "higest", TestSupport.fixture("landscape.mov"), "/tmp/never.mp4"])
        #expect(r.status == 78)
        #expect(r.stderr.contains("did you mean 'highest'?"), "\(r.stderr)")
        #expect(Suggestion.closest(to: "1280x72", in: ["highest", "1280x720", "640x480"]) == "1280x720")
        #expect(Suggestion.closest(to: "hgihest", in: ["highest", "low"]) == "highest")
        #expect(Suggestion.closest(to: "zzz", in: ["highest", "low"]) == nil)
    }

    @Test func timesAsClockReadings() throws {
        for (text, seconds) in [("90", 90.0), ("2.5", 2.5), ("1:30", 90), ("0:00:02.5", 2.5), ("1:02:03.25", 3723.25), ("-1", -1)] {
            #expect(TimeArgument.parse(text) == seconds, "\(text)")
        }
        for bad in ["", "1:", ":5", "1:75", "1.5:00", "1:2:3:4", "abc", "1e3", "１"] { #expect(TimeArgument.parse(bad) == nil, "\(bad)") }
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let out = dir.appendingPathComponent("cut.mp4").path
        let r = try TestSupport.tool(["--preset", "low", "--start", "0:00:00.5", "--end", "0:00:01.5", "-q", TestSupport.fixture("landscape.mov"), out])
        #expect(r.status == 0, "\(r.stderr)")
        let probe = try TestSupport.run("/usr/bin/ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", out])
        #expect(abs((Double(probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) - 1.0) < 0.05, "\(probe.stdout)")
    }

    @Test func argumentErrorsGetAFailedRecordWithJSON() throws {
        let negative = try TestSupport.tool(["--json", "--start", "-1", TestSupport.fixture("landscape.mov"), "/tmp/never.mp4"])
        #expect(negative.status == 64)
        #expect(negative.stderr.contains("--start must be 0 or more, got -1"), "\(negative.stderr)")
        let record = try #require(negative.stdout.split(separator: "\n").last)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(record.utf8)) as? [String: Any])
        #expect(json["kind"] as? String == "failed")
        let payload = try #require(json["payload"] as? [String: Any])
        #expect(payload["exitCode"] as? Int == 64 && payload["error"] as? String == "usage" && payload["stage"] as? String == "usage")
        #expect(payload["message"] as? String == "--start must be 0 or more, got -1")
        let unknown = try TestSupport.tool(["--json", "--frobnicate", "a.mov", "b.mp4"])
        #expect(unknown.status == 64 && unknown.stdout.contains(#""kind":"failed""#), "\(unknown.stdout)")
        // Without --json, nothing on stdout; every other subcommand's --json ends with its own failure record too
        // (FormatsAndProbeTests.everyJSONCommandEndsWithOneFailureRecord).
        #expect(try TestSupport.tool(["--start", "-1", "a.mov", "b.mp4"]).stdout.isEmpty)
        #expect(try TestSupport.tool(["presets", "--json", "--bogus"]).stdout.hasPrefix(#"{"kind":"failed","payload":{"error":"usage""#))
    }

    @Test func standardOutputAndDevicesAreRefusedAsOutputs() throws {
        for output in ["-", "/dev/stdout", "/dev/null", "/proc/self/fd/1"] {
            let r = try TestSupport.tool(["--preset", "low", "-q", TestSupport.fixture("landscape.mov"), output])
            #expect(r.status == 73, "\(output): \(r.stderr)")
            #expect(r.stderr.contains("cannot write output"), "\(output): \(r.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: "/dev/stdout.mp4") && !FileManager.default.fileExists(atPath: "-.mp4"))
    }

    @Test func noOverwriteIsTheDefaultSpelledOut() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let out = dir.appendingPathComponent("o.mp4").path
        try Data("keep".utf8).write(to: URL(fileURLWithPath: out))
        let r = try TestSupport.tool(["-n", "--preset", "low", TestSupport.fixture("landscape.mov"), out])
        #expect(r.status == 73 && r.stderr.contains("output exists"), "\(r.stderr)")
        #expect(try String(contentsOfFile: out, encoding: .utf8) == "keep")
        #expect(try TestSupport.tool(["-n", "-y", TestSupport.fixture("landscape.mov"), out]).status == 64)
    }

    /// The installed layout is found from the executable's real path; a `Presets/` folder in the working directory is
    /// never read; user presets add to the built-ins, and one that takes a built-in's name is left out with a note.
    @Test func presetsNeverComeFromTheWorkingDirectory() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let hostile = dir.appendingPathComponent("Presets")
        try FileManager.default.createDirectory(at: hostile, withIntermediateDirectories: true)
        try Data(#"{"name":"evil","passthrough":true}"#.utf8).write(to: hostile.appendingPathComponent("evil.json"))
        let r = try TestSupport.run("/bin/sh", ["-c", "cd '\(dir.path)' && exec '\(TestSupport.binary)' presets --json"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains(#""name" : "highest""#) && !r.stdout.contains("evil"), "\(r.stdout)")

        let mine = dir.appendingPathComponent("mine")
        try FileManager.default.createDirectory(at: mine, withIntermediateDirectories: true)
        try Data(#"{"name":"tiny","video":{"codec":"h264","crf":30,"maxSize":[320,180]}}"#.utf8).write(to: mine.appendingPathComponent("tiny.json"))
        try Data(#"{"name":"Highest","passthrough":true}"#.utf8).write(to: mine.appendingPathComponent("highest.json"))
        let user = try TestSupport.run(TestSupport.binary, ["presets"], environment: ["MEDIAEXPORT_PRESETS_DIR": mine.path, "XDG_CONFIG_HOME": dir.path])
        #expect(user.status == 0, "\(user.stderr)")
        #expect(user.stdout.contains("user presets (\(mine.path)): tiny"), "\(user.stdout)")
        #expect(user.stderr.contains("left out: 'highest' is already a preset's name"), "\(user.stderr)")
        let catalog = try PresetCatalog(directory: try #require(PresetCatalog.builtInDirectory()), userDirectories: [mine])
        #expect(try catalog.resolve("tiny").video?.crf == 30)
        #expect(try catalog.resolve("highest").passthrough == false)
    }

    /// `scripts/install.sh PREFIX` lays out bin/, share/mediaexport/Presets, the man page and the completions without
    /// building anything; the installed tool finds its presets from there, from any folder, and never a hostile
    /// `Presets/` where it runs. The man page (scripts/manpage.py) has the exit codes and the environment; the bash
    /// completion offers the built-in presets. (The .deb and `man -l` rendering: scripts/test-deb.sh in CI.)
    @Test func installLayoutFindsItsPresets() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let prefix = dir.appendingPathComponent("prefix").path
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
        let r = try TestSupport.run("/bin/bash", ["\(root)/scripts/install.sh", prefix],
                                    environment: ["MEDIAEXPORT_BIN": TestSupport.binary])
        #expect(r.status == 0, "\(r.stderr)")
        for file in ["bin/mediaexport", "share/mediaexport/Presets/highest.json", "share/bash-completion/completions/mediaexport",
                     "share/zsh/site-functions/_mediaexport", "share/fish/vendor_completions.d/mediaexport.fish", "share/man/man1/mediaexport.1"] {
            #expect(FileManager.default.fileExists(atPath: prefix + "/" + file), "\(file)")
        }
        let page = (try? String(contentsOfFile: prefix + "/share/man/man1/mediaexport.1", encoding: .utf8)) ?? ""
        for want in [".SH EXIT STATUS", "\\fB65\\fR", "MEDIAEXPORT_PRESETS_DIR", ".SH FILES",
                     (prefix + "/share/mediaexport/Presets").replacingOccurrences(of: "-", with: "\\-"), ".SS batch"] {
            #expect(page.contains(want), "man page lacks \(want)")
        }
        #expect(!page.contains("\n\n") && page.unicodeScalars.allSatisfy(\.isASCII), "blank lines or raw non-ASCII in the man page")
        let bash = (try? String(contentsOfFile: prefix + "/share/bash-completion/completions/mediaexport", encoding: .utf8)) ?? ""
        #expect(["highest", "1280x720", "hevc-highest", "passthrough", "m4a"].allSatisfy { bash.contains($0) }, "\(bash.prefix(300))")
        // A preset only the install has shows that the install's folder is the one read.
        try Data(#"{"name":"installed-only","passthrough":true}"#.utf8).write(to: URL(fileURLWithPath: prefix + "/share/mediaexport/Presets/installed-only.json"))
        let hostile = dir.appendingPathComponent("work/Presets")
        try FileManager.default.createDirectory(at: hostile, withIntermediateDirectories: true)
        try Data(#"{"name":"evil","passthrough":true}"#.utf8).write(to: hostile.appendingPathComponent("evil.json"))
        let listed = try TestSupport.run("/bin/sh", ["-c", "cd '\(dir.path)/work' && PATH='\(prefix)/bin':\"$PATH\" exec mediaexport presets"])
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stdout.contains("installed-only") && listed.stdout.contains("highest") && !listed.stdout.contains("evil"), "\(listed.stdout)")
    }

    /// The bar fits the terminal (a line wider than it wraps, and every update starts a new line), and its ETA is the
    /// rate over the last seconds, not since the start.
    @Test func progressBarFitsTheTerminalAndItsETAIsSmoothed() {
        let p = ExportEvent.Progress(fraction: 0.5, outputTime: 5, speed: 1.25, fps: 87, elapsed: 4, eta: 4, bytesWritten: 1_250_000)
        for columns in [30, 50, 80, 200] {
            let line = ProgressRenderer.bar(p, columns: columns)
            #expect(line.count <= columns - 1, "\(columns): \(line)")
            #expect(line.contains("50%"), "\(columns): \(line)")
        }
        #expect(ProgressRenderer.bar(p, columns: 80).hasPrefix("["))
        #expect(ProgressRenderer.bar(p, columns: 80).contains("0:04") && ProgressRenderer.bar(p, columns: 80).contains("MB"), "\(ProgressRenderer.bar(p, columns: 80))")
        #expect(!ProgressRenderer.bar(p, columns: 20).hasPrefix("["))
        // Slow at first (probing, a first pass), then 10 % a second: the ETA follows the recent rate.
        let recent = [(elapsed: 10.0, fraction: 0.1), (elapsed: 12.0, fraction: 0.3), (elapsed: 14.0, fraction: 0.5)]
        #expect(abs((ProgressRenderer.smoothedETA(recent) ?? 0) - 5) < 0.001)
        #expect(ProgressRenderer.smoothedETA([(elapsed: 0.5, fraction: 0.01), (elapsed: 1.0, fraction: 0.02)]) == nil)
    }

    @Test func tablesLineUpWithWideCharacters() {
        let table = PresetTable.align([["名前", "x"], ["highest", "y"], ["e\u{301}te\u{301}", "z"]])
        let lines = table.split(separator: "\n").map(String.init)
        #expect(lines.map { PresetTable.displayWidth(String($0.dropLast())) } == [9, 9, 9], "\(lines)")
        #expect(PresetTable.displayWidth("日本語") == 6 && PresetTable.displayWidth("e\u{301}") == 1)
    }

    @Test func aMistypedSubcommandGetsASuggestion() throws {
        let r = try TestSupport.tool(["presest"])
        #expect(r.status == 64)
        #expect(r.stderr.contains("'presest' is neither a file nor a subcommand: did you mean 'presets'?"), "\(r.stderr)")
    }
}
