import Foundation
import Testing
@testable import MediaExport
@testable import MediaExportCore

/// Issue 41's matrix: healthy sources × every built-in preset × `.mp4 .mov .mkv .webm .m4a` × {whole, a range} ×
/// `--metadata all|sharing|none`. A healthy file never falls back: each export either delivers by the request's own
/// route (a transcode; a passthrough's stream copy) with no fallback and no corrupt packet, or is refused by the plan
/// before any work. Every source × preset pair is run once; the container, the range and the metadata level turn
/// with the pair's place (every preset meets every container and level, every source every container), so the
/// matrix stays within CI's time on small fixtures while each dimension is crossed with each other one.
@Suite("Plan matrix: healthy files never fall back")
struct PlanMatrixTests {
    /// One export of the matrix.
    struct Case: CustomTestStringConvertible, Sendable {
        var source: String
        var preset: String
        var container: Container
        var ranged: Bool
        var level: MetadataLevel
        var testDescription: String {
            "\(PathName.lastComponent(source)) \(preset) .\(container.rawValue)\(ranged ? " 0.2–0.7 s" : "") metadata \(level.rawValue)"
        }
    }

    static let containers: [Container] = [.mp4, .mov, .mkv, .webm, .m4a]

    /// The healthy sources: the fixtures (rotation, location, HDR, interlaced TS that starts late, VFR, odd size,
    /// audio only, Apple and JSON edit sidecars) and copies made here of what phones and `ffmpeg -c copy` cuts give.
    static var sources: [String] {
        ["landscape.mov", "portrait-rotated.mov", "metadata.mov", "hd1080.mp4", "hevc.mp4", "vfr.mp4", "audio.m4a",
         "odd-322x242.mov", "hdr-hlg.mov", "hdr-pq.mp4", "interlaced.ts", "lead-in.mp4",
         "assets/IMG_0001.MOV", "assets/IMG_0003.MOV"].map(TestSupport.fixture) + Made.all
    }

    static let presets = ["highest", "medium", "low", "640x480", "960x540", "1280x720", "1920x1080", "3840x2160",
                          "hevc-highest", "hevc-1920x1080", "hevc-3840x2160", "av1-highest", "av1-1280x720", "av1-1920x1080",
                          "passthrough", "m4a"]

    static var cases: [Case] {
        let levels = MetadataLevel.allCases
        var out: [Case] = []
        for (i, source) in sources.enumerated() {
            for (j, preset) in presets.enumerated() {
                out.append(Case(source: source, preset: preset, container: containers[(i + j) % containers.count],
                                ranged: (i + j / 5) % 2 == 1, level: levels[(i + 2 * j) % levels.count]))
            }
        }
        return out
    }

    @Test(arguments: cases)
    func neverFallsBack(_ c: Case) throws {
        let dir = TestSupport.tempDir("matrix")
        defer { TestSupport.cleanup(dir) }
        var preset = try TestSupport.preset(c.preset)
        preset.metadata = c.level == .all ? nil : c.level
        let out = dir.appendingPathComponent("out.\(c.container.rawValue)").path
        let request = ExportRequest(input: c.source, output: out, preset: preset,
                                    timeRange: c.ranged ? TimeRange(start: 0.2, end: 0.7) : nil)
        let session = ExportSession(request: request)
        let events = EventCollector()
        session.onEvent = { events.append($0) }
        let fallbacks = { events.all.compactMap { e -> String? in if case .fallback(let f) = e { return f.reason }; return nil } }
        do {
            let done = try session.run()
            #expect(done.fallbacks.isEmpty, "fell back: \(done.fallbacks.map(\.reason))")
            #expect(done.route == (preset.passthrough ? .remux : .transcode))
            #expect(done.output == out, "delivered under another name: \(done.output)")
            #expect(done.skippedPackets == 0, "healthy input, yet \(done.skippedPackets) corrupt packets counted")
            #expect(done.partial == nil)
        } catch let error as ExportError {
            // A refusal the plan gave before any work: nothing was tried, nothing written.
            #expect([.noUsableStreams, .editNeedsTranscode].contains(error.kind), "\(error)")
            #expect(fallbacks().isEmpty, "fell back before failing: \(fallbacks())")
            #expect(!events.kinds.contains("progress"), "work was done before the refusal: \(error)")
            #expect(TestSupport.contents(dir).isEmpty)
        }
    }
}

/// Sources made once for the matrix with the ffmpeg CLI (a test tool): an iPhone-like rotated, geotagged HEVC clip,
/// stream-copy cuts whose edit lists hide a lead-in (`ffmpeg -ss T -i in -c copy`), MPEG-PS, AVI and Ogg Opus.
enum Made {
    static let all: [String] = {
        let dir = TestSupport.tempDir("matrix-sources")
        let ff = ["/usr/bin/ffmpeg", "-nostdin", "-v", "error", "-y"]
        func make(_ name: String, _ args: [String]) -> String? {
            let path = dir.appendingPathComponent(name).path
            let r = try? TestSupport.run(ff[0], Array(ff.dropFirst()) + args + [path])
            return r?.status == 0 ? path : nil
        }
        var made: [String] = []
        let tmp = dir.appendingPathComponent("phone-tmp.mov").path
        _ = try? TestSupport.run(ff[0], Array(ff.dropFirst()) + [
            "-f", "lavfi", "-i", "testsrc2=size=320x180:rate=30:duration=1.5", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=1.5",
            "-c:v", "libx265", "-preset", "ultrafast", "-crf", "32", "-tag:v", "hvc1", "-x265-params", "log-level=error",
            "-c:a", "aac", "-b:a", "64k", "-metadata", "creation_time=2024-05-01T12:34:56.000000Z",
            "-metadata", "location=+48.8584+002.2945+035.000/", "-movflags", "+use_metadata_tags", tmp])
        if let p = make("IMG_9001.MOV", ["-i", tmp, "-c", "copy", "-map_metadata", "0", "-movflags", "+use_metadata_tags", "-metadata:s:v:0", "rotate=90"]) { made.append(p) }
        if let p = make("cut-landscape.mov", ["-ss", "0.5", "-i", TestSupport.fixture("landscape.mov"), "-c", "copy"]) { made.append(p) }
        if let p = make("cut-lead-in.mp4", ["-ss", "1.2", "-i", TestSupport.fixture("lead-in.mp4"), "-c", "copy"]) { made.append(p) }
        // What uploads bring besides phones: a DVD's MPEG-PS (packets without PTS), an AVI with B-frames, Ogg Opus.
        let clip = ["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=1.5", "-f", "lavfi", "-i", "sine=sample_rate=48000:duration=1.5"]
        if let p = make("dvd.vob", clip + ["-c:v", "mpeg2video", "-bf", "2", "-g", "12", "-c:a", "ac3", "-f", "vob"]) { made.append(p) }
        if let p = make("xvid.avi", clip + ["-c:v", "mpeg4", "-bf", "2", "-c:a", "libmp3lame", "-f", "avi"]) { made.append(p) }
        if let p = make("voice.ogg", ["-f", "lavfi", "-i", "sine=sample_rate=48000:duration=1.5", "-c:a", "libopus", "-f", "ogg"]) { made.append(p) }
        return made
    }()
}
