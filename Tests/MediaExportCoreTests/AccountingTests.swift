import Foundation
import Testing
@testable import MediaExportCore

/// Issue 14, media-free: each kept stream is planned with its own duration, a stream kind the preset keeps is
/// never lost whole, the output's tags come from the original when a rendered edit lacks them, and every drop
/// becomes a warning.
@Suite("Per-stream expectations, tags and warnings")
struct AccountingTests {
    static func video(_ duration: Double?) -> SourceStream {
        var s = SourceStream.h264(0, 1280, 720)
        s.duration = duration
        s.frameCount = duration.map { Int($0 * 30) }
        return s
    }
    static func audio(_ duration: Double?) -> SourceStream {
        var s = SourceStream.aac(1)
        s.duration = duration
        return s
    }

    @Test("An .m4a expects the audio's own 2 s, not the container's 6 s; progress follows the longest kept stream")
    func ownDurations() throws {
        let source = SourceInfo.make([Self.video(6), Self.audio(2)], duration: 6)
        let plan = try ExportPlanner.plan(source: source, preset: Presets.named("m4a"), route: .transcode, container: .m4a, edits: nil, range: nil)
        #expect(plan.streams[1].expectedDuration == 2)
        #expect(plan.streams[1].durationExact)
        #expect(plan.timeline.expectedDuration == 2)
        let mp4 = try ExportPlanner.plan(source: source, preset: Presets.named("highest"), route: .transcode, container: .mp4, edits: nil, range: nil)
        #expect(mp4.streams.map(\.expectedDuration) == [6, 2])
        #expect(mp4.streams[0].expectedFrames == 180)
        #expect(mp4.timeline.expectedDuration == 6)
    }

    @Test("A range cuts each stream's expectation; a stream shorter than the range keeps its own end")
    func rangedDurations() throws {
        let source = SourceInfo.make([Self.video(6), Self.audio(2)], duration: 6)
        let plan = try ExportPlanner.plan(source: source, preset: Presets.named("highest"), route: .transcode, container: .mp4,
                                          edits: nil, range: TimeRange(start: 1, end: 4))
        #expect(plan.streams.map(\.expectedDuration) == [3, 1])
        #expect(plan.streams[0].expectedFrames == 90)
    }

    @Test("Durations are trusted to a frame only from containers that declare them exactly")
    func exactContainers() throws {
        var asf = SourceInfo.make([Self.video(5.046), Self.audio(5.046)], duration: 5.092)
        asf.formatName = "asf"
        let plan = try ExportPlanner.plan(source: asf, preset: Presets.named("highest"), route: .transcode, container: .mp4, edits: nil, range: nil)
        #expect(plan.streams.allSatisfy { !$0.durationExact && $0.expectedFrames == nil })
        var estimated = SourceInfo.make([Self.audio(7.25)], duration: 7.25)
        estimated.formatName = "matroska,webm"
        #expect(estimated.declaresExactDurations)
        estimated.durationsEstimated = true
        #expect(!estimated.declaresExactDurations && estimated.truncation == nil)
    }

    @Test("A transcode that would lose every audio (or video) stream is impossible, unless the edit mutes it")
    func kindsAreNeverLostWhole() throws {
        let noRate = SourceInfo.make([.h264(0, 640, 360), .aac(1, rate: 0)])
        let plan = try ExportPlanner.plan(source: noRate, preset: Presets.named("highest"), route: .transcode, container: .mp4, edits: nil, range: nil)
        #expect(plan.impossible == "transcode skipped: every audio stream would be dropped (#1 aac: sample rate unknown)")
        let muted = try ExportPlanner.plan(source: noRate, preset: Presets.named("highest"), route: .transcode, container: .mp4,
                                           edits: EditSidecar(mute: true), range: nil)
        #expect(muted.isPossible)
        // A preset without audio does not ask for it.
        let m4aOfSilentVideo = try ExportPlanner.plan(source: .make([.h264(0, 640, 360)]), preset: Presets.named("highest"), route: .transcode,
                                                      container: .mp4, edits: nil, range: nil)
        #expect(m4aOfSilentVideo.isPossible)
    }

