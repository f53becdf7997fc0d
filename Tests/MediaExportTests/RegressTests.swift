import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
@testable import MediaExport
@testable import MediaExportCore
@testable import MediaExportFFmpeg
@testable import mediaexport

/// `mediaexport regress`: baselines, tolerances, JUnit, and the quality meter.
@Suite struct RegressTests {
    static let samples = ["landscape.mov", "portrait-rotated.mov"]

    /// Runs the CLI with a baseline in `dir`, on copies of the samples beside it (keys are relative to its folder).
    static func regress(_ dir: URL, _ extra: [String] = []) throws -> TestSupport.RunResult {
        let copies = try samples.map { name in
            let copy = dir.appendingPathComponent(name).path
            if !FileManager.default.fileExists(atPath: copy) { try FileManager.default.copyItem(atPath: TestSupport.fixture(name), toPath: copy) }
            return copy
        }
        return try TestSupport.tool(["regress"] + copies + ["--preset", "low", "--preset", "passthrough",
                                                            "--baseline", dir.appendingPathComponent("baseline.json").path] + extra)
    }

    static func editBaseline(_ dir: URL, _ change: (inout [String: Any]) -> Void) throws {
        let url = dir.appendingPathComponent("baseline.json")
        var json = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as! [String: Any]
        var entries = json["entries"] as! [String: Any]
        var entry = entries["landscape.mov|low"] as! [String: Any]
        var m = entry["measurement"] as! [String: Any]
        change(&m)
        entry["measurement"] = m
        entries["landscape.mov|low"] = entry
        json["entries"] = entries
        try JSONSerialization.data(withJSONObject: json, options: [.sortedKeys]).write(to: url)
    }

