import Foundation
import Testing
@testable import MediaExport
@testable import MediaExportCore
@testable import MediaExportFFmpeg
@testable import mediaexport

/// Fixture facts the assertions compare against (measured with ffprobe when the fixtures were made).
struct FixtureFacts: Sendable, CustomStringConvertible {
    var name: String
    var displayWidth: Int
    var displayHeight: Int
    var duration: Double
    var frameDuration: Double
    var hasAudio: Bool
    var rotation: Int
    var description: String { name }

    static let all: [FixtureFacts] = [
        .init(name: "landscape.mov", displayWidth: 320, displayHeight: 180, duration: 2, frameDuration: 1 / 30.0, hasAudio: true, rotation: 0),
        .init(name: "portrait-rotated.mov", displayWidth: 180, displayHeight: 320, duration: 2, frameDuration: 1 / 30.0, hasAudio: true, rotation: 90),
        .init(name: "hd1080.mp4", displayWidth: 1920, displayHeight: 1080, duration: 1, frameDuration: 1 / 30.0, hasAudio: true, rotation: 0),
        .init(name: "hevc.mp4", displayWidth: 320, displayHeight: 240, duration: 1, frameDuration: 1 / 25.0, hasAudio: true, rotation: 0),
        .init(name: "vfr.mp4", displayWidth: 320, displayHeight: 180, duration: 1.934, frameDuration: 0.1, hasAudio: false, rotation: 0),
        .init(name: "odd-322x242.mov", displayWidth: 322, displayHeight: 242, duration: 1, frameDuration: 1 / 24.0, hasAudio: true, rotation: 0),
        .init(name: "metadata.mov", displayWidth: 320, displayHeight: 180, duration: 1, frameDuration: 1 / 30.0, hasAudio: true, rotation: 0),
    ]
}

@Suite struct ExportTests {
    static let videoPresets = ["highest", "medium", "low", "640x480", "960x540", "1280x720", "1920x1080", "3840x2160",
                               "hevc-highest", "hevc-1920x1080", "hevc-3840x2160"]

    /// Every video preset on the fixture that needs scaling, and the cheap ones on every fixture.
    static let cases: [(FixtureFacts, String)] = {
        var cases: [(FixtureFacts, String)] = []
        for facts in FixtureFacts.all {
            let presets = facts.name == "hd1080.mp4" || facts.name == "portrait-rotated.mov" ? videoPresets : ["highest", "640x480", "low", "hevc-1920x1080"]
            cases += presets.map { (facts, $0) }
        }
        return cases
    }()

    @Test(arguments: cases)
    func videoPresetOutputMatchesPreset(facts: FixtureFacts, presetName: String) throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let out = dir.appendingPathComponent("out.mp4").path
        let preset = try TestSupport.preset(presetName)
        let completed = try TestSupport.export(TestSupport.fixture(facts.name), to: out, preset: presetName)
        let probe = try FFprobe(out)
        #expect(completed.fallbacks.isEmpty, "fell back: \(completed.fallbacks.map(\.reason))")

        // Container and codecs.
        #expect(probe.formatName.contains("mp4"))
        let video = try #require(probe.video)
        #expect(video.codec == preset.video!.codec.rawValue)
        if preset.video!.codec == .hevc { #expect(video.tag == "hvc1") }
        #expect(video.pixelFormat == "yuv420p")
        #expect(completed.codecs.first == video.codec)

        // Size: displayed picture inside the box, never upscaled, aspect kept, even.
        let quarter = facts.rotation % 180 != 0
        let shownW = quarter ? video.height! : video.width!, shownH = quarter ? video.width! : video.height!
        #expect(video.width! % 2 == 0 && video.height! % 2 == 0)
        #expect(shownW <= facts.displayWidth && shownH <= facts.displayHeight, "upscaled: \(shownW)x\(shownH)")
        if let box = preset.video?.maxSize {
            #expect(max(shownW, shownH) <= box.long && min(shownW, shownH) <= box.short)
        }
        let aspectIn = Double(facts.displayWidth) / Double(facts.displayHeight)
        let aspectOut = Double(shownW) / Double(shownH)
        #expect(abs(aspectIn - aspectOut) / aspectIn < 0.02, "aspect \(aspectIn) → \(aspectOut)")
        let expected = SizeBox.fitting(width: facts.displayWidth, height: facts.displayHeight, into: preset.video?.maxSize)
        #expect(shownW == expected.width && shownH == expected.height)

        // Rotation kept as a display matrix, not applied to pixels.
        #expect((video.rotation ?? 0) == facts.rotation)

        // Duration within a frame; audio present and starting with the video.
        #expect(abs(probe.duration - facts.duration) <= facts.frameDuration + 0.001, "duration \(probe.duration) vs \(facts.duration)")
        #expect(abs(completed.duration - probe.duration) < 0.01)
        if facts.hasAudio {
            let audio = try #require(probe.audio)
            #expect(audio.codec == "aac")
            #expect(audio.sampleRate == preset.audio!.sampleRate)
            #expect(abs((audio.startTime ?? 0) - (video.startTime ?? 0)) < 0.03)
            #expect(abs((audio.duration ?? 0) - facts.duration) <= facts.frameDuration + 0.001)
        } else {
            #expect(probe.audio == nil)
        }
        #expect(try FFprobe.isFaststart(out))
        #expect(TestSupport.contents(dir) == ["out.mp4"])
    }

