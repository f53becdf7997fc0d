import Foundation
import Testing
@testable import MediaExport
@testable import MediaExportCore
@testable import MediaExportFFmpeg

/// Issue 46, "Wording and records": the report's new columns, ignored files by key, times in JSON to the
/// millisecond and dates in ISO 8601, paths normalised in messages — each checked on the real tool's output.
@Suite struct ReportRecordsTests {
    /// uploads/landscape.mov, uploads/trip/broken.mov (cut short: salvaged, partial), and two files that are not media.
    static func folder() throws -> URL {
        let dir = try BatchStateTests.folder()
        let trip = dir.appendingPathComponent("uploads/trip")
        try FileManager.default.createDirectory(at: trip, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: RobustnessTests.bad.appendingPathComponent("cut-at-half.mp4").path,
                                         toPath: trip.appendingPathComponent("broken.mov").path)
        try Data("notes\n".utf8).write(to: dir.appendingPathComponent("uploads/notes.txt"))
        try Data("more notes\n".utf8).write(to: trip.appendingPathComponent("extra.txt"))
        return dir
    }

    static func batch(_ dir: URL, report: String, _ extra: [String] = []) throws -> TestSupport.RunResult {
        try TestSupport.tool(["batch", dir.appendingPathComponent("uploads").path, "--out", dir.appendingPathComponent("out").path,
                              "--preset", "low", "--jobs", "1", "--metadata", "sharing", "--shard", "0/1",
                              "--report", dir.appendingPathComponent(report).path] + extra)
    }

    /// A CSV report's cells by column, for each line (no cell here holds a comma or a quote).
    static func csv(_ path: String) throws -> [[String: String]] {
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        let header = try #require(lines.first)
        return lines.dropFirst().map { Dictionary(uniqueKeysWithValues: zip(header, $0)) }
    }