    @Test("a sample folder given through a symlink keys its files as the folder itself does")
    func samplesThroughSymlinkKeepTheirKeys() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let real = dir.appendingPathComponent("samples")
        try FileManager.default.createDirectory(at: real.appendingPathComponent("sub"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: TestSupport.fixture("landscape.mov"), toPath: real.appendingPathComponent("sub/a.mov").path)
        let link = dir.appendingPathComponent("link").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: real.path)
        func keys(_ sample: String) throws -> [String] {
            let runner = RegressRunner(samples: [sample], presets: [])
            runner.keyFolder = dir.path
            return try runner.assets().map(\.key)
        }
        #expect(try keys(real.path) == ["samples/sub/a.mov"])
        #expect(try keys(link) == ["samples/sub/a.mov"])
        #expect(try keys(real.appendingPathComponent("sub/a.mov").path) == ["samples/sub/a.mov"], "a file given alone")
    }

    @Test func baselineRoundTripsAndCatchesRegressions() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        // No baseline yet: every case is missing → fails; --update-baseline writes it.
        let first = try Self.regress(dir)
        #expect(first.status == ExitStatus.regression)
        #expect(first.stdout.contains("MISSING"))
        let update = try Self.regress(dir, ["--update-baseline"])
        #expect(update.status == 0, "\(update.stderr)")
        #expect(update.stdout.contains("added landscape.mov|low"))
        // Untouched: passes; a second update changes nothing.
        let pass = try Self.regress(dir)
        #expect(pass.status == 0, "\(pass.stdout)\(pass.stderr)")
        #expect(pass.stdout.contains("4 passed, 0 failed"))
        #expect(try Self.regress(dir, ["--update-baseline"]).stdout.contains("unchanged"))
        let baseline = try Baseline.load(dir.appendingPathComponent("baseline.json").path)
        let low = try #require(baseline.entries["landscape.mov|low"]?.measurement ?? nil)
        #expect(low.route == "transcode" && (low.psnr ?? 0) > 30 && (low.ssim ?? 0) > 0.9 && low.frameCount == 60)
        #expect(baseline.entries["portrait-rotated.mov|passthrough"]?.measurement?.packetsMatchSource == true)
        #expect(baseline.entries["portrait-rotated.mov|low"]?.measurement?.rotation == 90)
        #expect(baseline.ffmpeg == FFmpegVersions.lines)

        // Each edited property is caught and named.
        for (property, change) in [("duration", { (m: inout [String: Any]) in m["duration"] = 2.5 }),
                                   ("psnr", { (m: inout [String: Any]) in m["psnr"] = 60.0 }),
                                   ("rotation", { (m: inout [String: Any]) in m["rotation"] = 90 })] {
            let copy = dir.appendingPathComponent("baseline.json.orig")
            try? FileManager.default.removeItem(at: copy)
            try FileManager.default.copyItem(at: dir.appendingPathComponent("baseline.json"), to: copy)
            try Self.editBaseline(dir, change)
            let r = try Self.regress(dir)
            #expect(r.status == ExitStatus.regression)
            let line = try #require(r.stdout.split(separator: "\n").first { $0.hasPrefix("landscape.mov") && $0.contains("low") })
            #expect(line.contains("FAIL") && line.contains(property), "\(line)")
            try FileManager.default.removeItem(at: dir.appendingPathComponent("baseline.json"))
            try FileManager.default.moveItem(at: copy, to: dir.appendingPathComponent("baseline.json"))
        }
        // Tolerances: a run override widens one; a per-sample one in the baseline file is honoured.
        try Self.editBaseline(dir) { m in m["size"] = (m["size"] as! Int) * 2 }
        #expect(try Self.regress(dir).status == ExitStatus.regression)
        #expect(try Self.regress(dir, ["--size-ratio", "0.6"]).status == 0, "a run override widens the tolerance")
        let url = dir.appendingPathComponent("baseline.json")
        var json = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as! [String: Any]
        var entries = json["entries"] as! [String: Any]
        var entry = entries["landscape.mov|low"] as! [String: Any]
        entry["tolerances"] = ["sizeRatio": 0.6]
        entries["landscape.mov|low"] = entry
        json["entries"] = entries
        try JSONSerialization.data(withJSONObject: json).write(to: url)
        #expect(try Self.regress(dir).status == 0, "the entry's own tolerance")
    }

    @Test func junitHasOneCasePerSampleAndPreset() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        _ = try Self.regress(dir, ["--update-baseline"])
        try Self.editBaseline(dir) { m in m["rotation"] = 180 }
        let xmlPath = dir.appendingPathComponent("regress.xml").path
        let r = try Self.regress(dir, ["--junit", xmlPath])
        #expect(r.status == ExitStatus.regression)
        let doc = try XMLDocument(contentsOf: URL(fileURLWithPath: xmlPath))
        let cases = try doc.nodes(forXPath: "//testcase")
        #expect(cases.count == 4)
        let failures = try doc.nodes(forXPath: "//testcase/failure")
        #expect(failures.count == 1)
        #expect((failures.first as? XMLElement)?.attribute(forName: "message")?.stringValue?.contains("rotation") == true)
        #expect((try doc.nodes(forXPath: "/testsuites/@tests").first?.stringValue) == "4")
    }

    @Test func psnrIsIdenticalForAFileItselfAndLowerForAHeavyCompression() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let same = try #require(try QualityMeter.compare(output: TestSupport.fixture("landscape.mov"), source: TestSupport.fixture("landscape.mov")))
        #expect(same.psnr == 100 && same.ssim == 1 && same.frames == 60)
        let crushed = dir.appendingPathComponent("crushed.mp4").path
        let preset = Preset(name: "crushed", video: VideoSettings(codec: .h264, encoderPreset: "ultrafast", crf: 51))
        try ExportSession(request: ExportRequest(input: TestSupport.fixture("landscape.mov"), output: crushed, preset: preset)).run()
        let good = dir.appendingPathComponent("good.mp4").path
        try TestSupport.export(TestSupport.fixture("landscape.mov"), to: good, preset: "highest")
        let low = try #require(try QualityMeter.compare(output: crushed, source: TestSupport.fixture("landscape.mov")))
        let high = try #require(try QualityMeter.compare(output: good, source: TestSupport.fixture("landscape.mov")))
        #expect(low.psnr < high.psnr - 5, "CRF 51: \(low.psnr) dB, CRF 18: \(high.psnr) dB")
        #expect(low.ssim < high.ssim)
        // Scaled outputs are compared at their own size: the source is scaled the same way.
        let small = dir.appendingPathComponent("small.mp4").path
        try TestSupport.export(TestSupport.fixture("hd1080.mp4"), to: small, preset: "640x480")
        let scaled = try #require(try QualityMeter.compare(output: small, source: TestSupport.fixture("hd1080.mp4")))
        #expect(scaled.frames == 30 && scaled.psnr > 25)
    }
}
