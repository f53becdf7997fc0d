import Foundation
import Testing
@testable import MediaExport
@testable import MediaExportCore
@testable import MediaExportFFmpeg

/// Issue 43, part 5: runs remember what earlier runs delivered by a fallback, and `--dry-run --check-data` reads a
/// sample of each upload's data.
@Suite struct BatchDataCheckTests {
    /// A 10 s 640x360 x264 + AAC clip (`-g 50`, the moov first) as `name` in `dir`.
    static func clip(_ name: String, in dir: URL) throws -> URL {
        let url = dir.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=640x360:r=25:d=10", "-f", "lavfi", "-i", "sine=f=440:d=10",
                                "-c:v", "libx264", "-g", "50", "-pix_fmt", "yuv420p", "-c:a", "aac", "-movflags", "+faststart", url.path])
        return url
    }

    /// `clip` with its bytes changed by `damage`.
    static func damaged(_ clip: URL, as name: String, _ damage: (inout Data) -> Void) throws -> URL {
        var data = try Data(contentsOf: clip)
        damage(&data)
        let url = clip.deletingLastPathComponent().appendingPathComponent(name)
        try data.write(to: url)
        return url
    }

    /// 128 kB of zeros at 40 % of the file.
    static func zeroed(_ data: inout Data) {
        let at = data.count * 4 / 10
        data.replaceSubrange(at..<min(data.count, at + 128 * 1024), with: Data(count: min(data.count - at, 128 * 1024)))
    }

    /// The rows of a JSON report, by key.
    static func rows(_ report: URL) throws -> [String: BatchReportRow] {
        Dictionary(uniqueKeysWithValues: try BatchReport.read(report.path).map { ($0.key, $0) })
    }

    @Test func aRerunOverASalvagedAssetExits3AndNamesIt() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let uploads = dir.appendingPathComponent("uploads"), scratch = dir.appendingPathComponent("scratch")
        let whole = try Self.clip("whole.mp4", in: scratch)
        let cut = try Self.damaged(whole, as: "cut.mp4") { $0 = $0.prefix($0.count * 60 / 100) }
        try FileManager.default.createDirectory(at: uploads, withIntermediateDirectories: true)
        try FileManager.default.moveItem(at: cut, to: uploads.appendingPathComponent("cut.mp4"))
        let report = dir.appendingPathComponent("report.json")
        let run = { (extra: [String]) in
            try TestSupport.tool(["batch", uploads.path, "--out", dir.appendingPathComponent("out").path, "--preset", "low", "-q",
                                  "--report", report.path] + extra)
        }
        let first = try run([])
        #expect(first.status == 3, "\(first.stdout)\n\(first.stderr)")
        #expect(try Self.rows(report)["cut.mp4"]?.route == "salvage")
        #expect(first.stdout.contains("1 fell back (cut.mp4)") && first.stderr.contains("cut.mp4: delivered by salvage"), "\(first.stdout)\n\(first.stderr)")

        let again = try run([])
        #expect(again.status == 3, "an unchanged salvage is still a salvage: \(again.stdout)\n\(again.stderr)")
        #expect(again.stdout.contains("1 fell back (cut.mp4), 1 unchanged"), "\(again.stdout)")
        #expect(again.stderr.contains("cut.mp4: delivered by salvage") && again.stderr.contains("partial (an earlier run's output, left in place)"),
                "\(again.stderr)")
        let row = try #require(try Self.rows(report)["cut.mp4"])
        #expect(row.status == "unchanged" && row.route == "salvage" && row.fellBack && row.account?.partial != nil, "\(row)")

        // A dry run exits as the run would.
        let dry = try run(["--dry-run"])
        #expect(dry.status == 3 && dry.stdout.contains("1 fell back (cut.mp4) in an earlier run"), "\(dry.stdout)\n\(dry.stderr)")
    }

    @Test func earlierFallbacksAndPartialsCountAsThisRunsDo() {
        func row(_ key: String, _ status: String, route: String, fallbacks: Int, partial: Bool = false) -> BatchReportRow {
            var r = BatchReportRow(key: key, input: "/in/" + key, action: "transcode", reason: "", status: status, route: route, fallbacks: fallbacks,
                                   versionRequested: "current", versionDelivered: "current", output: nil, bytesIn: 1, bytesOut: 1,
                                   estimatedBytes: nil, outputSHA256: nil, error: nil, wallTime: nil)
            if partial {
                r.account = ExportAccount(ExportEvent.Completed(output: "", bytes: 1, duration: 1, codecs: [], wallTime: 0, skippedPackets: 0, notes: []))
                r.account?.partial = ExportEvent.Partial(duration: 1, declaredDuration: 2, cause: "cut")
            }
            return r
        }
        let counts = BatchCounts([row("a", "unchanged", route: "remux", fallbacks: 1), row("b", "unchanged", route: "transcode", fallbacks: 0),
                                  row("c", "exported", route: "copy", fallbacks: 0, partial: true), row("d", "duplicate", route: "salvage", fallbacks: 2),
                                  row("e", "failed", route: "transcode", fallbacks: 1)])
        #expect(counts.fellBack == 3 && counts.fellBackAssets == ["a", "c", "d"], "\(counts)")
    }

    @Test func aDryRunWithCheckDataPlansAZeroedUploadAsASalvage() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let uploads = dir.appendingPathComponent("uploads")
        let clean = try Self.clip("clean.mp4", in: uploads)
        _ = try Self.damaged(clean, as: "zeroed.mp4", Self.zeroed)
        let report = dir.appendingPathComponent("report.json")
        let dryRun = { (extra: [String]) in
            try TestSupport.tool(["batch", uploads.path, "--out", dir.appendingPathComponent("out").path, "--preset", "low", "--dry-run",
                                  "--report", report.path] + extra)
        }
        let plain = try dryRun([])
        #expect(plain.status == 0, "\(plain.stdout)\n\(plain.stderr)")
        let unchecked = try Self.rows(report)
        #expect(unchecked["clean.mp4"]?.action == "transcode" && unchecked["zeroed.mp4"]?.action == "transcode", "\(unchecked)")
        #expect(unchecked.values.allSatisfy { $0.dataCheck == nil } && !plain.stdout.contains("sampled"))

        let checked = try dryRun(["--check-data"])
        #expect(checked.status == 0, "\(checked.stdout)\n\(checked.stderr)")
        let rows = try Self.rows(report)
        let zeroed = try #require(rows["zeroed.mp4"]), whole = try #require(rows["clean.mp4"])
        #expect(zeroed.action == "salvage" && zeroed.reason.hasPrefix("damaged: ") && zeroed.reason.contains("corrupt packet"), "\(zeroed)")
        #expect(zeroed.dataCheck?.isDamaged == true && (zeroed.dataCheck?.corrupt ?? 0) > 0, "\(String(describing: zeroed.dataCheck))")
        #expect(whole.action == "transcode" && whole.reason == unchecked["clean.mp4"]?.reason, "\(whole)")
        #expect(whole.dataCheck?.isDamaged == false && whole.dataCheck?.points.count == 5, "\(String(describing: whole.dataCheck))")
        #expect(checked.stdout.contains("1 salvage") && checked.stdout.contains("data of 2 assets sampled in "), "\(checked.stdout)")
        #expect(checked.stdout.contains(": 1 damaged"), "\(checked.stdout)")
        // --damaged fail: the run would fail it, and so does the dry run.
        let failing = try dryRun(["--check-data", "--damaged", "fail"])
        #expect(failing.status == 1 && failing.stderr.contains("zeroed.mp4: damaged: "), "\(failing.stderr)")
        // A run reads the data anyway: the flag is for dry runs.
        let refused = try TestSupport.tool(["batch", uploads.path, "--out", dir.appendingPathComponent("out").path, "--check-data"])
        #expect(refused.status == 64 && refused.stderr.contains("--check-data goes with --dry-run"), "\(refused.stderr)")
    }

    @Test func aCutUploadIsSaidToEndEarly() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let whole = try Self.clip("whole.mp4", in: dir)
        let cut = try Self.damaged(whole, as: "cut.mp4") { $0 = $0.prefix($0.count * 60 / 100) }
        let sample = DataCheck.sample(try ProbedSource(path: cut.path, cancel: nil))
        #expect(sample.truncated && (sample.dataEnd ?? 10) < 7, "\(sample)")
        #expect(sample.damage?.contains("the data ends at") == true, "\(sample.damage ?? "")")
        let clean = DataCheck.sample(try ProbedSource(path: whole.path, cancel: nil))
        #expect(!clean.isDamaged && clean.damage == nil && clean.seconds < 5, "\(clean)")
    }

    @Test func theDamagedRouteIsTheChainsForDamage() {
        #expect(ExportPlanner.damagedRoute(from: .transcode, fallback: .auto, damaged: .salvage) == .salvage)
        #expect(ExportPlanner.damagedRoute(from: .copy, fallback: .auto, damaged: .salvage) == .salvage)
        #expect(ExportPlanner.damagedRoute(from: .remux, fallback: .auto, damaged: .copy) == .copy)
        #expect(ExportPlanner.damagedRoute(from: .transcode, fallback: .auto, damaged: .fail) == nil)
        #expect(ExportPlanner.damagedRoute(from: .transcode, fallback: .none, damaged: .salvage) == nil)
    }
}
