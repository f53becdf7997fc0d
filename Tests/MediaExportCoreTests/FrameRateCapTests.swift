import Foundation
import Testing
@testable import MediaExportCore

/// `video.maxFrameRate` without media: which frames the slot rule keeps, and what the planner expects and says.
@Suite struct FrameRateCapTests {
    /// The indices of `count` frames at `rate` (timestamps in ticks of `tick` s, rounded as a muxer stores them) that
    /// a cap of `cap` keeps.
    static func kept(count: Int, rate: Double, cap: Double, tick: Double = 1.0 / 15360) -> (indices: [Int], decimator: FrameRateCap.Decimator) {
        var decimator = FrameRateCap.Decimator(maxFrameRate: cap, tick: tick)
        var indices: [Int] = []
        for k in 0..<count {
            let ts = (Double(k) / rate / tick).rounded()
            if decimator.keeps(ts * tick) { indices.append(k) }
        }
        return (indices, decimator)
    }

    @Test func twoFortyToThirtyKeepsEveryEighth() {
        let (indices, decimator) = Self.kept(count: 480, rate: 240, cap: 30)
        #expect(indices == Array(stride(from: 0, to: 480, by: 8)))
        #expect(decimator.seen == 480 && decimator.leftOut == 420)
        #expect(decimator.note == "frame rate capped at 30 fps: 420 of 480 frames left out")
        #expect(FrameRateCap.keptFrames(480, sourceRate: 240, maxFrameRate: 30) == 60)
    }

    @Test func sixtyToThirtyKeepsEverySecond() {
        // Matroska's 1 ms ticks: the frames land on 0, 17, 33, 50 ms … (rounded), never a slot too early.
        let (indices, _) = Self.kept(count: 120, rate: 60, cap: 30, tick: 1.0 / 1000)
        #expect(indices == Array(stride(from: 0, to: 120, by: 2)))
    }

    @Test func fiftyToThirtyKeepsThreeOfEveryFive() {
        let (indices, decimator) = Self.kept(count: 100, rate: 50, cap: 30, tick: 1.0 / 12800)
        #expect(indices.count == 60 && decimator.leftOut == 40)
        #expect(Array(indices.prefix(6)) == [0, 2, 4, 5, 7, 9])
        #expect(FrameRateCap.keptFrames(100, sourceRate: 50, maxFrameRate: 30) == 60)
        // At most one frame per 1/30 s slot: no two kept frames closer than one source frame, none further than two.
        let gaps = zip(indices.dropFirst(), indices).map { $0 - $1 }
        #expect(gaps.allSatisfy { $0 == 1 || $0 == 2 })
    }

    @Test func slowerThanTheCapKeepsEverything() {
        // What a slowed region at or under the cap gives: every frame in its own slot, even at the cap exactly.
        #expect(Self.kept(count: 50, rate: 25, cap: 30).indices.count == 50)
        #expect(Self.kept(count: 60, rate: 30, cap: 30, tick: 1.0 / 1000).indices.count == 60)
    }

