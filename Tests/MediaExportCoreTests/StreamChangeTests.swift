import Foundation
import Testing
@testable import MediaExportCore

/// What a transcode changes in a kept stream, named by the planner (`StreamChange`) from hand-built probes: in the
/// stream's `started` entry (`changes`) and, for the kinds no other note names, as a plan note.
@Suite struct StreamChangeTests {
    static func plan(_ source: SourceInfo, _ preset: Preset) throws -> ExportPlan {
        try ExportPlanner.plan(source: source, preset: preset, route: .transcode, container: .mp4, edits: nil, range: nil)
    }

    static func changes(_ plan: ExportPlan, _ index: Int) -> [StreamChange] {
        plan.streams.first { $0.index == index }?.streamPlan.changes ?? []
    }

    @Test func aSurroundSourceIsDownmixedAndResampledAndSaysSo() throws {
        var preset = Presets.highest
        preset.audio?.channels = 2
        preset.audio?.sampleRate = 44_100
        let plan = try Self.plan(.make([.h264(0, 1280, 720), .aac(1, channels: 6, rate: 48_000)]), preset)
        #expect(Self.changes(plan, 1) == [StreamChange(kind: .downmix, from: "6", to: "2"),
                                          StreamChange(kind: .sampleRate, from: "48000", to: "44100")])
        #expect(plan.notes.contains("stream #1 audio: downmix 6 → 2 channels"), "\(plan.notes)")
        #expect(plan.notes.contains("stream #1 audio: 48000 → 44100 Hz"), "\(plan.notes)")
    }

    @Test func aStereoSourceAtThePresetsRateHasNoChange() throws {
        var preset = Presets.highest
        preset.audio?.sampleRate = 48_000
        let plan = try Self.plan(.landscape1080, preset)
        #expect(Self.changes(plan, 1).isEmpty)
        #expect(plan.streams.first { $0.index == 1 }?.streamPlan.changes == nil, "no empty list in the record")
    }

    @Test func aFrameRateCapIsAChange() throws {
        var preset = Presets.highest
        preset.video?.maxFrameRate = 30
        let plan = try Self.plan(.make([.h264(0, 1280, 720, fps: 60), .aac(1)]), preset)
        #expect(Self.changes(plan, 0).contains(StreamChange(kind: .frameRate, from: "60", to: "30")), "\(Self.changes(plan, 0))")
        #expect(!plan.notes.contains { $0.hasPrefix("stream #0 video: 60") }, "the cap's own note says it")
    }

    @Test func toneMappingNamesTheBitDepthAndTheHDRKind() throws {
        let plan = try Self.plan(PictureProcessingTests.hdr("smpte2084"), Presets.named("1280x720"))
        let changes = Self.changes(plan, 0)
        #expect(changes.contains(StreamChange(kind: .bitDepth, from: "10", to: "8")), "\(changes)")
        #expect(changes.contains(StreamChange(kind: .toneMap, from: "PQ", to: "SDR")), "\(changes)")
        #expect(changes.contains(StreamChange(kind: .scale, from: "1920x1080", to: "1280x720")), "\(changes)")
        #expect(plan.notes.contains("stream #0 video: 10 → 8 bit"), "\(plan.notes)")
    }

    @Test func deinterlacingIsAChange() throws {
        var preset = Presets.highest
        preset.video?.deinterlace = true
        let plan = try Self.plan(PictureProcessingTests.interlaced(.tt), preset)
        #expect(Self.changes(plan, 0).contains(StreamChange(kind: .deinterlace, from: "top field first", to: "progressive")))
    }

    @Test func aRotationIsNeverAChange() throws {
        // The display matrix carries a rotation (the source's or an edit's): the pixels are never turned.
        let plan = try ExportPlanner.plan(source: .portraitRotated, preset: Presets.highest, route: .transcode, container: .mp4,
                                          edits: EditSidecar(rotate: 90), range: nil)
        #expect(Self.changes(plan, 0).isEmpty, "\(Self.changes(plan, 0))")
    }

    @Test func aCopyHasNoChange() throws {
        let plan = try ExportPlanner.plan(source: .make([.h264(0, 1280, 720), .aac(1, channels: 6)]), preset: Presets.highest,
                                          route: .remux, container: .mp4, edits: nil, range: nil)
        #expect(plan.streams.allSatisfy { $0.streamPlan.changes == nil })
    }

    @Test func descriptionsAreTheWordsOfThePlanLine() {
        #expect(StreamChange(kind: .downmix, from: "6", to: "2").description == "downmix 6 → 2 channels")
        #expect(StreamChange(kind: .sampleRate, from: "48000", to: "44100").description == "48000 → 44100 Hz")
        #expect(StreamChange(kind: .bitDepth, from: "10", to: "8").description == "10 → 8 bit")
    }
}
