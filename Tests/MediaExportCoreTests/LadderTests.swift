import Testing
@testable import MediaExportCore

@Suite struct LadderTests {
    @Test func aFullHDSourceGetsFiveRungsLargestFirst() {
        let plan = LadderPlanner.plan(width: 1920, height: 1080, frameRate: 30, hasAudio: true, kind: .perTitle)
        #expect(plan.rungs.map(\.name) == ["1080p", "720p", "480p", "360p", "240p"])
        #expect(plan.omitted.isEmpty)
        #expect(plan.maxFrameRate == nil)
        #expect(plan.audio)
        #expect(plan.rungs[0].rate == .cappedCRF(crf: 23, maxBitrate: 6_000_000))
    }

    @Test func a720pSourceGetsNo1080pRung() {
        let plan = LadderPlanner.plan(width: 1280, height: 720, frameRate: 24, hasAudio: false, kind: .perTitle)
        #expect(plan.rungs.map(\.name) == ["720p", "480p", "360p", "240p"])
        #expect(plan.omitted["1080p"] == .aboveSource(sourceShortSide: 720))
        #expect(plan.maxFrameRate == nil, "a 24 fps source keeps its rate: no 60 fps rung")
        #expect(!plan.audio)
    }

    @Test func portraitUsesTheShortSide() {
        let plan = LadderPlanner.plan(width: 1080, height: 1920, frameRate: 30, hasAudio: true, kind: .perTitle)
        #expect(plan.rungs.first?.shortSide == 1080)
        let video = LadderPlanner.settings(plan.rungs[1], plan: plan, base: VideoSettings(codec: .h264))
        let fitted = video.maxSize?.fit(width: 1080, height: 1920)
        #expect(fitted?.width == 720 && fitted?.height == 1280)
        #expect(video.keyframeInterval == 4)
    }

    @Test func aSourceBetweenRowsGetsItsOwnSizeOnTop() {
        let plan = LadderPlanner.plan(width: 1776, height: 1000, frameRate: 30, hasAudio: true, kind: .perTitle)
        #expect(plan.rungs.map(\.name) == ["1000p", "720p", "480p", "360p", "240p"])
        #expect(plan.rungs[0].rate == .cappedCRF(crf: 23, maxBitrate: 6_000_000))
        let close = LadderPlanner.plan(width: 1360, height: 766, frameRate: 30, hasAudio: true, kind: .perTitle)
        #expect(close.rungs.map(\.name) == ["720p", "480p", "360p", "240p"], "766 is within 15 % of 720: no rung of its own")
    }

    @Test func aTinySourceGetsOneRungAtItsSize() {
        let plan = LadderPlanner.plan(width: 320, height: 180, frameRate: 15, hasAudio: true, kind: .perTitle)
        #expect(plan.rungs.map(\.name) == ["180p"])
    }

    @Test func fastSourcesAreCappedAt60() {
        #expect(LadderPlanner.plan(width: 1920, height: 1080, frameRate: 120, hasAudio: true, kind: .perTitle).maxFrameRate == 60)
        #expect(LadderPlanner.plan(width: 1920, height: 1080, frameRate: 59.94, hasAudio: true, kind: .perTitle).maxFrameRate == nil)
    }

    @Test func appleLadderUsesTheFixedTable() {
        let plan = LadderPlanner.plan(width: 1920, height: 1080, frameRate: 30, hasAudio: true, kind: .apple)
        #expect(plan.rungs.map(\.name) == ["1080p", "720p", "540p", "432p", "360p", "234p"])
        let video = LadderPlanner.settings(plan.rungs[1], plan: plan, base: VideoSettings(codec: .h264))
        #expect(video.bitrate == 3_000_000 && video.maxBitrate == 4_500_000)
    }

    @Test func hevcSpendsLessAndQualityTargetsCarry() throws {
        let target = try QualityTarget(parsing: "ssim:0.97")
        let plan = LadderPlanner.plan(width: 1280, height: 720, frameRate: 30, hasAudio: true, kind: .perTitle, codec: .hevc, quality: target)
        #expect(plan.rungs[0].rate == .quality(target, maxBitrate: 2_100_000))
        let video = LadderPlanner.settings(plan.rungs[0], plan: plan, base: VideoSettings(codec: .hevc))
        #expect(video.quality == target && video.maxBitrate == 2_100_000 && video.bufferSize == 4_200_000)
    }

    @Test func keyframesAtTheFirstFrameOnOrAfterEachBoundary() {
        var schedule = KeyframeSchedule(interval: 4)
        let times = (0..<300).map { Double($0) * 1001 / 30000 }
        let keys = times.filter { schedule.isKeyframe(at: $0) }
        #expect(keys.count == 3)
        #expect(keys[0] == 0 && abs(keys[1] - 4.004) < 1e-9 && abs(keys[2] - 8.008) < 1e-9)
        var exact = KeyframeSchedule(interval: 2)
        #expect([0.0, 1.0, 1.9999999999, 3.0, 4.0].map { exact.isKeyframe(at: $0) } == [true, false, true, false, true])
    }
}
