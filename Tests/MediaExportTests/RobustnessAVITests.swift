import Foundation
import Testing
@testable import MediaExport
@testable import MediaExportCore
@testable import mediaexport

/// AVI damage (issue 29, item 4). The AVI demuxer numbers the frames it finds after damaged data without a gap, and
/// a file cut short loses its index, from which FFmpeg takes the duration: only the header's frame count
/// (`dwLength`, FFmpeg's `nb_frames`) tells what is gone. ffprobe's packet count is the oracle of what the data holds.
@Suite struct RobustnessAVITests {
    /// A 30 s, 750-frame MPEG-4 Part 2 AVI; `damage` rewrites its bytes.
    static func avi(in dir: URL, damage: (inout Data) -> Void) throws -> String {
        let path = dir.appendingPathComponent("clip.avi").path
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=640x360:r=25:d=30", "-c:v", "mpeg4", "-q:v", "5", "-f", "avi", path])
        var data = try Data(contentsOf: URL(fileURLWithPath: path))
        damage(&data)
        try data.write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Video packets in the data, as ffprobe counts them.
    static func videoPackets(_ path: String) throws -> Int {
        let r = try TestSupport.run("/usr/bin/ffprobe", ["-v", "error", "-count_packets", "-select_streams", "v:0",
                                                         "-show_entries", "stream=nb_read_packets", "-of", "csv=p=0", path])
        return Int(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    /// The `completed` or `failed` record's payload, and the exit status.
    static func export(_ input: String, in dir: URL) throws -> (status: Int32, payload: [String: Any]) {
        let r = try TestSupport.tool(["--json", "-y", "--preset", "low", input, dir.appendingPathComponent("out.mp4").path])
        let last = r.stdout.split(separator: "\n").last.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        return (r.status, last?["payload"] as? [String: Any] ?? [:])
    }

    @Test("64 KB zeroed inside an AVI: the frames lost are counted and named, with the seconds delivered")
    func zeroedAVICountsLostFrames() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let input = try Self.avi(in: dir) { data in
            let middle = data.count / 2
            data.replaceSubrange(middle..<middle + 65536, with: Data(count: 65536))
        }
        let held = try Self.videoPackets(input)
        #expect(held > 700 && held < 750, "the damage removes some frames, not most: \(held)")
        let (status, payload) = try Self.export(input, in: dir)
        #expect(status == 0, "\(payload)")
        #expect(payload["route"] as? String == "transcode")
        #expect(payload["skippedPackets"] as? Int ?? 0 >= 750 - held, "\(payload)")
        let warnings = payload["warnings"] as? [String] ?? []
        #expect(warnings.contains { $0.contains("video stream #0") && $0.contains("\(held) of the 750 frames the header declares") },
                "\(warnings)")
        #expect(warnings.contains { $0.contains(String(format: "%.2f s of 30.00 s delivered", Double(held) / 25)) }, "\(warnings)")
    }

    @Test("An AVI cut at half is truncated against its header's 750 frames: never a transcode with exit 0")
    func cutAVIIsTruncated() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let input = try Self.avi(in: dir) { data in data = data.prefix(data.count / 2) }
        let held = try Self.videoPackets(input)
        let (status, payload) = try Self.export(input, in: dir)
        #expect(status == ExitStatus.completedWithFallback, "\(payload)")
        let reasons = (payload["fallbacks"] as? [[String: Any]] ?? []).compactMap { $0["reason"] as? String }
        let first = reasons.first ?? ""
        #expect(first.contains("the file is truncated"), "\(reasons)")
        #expect(first.contains("(\(held) of the 750 frames the header declares)"), "\(reasons)")
        #expect(first.contains(String(format: "the data ends at %.2f s of 30.00 s", Double(held) / 25)), "\(reasons)")
    }

    /// Empty chunks are frames an AVI's writer dropped on purpose (a variable frame rate: FFmpeg's muxer writes them
    /// for the frames a `select` left out); the header counts them, the timestamps keep their slots. None is lost.
    @Test("An AVI with empty chunks (frames its writer dropped) loses no frame and warns of none")
    func droppedChunksAreNotLost() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let input = dir.appendingPathComponent("vfr.avi").path
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=320x240:r=25:d=4", "-vf", "select='not(between(n,10,14))'",
                                "-vsync", "passthrough", "-c:v", "mpeg4", "-f", "avi", input])
        #expect(try Self.videoPackets(input) == 95, "5 of the 100 declared frames are empty chunks")
        let (status, payload) = try Self.export(input, in: dir)
        #expect(status == 0 && payload["route"] as? String == "transcode", "\(payload)")
        #expect(payload["skippedPackets"] as? Int == 0, "\(payload)")
        #expect(payload["warnings"] as? [String] == [], "\(payload)")
    }
}