    @Test func theCSVHasDurationPartialWarningsShardAndMetadataAndIgnoredFilesByKey() throws {
        let dir = try Self.folder()
        defer { TestSupport.cleanup(dir) }
        let run = try Self.batch(dir, report: "report.csv")
        #expect(run.status == 3, "a salvage: \(run.stdout)\(run.stderr)")
        let header = try String(contentsOfFile: dir.appendingPathComponent("report.csv").path, encoding: .utf8).prefix { $0 != "\n" }
        #expect(header.hasSuffix(",finishedAt,damage,duration,partial,warnings,shard,metadata"), "new columns at the end: \(header)")
        let lines = try Self.csv(dir.appendingPathComponent("report.csv").path)
        let byKey = Dictionary(uniqueKeysWithValues: lines.map { ($0["key"] ?? "", $0) })

        let whole = try #require(byKey["landscape.mov"])
        let output = dir.appendingPathComponent("out/landscape.mp4").path
        let probed = try #require(Double(try CLIOverrideTests.probe(output, "format=duration")))
        #expect(whole["duration"] == String(format: "%.3f", probed), "the output's duration, to the ms: \(whole)")
        #expect(whole["partial"] == "" && whole["shard"] == "0/1" && whole["metadata"] == "sharing", "\(whole)")
        #expect(Int(whole["warnings"] ?? "") != nil, "a count a spreadsheet filters on: \(whole)")

        let broken = try #require(byKey["trip/broken.mov"])
        #expect(broken["route"] == "salvage" && broken["partial"]?.contains("delivered") == true, "\(broken)")
        #expect((Int(broken["warnings"] ?? "") ?? 0) >= 1 && broken["metadata"] == "sharing", "\(broken)")
        let salvaged = try #require(Double(try CLIOverrideTests.probe(dir.appendingPathComponent("out/trip/broken.mp4").path, "format=duration")))
        #expect(abs((Double(broken["duration"] ?? "") ?? 0) - salvaged) < 0.0015, "\(broken)")

        // Ignored files: the key as rows have it, the file as named in `input`.
        let real = try #require(FileSystem.realPath(dir.path))
        for key in ["notes.txt", "trip/extra.txt"] {
            let line = try #require(byKey[key], "\(byKey.keys.sorted())")
            #expect(line["status"] == "ignored" && line["input"] == real + "/uploads/" + key, "\(line)")
        }
        // The summary names them by key too.
        #expect(run.stdout.contains("2 not media (notes.txt, trip/extra.txt)") || run.stderr.contains("2 not media (notes.txt, trip/extra.txt)"),
                "\(run.stdout)\(run.stderr)")
        // Read back (and merged), the new columns stay.
        let back = try BatchReport.readDocument(dir.appendingPathComponent("report.csv").path)
        let row = try #require(back.rows.first { $0.key == "landscape.mov" })
        #expect(row.shard == "0/1" && row.metadata == .sharing && row.duration.map { abs($0 - probed) < 0.0015 } == true)
        #expect(back.ignored.map(\.key).sorted() == ["notes.txt", "trip/extra.txt"])
    }

    @Test func theJSONReportAgreesWithTheCSV() throws {
        let dir = try Self.folder()
        defer { TestSupport.cleanup(dir) }
        _ = try Self.batch(dir, report: "report.csv")
        let rerun = try Self.batch(dir, report: "report.json")
        #expect(rerun.status == 3, "\(rerun.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent("report.json"))) as? [String: Any])
        let rows = try #require(object["rows"] as? [[String: Any]])
        let whole = try #require(rows.first { $0["key"] as? String == "landscape.mov" })
        #expect(whole["status"] as? String == "unchanged" && whole["shard"] as? String == "0/1" && whole["metadata"] as? String == "sharing")
        let duration = try #require(whole["duration"] as? Double)
        #expect(duration == JSONTime.milliseconds(duration) && duration > 1.9, "to the ms: \(duration)")
        let wall = try #require(whole["wallTime"] as? Double)
        #expect(wall == JSONTime.milliseconds(wall), "\(wall)")
        let ignored = try #require(object["ignored"] as? [[String: Any]])
        #expect(Set(ignored.compactMap { $0["key"] as? String }) == ["notes.txt", "trip/extra.txt"], "\(ignored)")
        #expect(ignored.allSatisfy { ($0["path"] as? String)?.hasPrefix("/") == true }, "the file as named, beside its key")
        // The CSV from the first run has the same row values.
        let csv = try Self.csv(dir.appendingPathComponent("report.csv").path).first { $0["key"] == "landscape.mov" }
        #expect(csv?["duration"] == String(format: "%.3f", duration))
    }

    @Test func aCompanionsOfIsItsAssetsKey() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let sub = dir.appendingPathComponent("in/trip")
        try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: TestSupport.fixture("landscape.mov"), toPath: sub.appendingPathComponent("IMG_0001.MOV").path)
        try Data("{}".utf8).write(to: sub.appendingPathComponent("IMG_0001.AAE"))
        var hashes: [String: String] = [:]
        let plan = try BatchPlanner.makePlan(BatchOptions(inputs: [dir.appendingPathComponent("in").path], outputDirectory: dir.appendingPathComponent("out").path,
                                                          preset: try TestSupport.preset("low"), jobs: 1, dryRun: true), hashes: &hashes)
        let sidecar = try #require(plan.ignored.first { $0.kind == .sidecar }, "\(plan.ignored)")
        #expect(sidecar.key == "trip/IMG_0001.AAE" && sidecar.of == "trip/IMG_0001.MOV" && plan.items.map(\.key) == ["trip/IMG_0001.MOV"])
    }

    /// Every number under a time's key in `value` is to the millisecond; returns how many were checked.
    static func checkTimes(_ value: Any, key: String? = nil, in line: String) -> Int {
        switch value {
        case let object as [String: Any]: return object.reduce(0) { $0 + checkTimes($1.value, key: $1.key, in: line) }
        case let array as [Any]: return array.reduce(0) { $0 + checkTimes($1, key: key, in: line) }
        case let n as Double where key.map(JSONTime.keys.contains) == true && !(value is Bool):
            #expect(n == JSONTime.milliseconds(n), "\(key ?? ""): \(n) in \(line)")
            return 1
        default: return 0
        }
    }

    @Test func timesInJSONAreMillisecondsAndDatesISO8601() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        // thumbnail --json: `time` to the ms (it printed 0.2548999999999999).
        let thumb = try TestSupport.tool(["thumbnail", "--json", TestSupport.fixture("landscape.mov"), dir.appendingPathComponent("t.jpg").path])
        #expect(thumb.status == 0, "\(thumb.stderr)")
        let line = try #require(thumb.stdout.split(separator: "\n").last.map(String.init))
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8))
        #expect(Self.checkTimes(object, in: line) == 1, "\(line)")
        // An export's records and a batch's: every time, speed and frame rate.
        let export = try TestSupport.tool(["--json", TestSupport.fixture("landscape.mov"), dir.appendingPathComponent("e.mp4").path])
        let batchOut = dir.appendingPathComponent("b").path
        let batch = try TestSupport.tool(["batch", "--json", "--jobs", "1", "--preset", "low", TestSupport.fixture("assets"), "--out", batchOut])
        var checked = 0
        for text in (export.stdout + batch.stdout).split(separator: "\n").map(String.init) {
            let object = try JSONSerialization.jsonObject(with: Data(text.utf8))
            checked += Self.checkTimes(object, in: text)
        }
        #expect(checked > 10, "\(export.stdout)")
        #expect(export.stdout.contains("\"wallTime\":") && batch.stdout.contains("\"wallTime\":"))
        // `planned.created` is a date like every other: ISO 8601, UTC.
        let planned = try CLIOverrideTests.record("planned", in: batch.stdout)
        let created = try #require(planned["created"] as? String, "\(planned)")
        #expect(created.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/) != nil, "\(created)")
    }

    @Test func pathsInMessagesAreNormalised() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        for name in ["out", "clips"] { try FileManager.default.createDirectory(at: dir.appendingPathComponent(name), withIntermediateDirectories: true) }
        try Data("taken".utf8).write(to: dir.appendingPathComponent("clips/trunc.mov"))
        let asked = dir.path + "/out/../clips//./trunc.mov"
        let r = try TestSupport.tool([TestSupport.fixture("landscape.mov"), asked, "--preset", "low"])
        #expect(r.status == 73, "\(r.stderr)")
        #expect(r.stderr.contains(dir.path + "/clips/trunc.mov: output exists") && !r.stderr.contains("/../"), "\(r.stderr)")
        // The record for programs keeps the path as given.
        let json = try TestSupport.tool(["--json", TestSupport.fixture("landscape.mov"), asked, "--preset", "low"])
        let failed = try CLIOverrideTests.record("failed", in: json.stdout)
        #expect(failed["path"] as? String == asked && (failed["message"] as? String)?.contains("/../") == false, "\(failed)")
    }
}
