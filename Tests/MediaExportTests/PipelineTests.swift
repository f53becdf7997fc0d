import Foundation
import Testing
@testable import MediaExport
@testable import MediaExportCore
@testable import MediaExportFFmpeg

/// The decode thread (`DecodeThread`, `--pipeline on`): the same frames in the same order as decoding on the
/// executor's thread, so the same output, bit for bit, and the same counts; damage, trims, a filter graph and
/// cancellation behave as without it.
@Suite struct PipelineTests {
    /// The MD5 of a stream's packets (ffmpeg's `md5` muxer over a stream copy): equal only for identical bitstreams.
    static func streamMD5(_ path: String, _ stream: String) throws -> String {
        let r = try TestSupport.run("/usr/bin/ffmpeg", ["-nostdin", "-v", "error", "-i", path, "-map", stream, "-c", "copy", "-f", "md5", "-"])
        #expect(r.status == 0, "\(r.stderr)")
        return r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func export(_ fixture: String, preset: String, range: TimeRange?, pipeline: PipelineMode, in dir: URL) throws -> ExportEvent.Completed {
        var request = ExportRequest(input: TestSupport.fixture(fixture), output: dir.appendingPathComponent("\(pipeline.rawValue).mp4").path,
                                    preset: try TestSupport.preset(preset), timeRange: range)
        request.pipeline = pipeline
        // A damaged file is transcoded through its damage (by default so much of it falls back to a copy). Its
        // codecs run on one thread: the frame-threaded H.264 decoder conceals damage differently from run to run
        // (measured on this file: 67-73 frames flagged, with or without the decode thread), which is not what is
        // compared here; single-threaded, every run decodes it the same way.
        if fixture.hasPrefix("bad/") {
            request.errors = ErrorPolicy(maxDecodeErrors: 10_000)
            request.threads = 1
        }
        return try ExportSession(request: request).run()
    }

    /// Plain, scaled, variable frame rate, deinterlaced through the filter graph, damaged (corrupt packets skipped),
    /// trimmed.
    @Test(arguments: [("landscape.mov", "low", nil), ("hd1080.mp4", "1280x720", nil), ("vfr.mp4", "low", nil),
                      ("interlaced.ts", "1280x720", nil), ("bad/flipped-bytes.mp4", "low", nil),
                      ("landscape.mov", "highest", TimeRange(start: 0.5, end: 1.5))] as [(String, String, TimeRange?)])
    func theDecodeThreadChangesNothingInTheOutput(fixture: String, preset: String, range: TimeRange?) throws {
        let dir = TestSupport.tempDir("pipeline-\(fixture.replacingOccurrences(of: "/", with: "-"))-\(preset)")
        defer { TestSupport.cleanup(dir) }
        let on = try Self.export(fixture, preset: preset, range: range, pipeline: .on, in: dir)
        let off = try Self.export(fixture, preset: preset, range: range, pipeline: .off, in: dir)
        #expect(on.route == .transcode && off.route == .transcode)
        #expect(try Self.streamMD5(on.output, "0:v:0") == Self.streamMD5(off.output, "0:v:0"))
        let counts = "on: \(on.skippedPackets)/\(on.droppedFrames)/\(on.timestampRepairs), off: \(off.skippedPackets)/\(off.droppedFrames)/\(off.timestampRepairs)"
        #expect(on.droppedFrames == off.droppedFrames && on.timestampRepairs == off.timestampRepairs, "\(counts)")
        #expect(on.skippedPackets == off.skippedPackets, "\(counts)")
        if fixture.hasPrefix("bad/") { #expect(on.skippedPackets > 0, "\(counts)") }
        #expect(on.notes == off.notes)
    }

    /// Cancelled while the thread decodes: the export ends (the thread is stopped and joined), nothing is left.
    @Test func cancellingStopsTheDecodeThread() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        var request = ExportRequest(input: TestSupport.fixture("hd1080.mp4"), output: dir.appendingPathComponent("out.mp4").path,
                                    preset: try TestSupport.preset("highest"))
        request.pipeline = .on
        let session = ExportSession(request: request)
        session.progressInterval = 0
        session.onEvent = { event in
            if case .progress(let p) = event, p.outputTime > 0.2 { session.cancel() }
        }
        #expect(throws: ExportError.cancelled) { try session.run() }
        #expect(TestSupport.contents(dir).isEmpty, "\(TestSupport.contents(dir))")
    }

    @Test func autoPipelinesFromFourCores() {
        #expect(!PipelineMode.auto.isOn(cores: 2) && PipelineMode.auto.isOn(cores: 4) && PipelineMode.auto.isOn(cores: 16))
        #expect(PipelineMode.on.isOn(cores: 1) && !PipelineMode.off.isOn(cores: 64))
    }
}