    @Test("Tags: the muxer's own keys go, Apple's location is also written as location, a rendered edit gets the original's capture tags")
    func outputTags() {
        let edit = ["major_brand": "qt  ", "encoder": "Lavf", "title": "Edited"]
        let original = ["creation_time": "2024-06-01T12:34:56.000000Z", "com.apple.quicktime.location.ISO6709": "+48.8584+002.2945/",
                        "com.apple.quicktime.make": "Apple", "title": "Original"]
        let out = OutputTags.forOutput(resource: edit, original: original)
        #expect(out.tags == ["title": "Edited", "creation_time": "2024-06-01T12:34:56.000000Z",
                             "com.apple.quicktime.location.ISO6709": "+48.8584+002.2945/", "location": "+48.8584+002.2945/",
                             "com.apple.quicktime.make": "Apple"])
        #expect(Set(out.fromOriginal) == ["creation_time", "com.apple.quicktime.location.ISO6709", "com.apple.quicktime.make"])
        #expect(OutputTags.forOutput(resource: original, original: nil).fromOriginal.isEmpty)
    }

    @Test("Every drop not asked for, skip, repair and version change becomes a warning with its count and reason")
    func warnings() throws {
        let source = SourceInfo.make([.h264(0, 640, 360), .aac(1)])
        let plan = try ExportPlanner.plan(source: source, preset: Presets.named("m4a"), route: .transcode, container: .m4a, edits: nil, range: nil)
        let version = VersionReport(requested: .current, delivered: .original, resource: "/in/clip.mov", resourceKind: .original,
                                    sidecar: nil, adjustmentData: nil, reason: "the .AAE cannot be rendered")
        let w = Accounting.warnings(plan: plan, skippedPackets: 2, droppedFrames: 1, timestampRepairs: 3, version: version)
        // The video the m4a preset leaves out is the plan's (`StreamDecision.asked`), no warning.
        #expect(w == ["2 corrupt packets or frames skipped",
                      "1 frame or packet dropped: timestamps that could not be repaired",
                      "3 timestamps repaired (discontinuities, repeated or missing timestamps)",
                      "the current version was asked for; the original was delivered: the .AAE cannot be rendered"])
        #expect(Accounting.warnings(plan: try ExportPlanner.plan(source: source, preset: Presets.named("highest"), route: .transcode,
                                                                 container: .mp4, edits: nil, range: nil),
                                    skippedPackets: 0, droppedFrames: 0, timestampRepairs: 0, version: nil).isEmpty)
        // A stream lost that nothing asked to leave out is warned of.
        let second = try ExportPlanner.plan(source: SourceInfo.make([.h264(0, 640, 360), .aac(1), .h264(2, 320, 180)]), preset: Presets.named("highest"),
                                            route: .transcode, container: .mp4, edits: nil, range: nil)
        #expect(Accounting.warnings(plan: second, skippedPackets: 0, droppedFrames: 0, timestampRepairs: 0, version: nil)
                == ["stream #2 video (h264) dropped: only the main video stream is exported"])
    }

    @Test("Creation times compare as instants; 1970 and texts that are no date are not checked")
    func creationTimes() {
        #expect(OutputVerifier.sameInstant("2024-06-01T12:34:56.000000Z", "2024-06-01T12:34:56Z"))
        #expect(!OutputVerifier.sameInstant("2024-06-01T12:34:56Z", "2024-06-01T12:34:58Z"))
        #expect(!OutputVerifier.sameInstant("2024-06-01T12:34:56Z", nil))
        let source = SourceInfo.make([.aac(0)])
        let plan = try? ExportPlanner.plan(source: source, preset: Presets.named("m4a"), route: .transcode, container: .m4a, edits: nil, range: nil)
        var audio = OutputFacts.Stream(kind: .audio, codec: "aac")
        audio.channels = 2; audio.sampleRate = 48000; audio.duration = 10; audio.timestampsIncreasing = true
        let facts = OutputFacts(formatName: "mov", streams: [audio], faststart: true)
        let v = OutputVerifier.verify(plan: plan!, source: source, facts: facts, delivered: [DeliveredStream(packets: 469, duration: 10)],
                                      tags: ["creation_time": "1970-01-01T00:00:00.000000Z"])
        #expect(v.passed)
        #expect(v.checks.first { $0.name == "creation_time" }?.outcome == .skipped)
    }
}
