import Foundation
import Testing
@testable import MediaExport
@testable import MediaExportCore
@testable import MediaExportFFmpeg
@testable import mediaexport

/// `regress` baselines that know what they were made from: keys relative to the baseline's folder, entries not
/// checked, the first cause of a failure, `--keep-failed` and `--deterministic`.
@Suite struct RegressProvenanceTests {
    /// `dir/samples/` with copies of two short fixtures; returns their paths.
    static func samples(in dir: URL) throws -> [String] {
        let folder = dir.appendingPathComponent("samples")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return try ["landscape.mov", "portrait-rotated.mov"].map { name in
            let copy = folder.appendingPathComponent(name).path
            try FileManager.default.copyItem(atPath: TestSupport.fixture(name), toPath: copy)
            return copy
        }
    }

    /// `regress SAMPLES --preset PRESET --baseline dir/baseline.json EXTRA…`.
    static func regress(_ dir: URL, _ samples: [String], preset: String = "low", _ extra: [String] = []) throws -> TestSupport.RunResult {
        try TestSupport.tool(["regress"] + samples + ["--preset", preset, "--baseline", dir.appendingPathComponent("baseline.json").path] + extra)
    }

    /// The `case` records of a `--json` run.
    static func cases(_ run: TestSupport.RunResult) throws -> [RegressCase] {
        try run.stdout.split(separator: "\n").compactMap { line in
            guard line.contains("\"kind\":\"case\"") else { return nil }
            struct Record: Decodable { var payload: RegressCase }
            return try JSONDecoder().decode(Record.self, from: Data(line.utf8)).payload
        }
    }

    @Test("a baseline recorded from a folder passes for the same files given one by one, in another order; a part of them fails unless --subset")
    func keysDoNotDependOnHowSamplesAreGiven() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let files = try Self.samples(in: dir)
        let record = try Self.regress(dir, [dir.appendingPathComponent("samples").path], ["--update-baseline"])
        #expect(record.status == 0, "\(record.stdout)\(record.stderr)")
        let baseline = try Baseline.load(dir.appendingPathComponent("baseline.json").path)
        #expect(baseline.entries.keys.sorted() == ["samples/landscape.mov|low", "samples/portrait-rotated.mov|low"])
        let entry = try #require(baseline.entries["samples/landscape.mov|low"])
        #expect(entry.sampleSHA256 == (try SHA256Hasher.file(files[0])))
        #expect(entry.presetSHA256 == (try PresetRecord(try TestSupport.preset("low")).sha256))
        #expect(entry.presetSettings?.leaves().contains { $0.path == "video.crf" && $0.value == "28" } == true)
        let environment = try #require(baseline.environment)
        #expect(environment.ffmpeg == FFmpegVersions.release && environment.deterministic == false && (environment.cores ?? 0) >= 1)
        #expect(environment.libraries?.contains { $0.hasPrefix("libx264.so.") } == true)
        #expect(environment.cpu?.contains("sse2") == true)

        let reversed = try Self.regress(dir, files.reversed())
        #expect(reversed.status == 0, "\(reversed.stdout)\(reversed.stderr)")
        #expect(reversed.stdout.contains("2 passed, 0 failed"))

        let junit = dir.appendingPathComponent("junit.xml")
        let part = try Self.regress(dir, [files[0]], ["--junit", junit.path])
        #expect(part.status == ExitStatus.regression)
        #expect(part.stdout.contains("not checked: samples/portrait-rotated.mov|low"), "\(part.stdout)")
        let xml = try String(contentsOf: junit, encoding: .utf8)
        #expect(xml.contains(#"<testcase classname="regress.low" name="samples/portrait-rotated.mov" time="0.000">"#)
                && xml.contains(#"<skipped message="not checked by this run: the baseline holds it (exit 4 without --subset)"/>"#)
                && xml.contains(#"tests="2" failures="0" errors="0" skipped="1""#), "\(xml)")
        let subset = try Self.regress(dir, [files[0]], ["--subset"])
        #expect(subset.status == 0, "\(subset.stdout)\(subset.stderr)")
        #expect(subset.stderr.contains("note: not checked (--subset): samples/portrait-rotated.mov|low"), "\(subset.stderr)")
    }

    @Test("two samples with one key (a file also inside a folder given) are a usage error naming both")
    func twoSamplesWithOneKeyAreAnError() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let files = try Self.samples(in: dir)
        let folder = dir.appendingPathComponent("samples").path
        let r = try Self.regress(dir, [folder, files[1]])
        #expect(r.status == ExitStatus.usage)
        #expect(r.stderr.contains("samples/portrait-rotated.mov") && r.stderr.contains(folder) && r.stderr.contains(files[1]), "\(r.stderr)")
        let presets = try Self.regress(dir, [files[0]], ["--preset", TestSupport.repoRoot.path + "/Presets/low.json"])
        #expect(presets.status == ExitStatus.usage && presets.stderr.contains("two presets are named low"), "\(presets.stderr)")
    }

