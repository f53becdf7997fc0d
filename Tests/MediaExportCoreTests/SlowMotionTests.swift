import Foundation
import Testing
@testable import MediaExportCore

/// Slow motion's time arithmetic and how the planner stretches expected durations.
@Suite struct SlowMotionTests {
    static let apple = SlowMotion(rate: 0.125, regions: [.init(start: 0.398, duration: 1.857)])

    @Test func outputTimeStretchesTheRegionOnly() {
        let s = Self.apple
        #expect(s.outputTime(0.2) == 0.2)
        #expect(abs(s.outputTime(0.398 + 1) - (0.398 + 8)) < 1e-9)
        #expect(abs(s.outputTime(3) - (3 + 1.857 * 7)) < 1e-9)  // ≈ 16.0 s
        for t in stride(from: 0.0, through: 3, by: 0.01) { #expect(abs(s.originalTime(s.outputTime(t)) - t) < 1e-9) }
        #expect(s.rate(at: 0.3) == 1 && s.rate(at: 0.4) == 0.125 && s.rate(at: 2.3) == 1)
        #expect(s.nextBoundary(after: 0) == 0.398 && s.nextBoundary(after: 0.4) == 0.398 + 1.857 && s.nextBoundary(after: 2.5) == nil)
    }

    /// What the quality measurement pairs by: the source time an output time comes from, on the source's clock.
    @Test func sourceTimeIsWhereAnOutputTimeComesFrom() {
        // A trim from 1 s of a source whose clock starts at 0.5 s: output 0 is source 1.5 s (the clock's 1.5).
        var timeline = PlannedTimeline(origin: 1.5, length: 1)
        #expect(timeline.sourceTime(atOutput: 0) == 1.5 && timeline.sourceTime(atOutput: 0.25) == 1.75)
        // Slowed: 0.398–2.255 s of the original at 0.125×; read from 0.2 s of the original (origin 0.7 on the clock).
        timeline = PlannedTimeline(origin: 0.7)
        timeline.slowMotion = Self.apple
        timeline.sourceStart = 0.5
        #expect(abs(timeline.sourceTime(atOutput: 0.1) - 0.8) < 1e-9)  // before the region: normal speed
        #expect(abs(timeline.sourceTime(atOutput: 0.198 + 4) - (0.5 + 0.398 + 0.5)) < 1e-9)  // 4 s into it: 0.5 s of the source
        for t in stride(from: 0.0, through: 2.5, by: 0.01) {
            #expect(abs(timeline.sourceTime(atOutput: timeline.outputSeconds(t)) - (0.7 + t)) < 1e-9)
        }
    }

    @Test func tempoFactorsMultiplyToTheRateWithinAtempoLimits() {
        #expect(SlowMotion.tempoFactors(0.125) == [0.5, 0.5, 0.5])
        #expect(SlowMotion.tempoFactors(0.25) == [0.5, 0.5])
        #expect(SlowMotion.tempoFactors(0.3).reduce(1, *) - 0.3 < 1e-12)
        #expect(SlowMotion.tempoFactors(1) == [1])
    }

    @Test func regionsAreSortedAndMerged() {
        let s = SlowMotion(rate: 0.5, regions: [.init(start: 2, duration: 1), .init(start: 0, duration: 0), .init(start: 1, duration: 1.5)]).normalized
        #expect(s.regions == [.init(start: 1, duration: 2)])
    }

    @Test func thePlannerStretchesDurationsAndKeepsFrameCounts() throws {
        var video = SourceStream.h264(0, 1920, 1080, fps: 120)
        video.duration = 3; video.frameCount = 360
        var audio = SourceStream.aac(1); audio.duration = 3
        let source = SourceInfo.make([video, audio], duration: 3)
        let plan = try ExportPlanner.plan(source: source, preset: Presets.named("1280x720"), route: .transcode, container: .mp4,
                                          edits: EditSidecar(slowMotion: Self.apple), range: nil)
        #expect(abs((plan.timeline.expectedDuration ?? 0) - 15.999) < 0.001)
        #expect(abs((plan.streams[0].expectedDuration ?? 0) - 15.999) < 0.001)
        #expect(abs((plan.streams[1].expectedDuration ?? 0) - 15.999) < 0.001)
        #expect(plan.streams[0].expectedFrames == 360)
        #expect(plan.notes.contains { $0.hasPrefix("slow motion: 0.398–2.255 s played at 0.125×") })
        // With a trim, in original time: [1, 2.5) holds 1.255 s of region at 8× and 0.245 s at 1×.
        let trimmed = try ExportPlanner.plan(source: source, preset: Presets.named("1280x720"), route: .transcode, container: .mp4,
                                             edits: EditSidecar(trim: .init(start: 1, end: 2.5), slowMotion: Self.apple), range: nil)
        #expect(abs((trimmed.streams[0].expectedDuration ?? 0) - (1.255 * 8 + 0.245)) < 0.001)
        #expect(trimmed.streams[0].expectedFrames == 180)
        // A stream copy cannot slow anything: passthrough refuses it, the remux fallback says it is lost.
        #expect(EditSidecar(slowMotion: Self.apple).needsTranscode == ["slowMotion"])
        let remux = try ExportPlanner.plan(source: source, preset: Presets.named("1280x720"), route: .remux, container: .mp4,
                                           edits: EditSidecar(slowMotion: Self.apple), range: nil)
        #expect(remux.timeline.slowMotion == nil && abs((remux.timeline.expectedDuration ?? 0) - 3) < 0.001)
    }

    /// Regions or gaps under a frame cannot be shown: 900 regions of 5 ms, 5 ms apart, are one region of 9 s; a lone
    /// 5 ms region is dropped; a region of a frame or more stays.
    @Test func regionsShorterThanAFrameAreMergedOrDropped() throws {
        let tiny = (0..<900).map { SlowMotion.Region(start: 0.5 + Double($0) * 0.01, duration: 0.005) }
        let lone = [SlowMotion.Region(start: 9.7, duration: 0.005), .init(start: 9.8, duration: 0.04)]
        let (kept, merged, dropped) = SlowMotion(rate: 0.25, regions: tiny + lone).withoutSubFrameRegions(frame: 1.0 / 30)
        #expect(merged == 899 && dropped == 1)
        #expect(kept.regions.count == 2 && abs(kept.regions[0].start - 0.5) < 1e-9 && abs(kept.regions[0].end - 9.495) < 1e-9)
        #expect(kept.regions[1] == .init(start: 9.8, duration: 0.04))

        let source = SourceInfo.make([.h264(0, 1920, 1080, fps: 30), .aac(1)], duration: 10)
        let plan = try ExportPlanner.plan(source: source, preset: Presets.named("1280x720"), route: .transcode, container: .mp4,
                                          edits: EditSidecar(slowMotion: SlowMotion(rate: 0.25, regions: tiny + lone)), range: nil)
        #expect(plan.timeline.slowMotion?.regions.count == 2)
        #expect(plan.notes.contains("slow motion: of 902 regions, 899 joined with a neighbour less than a frame away and 1 shorter than a frame dropped (a frame is 33 ms at 30 fps): 2 left"), "\(plan.notes)")
        // Nothing left: no slow motion at all, and the note says why.
        let none = try ExportPlanner.plan(source: source, preset: Presets.named("1280x720"), route: .transcode, container: .mp4,
                                          edits: EditSidecar(slowMotion: SlowMotion(rate: 0.25, regions: [.init(start: 1, duration: 0.01)])), range: nil)
        #expect(none.timeline.slowMotion == nil && abs((none.timeline.expectedDuration ?? 0) - 10) < 1e-9)
        #expect(none.notes.contains { $0.hasSuffix("0 left") }, "\(none.notes)")
        // A region of a frame or more is rendered as asked.
        let whole = try ExportPlanner.plan(source: source, preset: Presets.named("1280x720"), route: .transcode, container: .mp4,
                                           edits: EditSidecar(slowMotion: Self.apple), range: nil)
        #expect(whole.timeline.slowMotion == Self.apple && !whole.notes.contains { $0.contains("joined") })
    }

    @Test func sidecarSlowMotionIsValidated() throws {
        let good = try EditSidecar.parse(Data(#"{"formatVersion":1,"slowMotion":{"rate":0.25,"regions":[{"start":1,"duration":2}]}}"#.utf8), path: "/e.json")
        #expect(good.slowMotion == SlowMotion(rate: 0.25, regions: [.init(start: 1, duration: 2)]))
        #expect(throws: ExportError.invalidSidecar(path: "/e.json", field: "slowMotion", reason: "rate 0.01 is outside 0.0625…1")) {
            try EditSidecar.parse(Data(#"{"formatVersion":1,"slowMotion":{"rate":0.01,"regions":[{"start":1,"duration":2}]}}"#.utf8), path: "/e.json")
        }
        #expect(throws: ExportError.invalidSidecar(path: "/e.json", field: "slowMotion.speed", reason: "unknown key (known: rate, regions)")) {
            try EditSidecar.parse(Data(#"{"formatVersion":1,"slowMotion":{"speed":0.5,"regions":[]}}"#.utf8), path: "/e.json")
        }
    }
}