    @Test(arguments: [(480, 240.0, 30.0), (100, 50.0, 30.0), (120, 60.0, 30.0), (599, 59.94, 30.0), (301, 120.0, 24.0), (1, 240.0, 30.0)])
    func keptFramesAgreesWithTheSlots(count: Int, rate: Double, cap: Double) {
        #expect(Self.kept(count: count, rate: rate, cap: cap, tick: 1.0 / 90000).indices.count
                == FrameRateCap.keptFrames(count, sourceRate: rate, maxFrameRate: cap))
    }

    @Test func theLastKeptFrameLastsUntilItsSlotEnds() {
        let decimator = FrameRateCap.Decimator(maxFrameRate: 30, tick: 1.0 / 15360)
        // 240 fps: the last kept frame (472/240 s) ends at 2 s, where the source's last frame ends.
        #expect(abs(decimator.shownDuration(at: 472.0 / 240, own: 1.0 / 240) - (2 - 472.0 / 240)) < 1e-9)
        // A frame already longer than the rest of its slot keeps its own length (a slowed region's).
        #expect(decimator.shownDuration(at: 0, own: 0.1) == 0.1)
    }

    @Test func theCapAppliesOnlyAboveIt() {
        #expect(FrameRateCap.planned(maxFrameRate: nil, sourceRate: 240) == nil)
        #expect(FrameRateCap.planned(maxFrameRate: 30, sourceRate: 25) == nil)
        #expect(FrameRateCap.planned(maxFrameRate: 30, sourceRate: 30) == nil)
        // A phone's variable-rate "30 fps" averages a little over 30.
        #expect(FrameRateCap.planned(maxFrameRate: 30, sourceRate: 30.02) == nil)
        #expect(FrameRateCap.planned(maxFrameRate: 30, sourceRate: 60) == FrameRateCap(maxFrameRate: 30, sourceRate: 60))
        #expect(FrameRateCap.planned(maxFrameRate: 30, sourceRate: nil) == FrameRateCap(maxFrameRate: 30, sourceRate: nil))
        // Slowed throughout to 30 fps: nothing to leave out.
        #expect(FrameRateCap.planned(maxFrameRate: 30, sourceRate: 240, playback: 0.125) == nil)
    }

    @Test(arguments: [
        (240.0, 30.0, "frame rate capped at 30 fps (source 240 fps): 7 of every 8 frames left out"),
        (60.0, 30.0, "frame rate capped at 30 fps (source 60 fps): 1 of every 2 frames left out"),
        (50.0, 30.0, "frame rate capped at 30 fps (source 50 fps): 2 of every 5 frames left out"),
        (59.94, 30.0, "frame rate capped at 30 fps (source 59.94 fps): about 1 of every 2 frames left out"),
        (120.0, 29.97, "frame rate capped at 29.97 fps (source 120 fps): about 3 of every 4 frames left out"),
        (240.0, 7.0, "frame rate capped at 7 fps (source 240 fps): about 97 % of the frames left out"),
    ])
    func planNoteSaysWhatShareIsLeftOut(rate: Double, cap: Double, note: String) {
        #expect(FrameRateCap(maxFrameRate: cap, sourceRate: rate).note == note)
    }

    static func capped(_ cap: Double) -> Preset {
        var preset = Presets.highest
        preset.video?.maxFrameRate = cap
        return preset
    }

    /// An MP4 whose video declares `frames` frames over `seconds` at `fps`.
    static func source(fps: Double?, frames: Int, seconds: Double) -> SourceInfo {
        var video = SourceStream.h264(0, 1280, 720, fps: fps)
        video.duration = seconds
        video.frameCount = frames
        var info = SourceInfo.make([video, .aac(1)], duration: seconds)
        info.formatName = "mov,mp4,m4a,3gp,3g2,mj2"
        return info
    }

    static func video(_ plan: ExportPlan) -> (VideoPlan, StreamDecision)? {
        for d in plan.streams { if case .transcodeVideo(let v) = d.action { return (v, d) } }
        return nil
    }

    @Test func thePlanExpectsTheCappedCountAndSaysSo() throws {
        let plan = try ExportPlanner.plan(source: Self.source(fps: 240, frames: 480, seconds: 2), preset: Self.capped(30), route: .transcode,
                                          container: .mp4, edits: nil, range: nil)
        let (v, d) = try #require(Self.video(plan))
        #expect(v.frameRateCap == FrameRateCap(maxFrameRate: 30, sourceRate: 240))
        #expect(d.expectedFrames == 60)
        #expect(d.expectedDuration == 2)
        #expect(plan.notes.contains("frame rate capped at 30 fps (source 240 fps): 7 of every 8 frames left out"), "\(plan.notes)")
        // A trim: the frames of the part exported, capped.
        let trimmed = try ExportPlanner.plan(source: Self.source(fps: 240, frames: 480, seconds: 2), preset: Self.capped(30), route: .transcode,
                                             container: .mp4, edits: nil, range: TimeRange(start: 0.5, end: 1.5))
        #expect(Self.video(trimmed)?.1.expectedFrames == 30)
    }

    @Test func aSourceUnderTheCapIsUntouched() throws {
        let plan = try ExportPlanner.plan(source: Self.source(fps: 25, frames: 50, seconds: 2), preset: Self.capped(30), route: .transcode,
                                          container: .mp4, edits: nil, range: nil)
        let (v, d) = try #require(Self.video(plan))
        #expect(v.frameRateCap == nil && d.expectedFrames == 50)
        #expect(!plan.notes.contains { $0.contains("frame rate") })
    }

    @Test func slowMotionSlowsWhatIsCapped() throws {
        let source = Self.source(fps: 240, frames: 720, seconds: 3)
        // Part slowed: capped, the count left to what is written (the rate varies).
        let part = try ExportPlanner.plan(source: source, preset: Self.capped(30), route: .transcode, container: .mp4,
                                          edits: EditSidecar(slowMotion: SlowMotion(rate: 0.125, regions: [.init(start: 1, duration: 1)])), range: nil)
        let (v, d) = try #require(Self.video(part))
        #expect(v.frameRateCap?.slowed == true && d.expectedFrames == nil)
        #expect(part.notes.contains("frame rate capped at 30 fps (source 240 fps): up to 7 of every 8 frames left out, fewer where slow motion slows the picture"),
                "\(part.notes)")
        // Slowed throughout to 30 fps: no cap needed.
        let whole = try ExportPlanner.plan(source: source, preset: Self.capped(30), route: .transcode, container: .mp4,
                                           edits: EditSidecar(slowMotion: SlowMotion(rate: 0.125, regions: [.init(start: 0, duration: 3)])), range: nil)
        #expect(Self.video(whole)?.0.frameRateCap == nil)
        // Slowed throughout to 120 fps: capped evenly, the count known.
        let half = try ExportPlanner.plan(source: source, preset: Self.capped(30), route: .transcode, container: .mp4,
                                          edits: EditSidecar(slowMotion: SlowMotion(rate: 0.5, regions: [.init(start: 0, duration: 3)])), range: nil)
        let (hv, hd) = try #require(Self.video(half))
        #expect(hv.frameRateCap == FrameRateCap(maxFrameRate: 30, sourceRate: 240, playback: 0.5))
        #expect(hd.expectedFrames == 180)
        #expect(half.notes.contains("frame rate capped at 30 fps (source 240 fps, 120 fps slowed): 3 of every 4 frames left out"), "\(half.notes)")
    }

    @Test func theFrameCountIsACeilingUnderTheCap() throws {
        let plan = try ExportPlanner.plan(source: Self.source(fps: 240, frames: 480, seconds: 2), preset: Self.capped(30), route: .transcode,
                                          container: .mp4, edits: nil, range: nil)
        let decision = try #require(Self.video(plan)?.1)
        func check(measured: Int, written: Int) -> Verification.Outcome {
            var out = OutputFacts.Stream(kind: .video, codec: "h264")
            out.frameCount = measured
            return OutputVerifier.frameCountCheck(label: "stream #0 video", decision: decision, out: out,
                                                  delivered: DeliveredStream(packets: written, duration: 2)).outcome
        }
        #expect(check(measured: 60, written: 60) == .passed)
        // A source slower than the cap in places keeps fewer frames than evenly spaced ones would.
        #expect(check(measured: 52, written: 52) == .passed)
        // More than the cap allows, or frames written that the file does not hold.
        #expect(check(measured: 70, written: 70) == .failed)
        #expect(check(measured: 58, written: 60) == .failed)
    }

    @Test func aBatchTranscodesAFileAboveTheCap() {
        #expect(unfit(Self.source(fps: 240, frames: 480, seconds: 2), preset: Self.capped(30))
                == "stream #0 video: 240 → 30 fps")
        #expect(unfit(Self.source(fps: 240, frames: 480, seconds: 2), preset: Presets.highest)
                != "stream #0 video: 240 → 30 fps")
    }
}