    @Test("a sample replaced by another encode of the same name fails as 'sample changed'")
    func aReencodedSampleIsNamed() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let sample = try Self.samples(in: dir)[0]
        #expect(try Self.regress(dir, [sample], ["--update-baseline"]).status == 0)
        let other = dir.appendingPathComponent("other.mov").path
        let encode = try TestSupport.run("/usr/bin/ffmpeg", ["-v", "error", "-i", sample, "-vf", "scale=160:90", "-c:v", "libx264", "-crf", "35", other])
        #expect(encode.status == 0, "\(encode.stderr)")
        try FileManager.default.removeItem(atPath: sample)
        try FileManager.default.moveItem(atPath: other, toPath: sample)
        let r = try Self.regress(dir, [sample])
        #expect(r.status == ExitStatus.regression)
        let line = try #require(r.stdout.split(separator: "\n").first { $0.hasPrefix("samples/landscape.mov") })
        #expect(line.contains("FAIL") && line.contains("sample changed (SHA-256 "), "\(line)")
        #expect(line.contains("width: baseline 320, actual 160"), "the first difference still follows: \(line)")
    }

    @Test("a sample swapped for another within tolerance fails as 'sample changed' unless its entry follows its sample; the JUnit of 1 failure, 1 pass and 1 entry not checked parses")
    func aSwappedSampleFailsAndJUnitReadsAsCI() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let files = try Self.samples(in: dir)
        let third = dir.appendingPathComponent("samples/third.mov").path
        try FileManager.default.copyItem(atPath: files[0], toPath: third)
        #expect(try Self.regress(dir, files + [third], ["--update-baseline"]).status == 0)
        // The same movie with an empty `free` atom after it: other bytes, the same export.
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: files[0]))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data([0, 0, 0, 8]) + Data("free".utf8))
        try handle.close()
        let junit = dir.appendingPathComponent("junit.xml").path, kept = dir.appendingPathComponent("kept").path
        let r = try Self.regress(dir, files, ["--junit", junit, "--keep-failed", kept, "--json"])
        #expect(r.status == ExitStatus.regression)
        let cases = try Self.cases(r)
        let swapped = try #require(cases.first { $0.sample == "samples/landscape.mov" })
        #expect(swapped.status == .fail && swapped.differences.isEmpty && swapped.cause?.kind == .sampleChanged, "\(swapped)")
        #expect(swapped.headline.hasPrefix("sample changed (SHA-256 "))
        #expect(cases.first { $0.sample == "samples/portrait-rotated.mov" }?.status == .pass)
        let script = """
        import sys, xml.dom.minidom
        d = xml.dom.minidom.parse(sys.argv[1])
        print(len(d.getElementsByTagName('properties')), len(d.getElementsByTagName('property')))
        for f in d.getElementsByTagName('failure'): print('failure', f.getAttribute('type'), f.getAttribute('message')[:15])
        for c in d.getElementsByTagName('testcase'): print('case', c.getAttribute('classname'), c.getAttribute('name'))
        for k in d.getElementsByTagName('skipped'): print('skipped', k.getAttribute('message')[:11])
        for o in d.getElementsByTagName('system-out'): print('out', o.firstChild.data[:13])
        """
        let parsed = try TestSupport.run("/usr/bin/python3", ["-c", script, junit])
        #expect(parsed.status == 0, "\(parsed.stderr)")
        let lines = parsed.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "1 9", "one <properties> of the environment, the baseline and the command line: \(lines)")
        #expect(lines.contains("failure sampleChanged sample changed ") && lines.contains("skipped not checked") && lines.contains("out [[ATTACHMENT|"), "\(lines)")
        let classnames = lines.filter { $0.hasPrefix("case ") }.map { $0.split(separator: " ")[1] }
        #expect(classnames == ["regress.low", "regress.low", "regress.low"], "\(lines)")
        #expect(!classnames.contains { ["mov", "mp4", "MOV"].contains(String($0.split(separator: ".").last ?? "")) })

        // An entry marked to follow its sample judges the new sample by its measurement alone.
        let url = dir.appendingPathComponent("baseline.json")
        var baseline = try Baseline.load(url.path)
        baseline.entries["samples/landscape.mov|low"]?.followsSample = true
        try baseline.save(url.path)
        let follows = try Self.regress(dir, files, ["--subset"])
        #expect(follows.status == 0, "\(follows.stdout)\(follows.stderr)")
        #expect(try Self.regress(dir, files + [third], ["--update-baseline"]).status == 0)
        #expect(try Baseline.load(url.path).entries["samples/landscape.mov|low"]?.followsSample == true, "the mark survives an update")
    }

    @Test("a preset file reusing a built-in's name with other settings fails as 'preset changed', quality named before size; --keep-failed keeps the output, never over a file")
    func aChangedPresetIsNamedAndItsOutputKept() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let sample = try Self.samples(in: dir)[0]
        #expect(try Self.regress(dir, [sample], ["--update-baseline"]).status == 0)
        var low = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: TestSupport.repoRoot.path + "/Presets/low.json"))) as! [String: Any]
        var video = low["video"] as! [String: Any]
        video["crf"] = 36
        low["video"] = video
        low["summary"] = "H.264, CRF 36"
        low["aliases"] = ["Smaller"]
        let presetFile = dir.appendingPathComponent("low.json").path
        try JSONSerialization.data(withJSONObject: low).write(to: URL(fileURLWithPath: presetFile))
        let kept = dir.appendingPathComponent("kept")
        try FileManager.default.createDirectory(at: kept, withIntermediateDirectories: true)
        let theirs = kept.appendingPathComponent("samples_landscape.mov_low.mp4")
        try Data("not ours".utf8).write(to: theirs)

        let junit = dir.appendingPathComponent("junit.xml").path, html = dir.appendingPathComponent("report.html").path
        let r = try Self.regress(dir, [sample], preset: presetFile, ["--keep-failed", kept.path, "--json", "--junit", junit, "--html", html])
        #expect(r.status == ExitStatus.regression)
        let c = try #require(try Self.cases(r).first)
        let first = "preset changed (video.crf 28 → 36"
        #expect(c.status == .fail && c.cause == RegressCause(kind: .presetChanged, detail: "video.crf 28 → 36"), "names and summaries left out: \(String(describing: c.cause))")
        let properties = c.differences.map(\.property)
        #expect(properties.first == "psnr" && properties.contains("size"), "\(properties)")
        #expect(properties.firstIndex(of: "size")! > properties.firstIndex(of: "psnr")!)
        #expect(try String(contentsOf: theirs, encoding: .utf8) == "not ours", "a file the run did not write is left alone")
        let output = try #require(c.keptOutput)
        #expect(output == kept.appendingPathComponent("samples_landscape.mov_low-2.mp4").path)
        let measured = try Measurer.measure(output: output, source: sample, route: "transcode")
        #expect(measured.codecs.first == "h264" && measured.size == c.measurement?.size)
        // The cause first everywhere: the JUnit message (its type the cause's kind, the kept output attached), the
        // HTML's failing case, the final JSON record and the table.
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        #expect(xml.contains("<failure type=\"presetChanged\" message=\"\(first)") && xml.contains("<system-out>[[ATTACHMENT|\(output)]]</system-out>"), "\(xml)")
        let page = try String(contentsOfFile: html, encoding: .utf8)
        let headline = try #require(page.components(separatedBy: "<p class=\"headline\">").dropFirst().first)
        #expect(headline.hasPrefix(first), "\(headline.prefix(200))")
        let finished = try JSONLine(line: String(try #require(r.stdout.split(separator: "\n").last)))
        #expect(finished.kind == "regressFinished")
        guard case .object(let summary) = finished.payload, case .array(let failures) = summary["failures"],
              case .object(let failure) = failures.first, case .string(let line) = failure["headline"] else { Issue.record("\(finished)"); return }
        #expect(summary["exitCode"] == .number(4) && summary["passed"] == .number(0) && summary["failed"] == .number(1))
        #expect(line.hasPrefix(first), "\(line)")
        let table = try Self.regress(dir, [sample], preset: presetFile)
        let row = try #require(table.stdout.split(separator: "\n").first { $0.hasPrefix("samples/landscape.mov") })
        #expect(row.split(separator: " ", omittingEmptySubsequences: true).dropFirst(3).joined(separator: " ").hasPrefix(first), "\(row)")
        #expect(row.contains("); psnr: baseline"), "\(row)")
    }

    @Test("--deterministic records every output's SHA-256 and compares it; the environment says so")
    func deterministicBaselinesCompareTheOutputsHash() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let sample = try Self.samples(in: dir)[0]
        #expect(try Self.regress(dir, [sample], ["--update-baseline", "--deterministic"]).status == 0)
        let url = dir.appendingPathComponent("baseline.json")
        let baseline = try Baseline.load(url.path)
        #expect(baseline.environment?.deterministic == true)
        let hash = try #require(baseline.entries["samples/landscape.mov|low"]?.measurement?.outputSHA256)
        #expect(hash.count == 64)
        #expect(try Self.regress(dir, [sample]).status == 0, "a run that is not deterministic does not compare the hash")
        var edited = baseline
        edited.entries["samples/landscape.mov|low"]?.measurement?.outputSHA256 = String(repeating: "0", count: 64)
        try edited.save(url.path)
        let r = try Self.regress(dir, [sample], ["--deterministic"])
        #expect(r.status == ExitStatus.regression)
        #expect(r.stdout.contains("outputSHA256: baseline 0000"), "\(r.stdout)")
    }

    /// A measurement as a transcode's baseline would hold it.
    static let measured = MediaExportCore.Measurement(container: "mov,mp4,m4a,3gp,3g2,mj2", codecs: ["h264"], width: 320, height: 180,
                                                      duration: 2, rotation: 0, timestampsIncreasing: true, size: 50_000,
                                                      route: "transcode", psnr: 38, ssim: 0.98)

    @Test("quality before size, the output's hash after both")
    func differencesNameQualityFirst() {
        var worse = Self.measured
        worse.size = 30_000
        worse.psnr = 30
        worse.ssim = 0.9
        #expect(BaselineComparison.differences(worse, Self.measured, .defaults).map(\.property) == ["psnr", "ssim", "size"])
        var base = Self.measured
        base.outputSHA256 = "a"
        worse.outputSHA256 = "b"
        #expect(BaselineComparison.differences(worse, base, .defaults).map(\.property) == ["psnr", "ssim", "size", "outputSHA256"])
        var plain = worse
        plain.outputSHA256 = nil
        #expect(!BaselineComparison.differences(plain, base, .defaults).contains { $0.property == "outputSHA256" })
    }

    @Test("causes in order: sample, preset, libraries, then the CPU only where the baseline is not deterministic; nothing recorded, no cause")
    func causesComeInOrder() throws {
        let low = try PresetRecord(try TestSupport.preset("low"))
        let here = RegressEnvironment(ffmpeg: "5.1.9", libraries: ["libx264.so.164"], cpu: ["sse2", "avx2"], cores: 2, deterministic: false)
        var baseline = Baseline(ffmpeg: ["libavcodec 59.37.100"])
        baseline.environment = RegressEnvironment(ffmpeg: "5.1.9", libraries: ["libx264.so.164"], cpu: ["sse2", "avx2", "avx512"])
        let entry = Baseline.Entry(sampleSHA256: "a", preset: low)
        let finder = CauseFinder(baseline: baseline, here: here, libav: ["libavcodec 59.37.100"])
        #expect(finder.cause(entry: entry, sampleSHA256: "b", preset: low)?.kind == .sampleChanged)
        var other = try TestSupport.preset("low")
        other.video?.crf = 30
        #expect(finder.cause(entry: entry, sampleSHA256: "a", preset: try PresetRecord(other))?.description == "preset changed (video.crf 28 → 30)")
        // Settings that change the output first; names and summaries only when nothing else changed.
        other.summary = "another"; other.aliases = ["X"]; other.video?.encoderPreset = "slow"; other.audio?.bitrate = 96_000
        let changes = SettingsChanges.between(low.settings, try PresetRecord(other).settings)
        #expect(changes == ["video.crf 28 → 30", "audio.bitrate 64000 → 96000", "video.encoderPreset veryfast → slow"],
                "\(changes)")
        var renamed = try TestSupport.preset("low")
        renamed.summary = "another"
        #expect(SettingsChanges.between(low.settings, try PresetRecord(renamed).settings).first?.hasPrefix("summary ") == true)
        #expect(finder.cause(entry: entry, sampleSHA256: "a", preset: low)?.description == "CPU differs (baseline avx512…, here avx2…)")
        baseline.environment?.deterministic = true
        #expect(CauseFinder(baseline: baseline, here: here, libav: baseline.ffmpeg).cause(entry: entry, sampleSHA256: "a", preset: low) == nil)
        baseline.environment?.libraries = ["libx264.so.155"]
        #expect(CauseFinder(baseline: baseline, here: here, libav: ["libavcodec 59.39.100"]).cause(entry: entry, sampleSHA256: "a", preset: low)?.description
                == "libraries changed (libavcodec 59.37.100 → libavcodec 59.39.100, libx264.so.155 → libx264.so.164)")
        // A baseline made before any of this was recorded: no cause, whatever differs.
        let old = try JSONDecoder().decode(Baseline.self, from: Data(#"{"version":1,"ffmpeg":["libavcodec 59.37.100"],"entries":{"a.mov|low":{"measurement":null}}}"#.utf8))
        #expect(old.environment == nil && old.entries["a.mov|low"]?.sampleSHA256 == nil)
        let none = CauseFinder(baseline: old, here: here, libav: old.ffmpeg)
        #expect(none.cause(entry: old.entries["a.mov|low"]!, sampleSHA256: "b", preset: low) == nil)
    }
}
