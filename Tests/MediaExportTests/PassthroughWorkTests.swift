import Foundation
import Testing
@testable import MediaExport
@testable import MediaExportCore
@testable import MediaExportFFmpeg

/// A passthrough does no work beyond reading and writing packets: what the ffmpeg CLI's `-c copy` does (one read
/// of the input's stream information), no decoder, and its record read from the header it wrote.
@Suite struct PassthroughWorkTests {
    @Test func passthroughDecodesNothingBeyondTheInputsProbe() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let input = TestSupport.fixture("hd1080.mp4")
        let out = dir.appendingPathComponent("copy.mov").path
        let watch = DecodeWatch()
        let completed = try DecodeWatch.$current.withValue(watch) {
            try TestSupport.export(input, to: out, preset: "passthrough")
        }
        #expect(completed.route == .remux)
        // The input's probe only: the output is checked and described from its header.
        #expect(watch.streamInfoReads.count == 1, "\(watch.streamInfoReads)")
        #expect(watch.streamInfoReads.allSatisfy { !$0.contains(dir.lastPathComponent) }, "\(watch.streamInfoReads)")
        #expect(watch.decodersOpened == 0)
        // What the record says is what the file holds.
        #expect(completed.codecs == ["h264", "aac"])
        #expect(completed.width == 1920 && completed.height == 1080)
        #expect(abs(completed.duration - 1.0) < 0.05)
    }

    /// The `completed` record of every container we mux is read from the header alone; it must say what a full
    /// probe (decoding first frames) says.
    @Test(arguments: [
        ("landscape.mov", "passthrough", "p.mov"), ("hevc.mp4", "passthrough", "p.mp4"), ("portrait-rotated.mov", "passthrough", "p.mkv"),
        ("landscape.mov", "low", "t.mp4"), ("landscape.mov", "low", "t.mkv"), ("landscape.mov", "m4a", "a.m4a"),
    ])
    func completedRecordFromTheHeaderMatchesAFullProbe(input: String, preset: String, output: String) throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let out = dir.appendingPathComponent(output).path
        let completed = try TestSupport.export(TestSupport.fixture(input), to: out, preset: preset)
        let full = try MediaProbe.probe(path: completed.output, frameMetadata: false)
        let video = full.streams.first { $0.type == "video" && !$0.isAttachedPicture }
        #expect(completed.codecs == full.streams.filter { $0.isChapterTrack != true }.map(\.codec))
        #expect(completed.width == video?.width && completed.height == video?.height)
        #expect(abs(completed.duration - (full.duration ?? 0)) < 0.001, "\(completed.duration) vs \(full.duration ?? 0)")
        #expect(completed.bytes == full.size)
    }
}
