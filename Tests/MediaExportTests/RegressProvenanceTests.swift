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
        #expect(xml.contains(#"<testcase classname="samples/portrait-rotated.mov" name="low" time="0.000">"#)
                && xml.contains(#"<failure message="not checked by this run"/>"#) && xml.contains(#"tests="2" failures="1""#), "\(xml)")
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

    @Test("a preset file reusing a built-in's name with other settings fails as 'preset changed', quality named before size; --keep-failed keeps the output, never over a file")
    func aChangedPresetIsNamedAndItsOutputKept() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let sample = try Self.samples(in: dir)[0]
        #expect(try Self.regress(dir, [sample], ["--update-baseline"]).status == 0)
        var low = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: TestSupport.repoRoot.path + "/Presets/low.json"))) as! [String: Any]
        var video = low["video"] as! [String: Any]
        video["crf"] = 40
        low["video"] = video
        let presetFile = dir.appendingPathComponent("low.json").path
        try JSONSerialization.data(withJSONObject: low).write(to: URL(fileURLWithPath: presetFile))
        let kept = dir.appendingPathComponent("kept")
        try FileManager.default.createDirectory(at: kept, withIntermediateDirectories: true)
        let theirs = kept.appendingPathComponent("samples_landscape.mov_low.mp4")
        try Data("not ours".utf8).write(to: theirs)

        let r = try Self.regress(dir, [sample], preset: presetFile, ["--keep-failed", kept.path, "--json"])
        #expect(r.status == ExitStatus.regression)
        let c = try #require(try Self.cases(r).first)
        #expect(c.status == .fail && c.cause == RegressCause(kind: .presetChanged, detail: "video.crf 28 → 40"))
        let properties = c.differences.map(\.property)
        #expect(properties.first == "psnr" && properties.contains("size"), "\(properties)")
        #expect(properties.firstIndex(of: "size")! > properties.firstIndex(of: "psnr")!)
        #expect(try String(contentsOf: theirs, encoding: .utf8) == "not ours", "a file the run did not write is left alone")
        let output = try #require(c.keptOutput)
        #expect(output == kept.appendingPathComponent("samples_landscape.mov_low-2.mp4").path)
        let measured = try Measurer.measure(output: output, source: sample, route: "transcode")
        #expect(measured.codecs.first == "h264" && measured.size == c.measurement?.size)
        let table = try Self.regress(dir, [sample], preset: presetFile)
        #expect(table.stdout.contains("preset changed (video.crf 28 → 40); psnr: baseline"), "\(table.stdout)")
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