    @Test func portraitThroughLandscapeBoxStaysPortrait() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let out = dir.appendingPathComponent("p.mp4").path
        // Coded 320x180 shown as 180x320; a 160x120 box (long ≤ 160, short ≤ 120) gives shown 90x160 → coded 160x90.
        let preset = Preset(name: "tiny", video: VideoSettings(codec: .h264, encoderPreset: "ultrafast", crf: 30, maxSize: SizeBox(160, 120)))
        try ExportSession(request: ExportRequest(input: TestSupport.fixture("portrait-rotated.mov"), output: out, preset: preset)).run()
        let v = try #require(try FFprobe(out).video)
        #expect(v.width == 160 && v.height == 90 && v.rotation == 90)
    }

    @Test func audioOnlyFixtureThroughM4A() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let out = dir.appendingPathComponent("song.m4a").path
        try TestSupport.export(TestSupport.fixture("audio.m4a"), to: out, preset: "m4a")
        let probe = try FFprobe(out)
        #expect(probe.streams.count == 1)
        #expect(probe.audio?.codec == "aac" && probe.audio?.sampleRate == 48000 && probe.audio?.channels == 2)
        #expect(abs(probe.duration - 2.0) < 0.03)
        #expect(probe.formatName.contains("m4a") || probe.formatName.contains("mp4"))
    }

    @Test func m4aPresetDropsVideoAndSaysSo() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let out = dir.appendingPathComponent("a.m4a").path
        let collector = EventCollector()
        let request = ExportRequest(input: TestSupport.fixture("landscape.mov"), output: out, preset: try TestSupport.preset("m4a"))
        let session = ExportSession(request: request)
        session.onEvent = { collector.append($0) }
        try session.run()
        let started = try #require(collector.started)
        #expect(started.streams.first { $0.type == "video" }?.action == .drop)
        #expect(started.streams.first { $0.type == "video" }?.reason?.contains("no video") == true)
        let probe = try FFprobe(out)
        #expect(probe.video == nil && probe.audio?.codec == "aac")
    }

    @Test(arguments: ["mov", "m4v", "mkv"])
    func containerFollowsExtension(ext: String) throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let out = dir.appendingPathComponent("out.\(ext)").path
        try TestSupport.export(TestSupport.fixture("landscape.mov"), to: out, preset: "low")
        let probe = try FFprobe(out)
        #expect(ext == "mkv" ? probe.formatName.contains("matroska") : probe.formatName.contains("mov"))
        #expect(probe.video?.codec == "h264" && probe.audio?.codec == "aac")
        if ext != "mkv" { #expect(try FFprobe.isFaststart(out)) }
        if ext == "mov" { #expect(try FFprobe(out).tags["major_brand"]?.hasPrefix("qt") == true) }
    }

    @Test func variableFrameRateTimestampsSurvive() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let out = dir.appendingPathComponent("vfr.mp4").path
        try TestSupport.export(TestSupport.fixture("vfr.mp4"), to: out, preset: "highest")
        func times(_ path: String) throws -> [Double] {
            let r = try TestSupport.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries", "frame=pts_time", "-of", "csv=p=0", path])
            return r.stdout.split(separator: "\n").compactMap { Double($0) }
        }
        let input = try times(TestSupport.fixture("vfr.mp4")), output = try times(out)
        #expect(input.count == output.count)
        for (a, b) in zip(input, output) { #expect(abs(a - b) < 0.002) }
    }

    @Test func metadataAndLocationCarriedOver() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        for (name, preset) in [("m.mp4", "low"), ("m.mov", "highest"), ("p.mov", "passthrough")] {
            let out = dir.appendingPathComponent(name).path
            try TestSupport.export(TestSupport.fixture("metadata.mov"), to: out, preset: preset)
            let tags = try FFprobe(out).tags
            #expect(tags["creation_time"] == "2024-05-01T12:34:56.000000Z", "\(name)")
            #expect(tags["location"] == "+48.8584+002.2945/", "\(name)")
        }
    }

    @Test func passthroughCopiesWithoutDecoding() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let input = TestSupport.fixture("portrait-rotated.mov")
        let out = dir.appendingPathComponent("copy.mov").path
        try TestSupport.export(input, to: out, preset: "passthrough")
        // Same packets: compare per-packet checksums of both streams.
        func packetHashes(_ path: String) throws -> String {
            try TestSupport.run("/usr/bin/ffmpeg", ["-v", "error", "-i", path, "-map", "0", "-c", "copy", "-f", "framemd5", "-"]).stdout
                .split(separator: "\n").filter { !$0.hasPrefix("#") }.map { $0.split(separator: ",").last.map(String.init) ?? "" }.joined(separator: "\n")
        }
        #expect(try packetHashes(out) == packetHashes(input))
        let probe = try FFprobe(out)
        #expect(probe.video?.rotation == 90)
        #expect(abs(probe.duration - 2.0) < 0.001)
    }

    @Test func timeRangeTranscodesFrameAccurately() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let out = dir.appendingPathComponent("cut.mp4").path
        let completed = try TestSupport.export(TestSupport.fixture("landscape.mov"), to: out, preset: "low", range: TimeRange(start: 0.5, end: 1.5))
        let probe = try FFprobe(out)
        #expect(abs(probe.duration - 1.0) <= 1 / 30.0 + 0.001)
        #expect(abs((probe.audio?.duration ?? 0) - 1.0) <= 1 / 30.0)
        #expect(abs((probe.video?.startTime ?? 1) - 0) < 0.001)
        #expect(abs(completed.duration - 1.0) <= 1 / 30.0 + 0.001)
        let frames = try TestSupport.run("/usr/bin/ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v", "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", out])
        #expect(frames.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "30")
    }

    @Test func passthroughTimeRangeReadsFromTheKeyframeAndSaysSo() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let out = dir.appendingPathComponent("cut.mov").path
        let collector = EventCollector()
        // landscape.mov has a keyframe every 30 frames (1 s): a cut at 1.5 s reads from 1.0 s, and the edit list
        // hides the half second before 1.5 s.
        let request = ExportRequest(input: TestSupport.fixture("landscape.mov"), output: out, preset: try TestSupport.preset("passthrough"),
                                    timeRange: TimeRange(start: 1.5, end: 2.0))
        let session = ExportSession(request: request)
        session.onEvent = { collector.append($0) }
        try session.run()
        #expect(collector.started?.notes.contains { $0.contains("keyframe at 1.000") } == true)
        let probe = try FFprobe(out)
        #expect(abs(probe.duration - 0.5) <= 1 / 30.0 + 0.001, "duration \(probe.duration)")
    }

    @Test func invalidTimeRangeIsRefused() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let out = dir.appendingPathComponent("x.mp4").path
        #expect(throws: ExportError.self) {
            try TestSupport.export(TestSupport.fixture("landscape.mov"), to: out, preset: "low", range: TimeRange(start: 5))
        }
        #expect(TestSupport.contents(dir).isEmpty)
    }

    @Test func sessionReportsStatusProgressAndEvents() async throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let out = dir.appendingPathComponent("s.mp4").path
        let session = ExportSession(request: ExportRequest(input: TestSupport.fixture("landscape.mov"), output: out, preset: try TestSupport.preset("low")))
        session.progressInterval = 0
        #expect(session.status == .waiting)
        let completed = try await session.export()
        #expect(session.status == .completed)
        #expect(session.progress == 1)
        var kinds: [String] = []
        var fractions: [Double] = []
        for await event in session.events {
            kinds.append(event.kind)
            if case .progress(let p) = event { fractions.append(p.fraction) }
        }
        #expect(kinds.first == "started" && kinds.last == "completed")
        #expect(kinds.filter { $0 == "completed" || $0 == "failed" || $0 == "cancelled" }.count == 1)
        #expect(fractions == fractions.sorted() && fractions.last == 1)
        #expect(completed.bytes == Int64(try FileManager.default.attributesOfItem(atPath: out)[.size] as! Int))
        // The event record round-trips through JSON with its version and kind.
        let line = ExportEvent.completed(completed).jsonLine()
        #expect(line.contains(#""version":1"#) && line.contains(#""kind":"completed""#))
        // Its times are written to the millisecond: what it decodes to writes the same line, the rest unchanged.
        let decoded = try JSONDecoder().decode(ExportEvent.self, from: Data(line.utf8))
        #expect(decoded.jsonLine() == line)
        guard case .completed(let read) = decoded else { Issue.record("not a completed record: \(line)"); return }
        #expect(read.bytes == completed.bytes && read.route == completed.route && read.warnings == completed.warnings)
    }

    @Test func cancelMidExportLeavesNothing() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let out = dir.appendingPathComponent("c.mp4").path
        let session = ExportSession(request: ExportRequest(input: TestSupport.fixture("hd1080.mp4"), output: out, preset: try TestSupport.preset("highest")))
        session.progressInterval = 0
        let collector = EventCollector()
        session.onEvent = { event in
            collector.append(event)
            if case .progress(let p) = event, p.outputTime > 0 { session.cancel() }
        }
        #expect(throws: ExportError.cancelled) { try session.run() }
        #expect(session.status == .cancelled)
        #expect(collector.kinds.last == "cancelled")
        #expect(collector.kinds.contains("progress"))
        #expect(TestSupport.contents(dir).isEmpty, "left behind: \(TestSupport.contents(dir))")
    }
}

/// Collects a session's events from its exporting thread.
final class EventCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [ExportEvent] = []
    func append(_ e: ExportEvent) { lock.withLock { events.append(e) } }
    var all: [ExportEvent] { lock.withLock { events } }
    var kinds: [String] { all.map(\.kind) }
    var started: ExportEvent.Started? {
        for e in all { if case .started(let s) = e { return s } }
        return nil
    }
}
