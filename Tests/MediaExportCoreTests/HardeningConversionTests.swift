import Foundation
import Testing
@testable import MediaExportCore

/// Issue 29, item 2: numbers a file chooses cannot trap a conversion or an encoder's `Int32` size.
@Suite struct HardeningConversionTests {
    @Test("a Double past an integer's range saturates; NaN is 0", arguments: [
        (Double.nan, Int64(0)), (.infinity, .max), (-.infinity, .min), (9.3e18, .max), (-9.3e18, .min),
        (9_223_372_036_854_775_808, .max), (1.9, 1), (-1.9, -1), (0, 0),
    ])
    func int64Saturates(_ value: Double, _ expected: Int64) {
        #expect(Int64(saturating: value) == expected)
    }

    @Test func int32Saturates() {
        #expect(Int32(saturating: 3e9) == .max && Int32(saturating: -3e9) == .min && Int32(saturating: 2_147_483_647) == .max)
        #expect(Int(saturating: 1e21) == .max)
    }

    @Test("a sample aspect ratio of 2³¹−1:1 under a preset without a box: a plan that says why, no trap")
    func hugeSampleAspectRatioIsRefused() throws {
        let source = SourceInfo.make([.h264(0, 1920, 1080, sar: Rational(2_147_483_647, 1)), .aac(1)])
        let plan = try ExportPlanner.plan(source: source, preset: Presets.named("highest"), route: .transcode, container: .mp4,
                                          edits: nil, range: nil)
        let video = plan.streams.first { $0.kind == .video }
        guard case .drop(let reason)? = video?.action else { Issue.record("video not dropped: \(String(describing: video?.action))"); return }
        #expect(reason.contains("65536"))
    }

    @Test("a size budget over a duration of 1e-12 s: rates saturate, no trap")
    func tinyDurationBudget() throws {
        let source = SourceInfo.make([.h264(0, 1280, 720), .aac(1)], duration: 1e-12)
        let plan = try ExportPlanner.plan(source: source, preset: Presets.named("highest"), route: .transcode, container: .mp4,
                                          edits: nil, range: nil)
        _ = OutputSize.budget(limit: 1 << 40, plan: plan, source: source, ceiling: nil)
    }
}

extension HardeningConversionTests {
    @Test("the batch's fit and estimates over a 2³¹−1:1 picture lasting 1e18 s: said, no trap")
    func batchFitOfHugeNumbers() throws {
        let source = SourceInfo.make([.h264(0, 1920, 1080, sar: Rational(2_147_483_647, 1), bitRate: 8_000_000), .aac(1)], duration: 1e18)
        for name in ["highest", "low"] {
            let preset = Presets.named(name)
            // Under `highest` (no box) the transcode plan refuses its size (the chain then remuxes it as it is); `low` scales it.
            #expect(unfit(source, preset: preset)?.contains(name == "low" ? "scaled" : "above") == true, "\(unfit(source, preset: preset) ?? "fits")")
            let plan = try ExportPlanner.plan(source: source, preset: preset, route: .transcode, container: .mp4, edits: nil, range: nil)
            #expect(!plan.isPossible || OutputSize.estimatedBytes(plan: plan, source: source, measured: nil) == Int64.max)
        }
        let plain = SourceInfo.make([.h264(0, 1280, 720), .aac(1)], duration: 1e18)
        let plan = try ExportPlanner.plan(source: plain, preset: Presets.named("highest"), route: .transcode, container: .mp4, edits: nil, range: nil)
        #expect(OutputSize.estimatedBytes(plan: plan, source: plain, measured: nil) == Int64.max)
    }
}
