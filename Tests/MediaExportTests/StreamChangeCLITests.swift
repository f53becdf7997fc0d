import Foundation
import Testing
@testable import MediaExportCore

/// A change to a kept stream a person would notice is named: a 5.1 source exported stereo says "downmix 6 → 2" in
/// the plan line, the `started` record's stream entry and the notes; ffprobe confirms the two channels.
@Suite struct StreamChangeCLITests {
    /// 1 s of H.264 + 5.1 AAC at 48 kHz.
    static func surround(in dir: URL) throws -> String {
        let path = dir.appendingPathComponent("surround.mp4").path
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=1",
                                "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=1",
                                "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-ac", "6", path])
        return path
    }

    static func records(_ stdout: String) throws -> [[String: Any]] {
        try stdout.split(separator: "\n").map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
    }

    @Test func aDownmixIsNamedInTheJSONRecords() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let input = try Self.surround(in: dir)
        #expect(try FFprobe(input).audio?.channels == 6)
        let out = dir.appendingPathComponent("stereo.mp4").path
        let r = try TestSupport.tool(["--json", "-p", "highest", input, out])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try FFprobe(out).audio?.channels == 2)
        let records = try Self.records(r.stdout)
        let started = try #require(records.first { $0["kind"] as? String == "started" }?["payload"] as? [String: Any])
        let audio = try #require((started["streams"] as? [[String: Any]])?.first { $0["type"] as? String == "audio" })
        let changes = try #require(audio["changes"] as? [[String: String]], "\(audio)")
        #expect(changes.contains(["kind": "downmix", "from": "6", "to": "2"]), "\(changes)")
        let completed = try #require(records.last?["payload"] as? [String: Any])
        #expect((completed["notes"] as? [String] ?? []).contains("stream #1 audio: downmix 6 → 2 channels"), "\(completed)")
    }

    @Test func aDownmixIsAPlanLineAndANoteOnStderrNotWithQuiet() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let input = try Self.surround(in: dir)
        let r = try TestSupport.tool(["-p", "highest", input, dir.appendingPathComponent("a.mp4").path])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("#1 audio aac → aac (downmix 6 → 2 channels)"), "\(r.stderr)")
        #expect(r.stderr.components(separatedBy: "downmix 6 → 2 channels").count == 2, "said once, in the plan line: \(r.stderr)")
        #expect(!r.stdout.contains("note:") && !r.stdout.contains("downmix"), "\(r.stdout)")
        let q = try TestSupport.tool(["-q", "-p", "highest", input, dir.appendingPathComponent("q.mp4").path])
        #expect(q.status == 0 && q.stdout.isEmpty && q.stderr.isEmpty, "\(q.stdout)\(q.stderr)")
    }
}
