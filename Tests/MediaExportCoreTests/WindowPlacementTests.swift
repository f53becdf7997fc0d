import Foundation
import Testing
@testable import MediaExportCore

/// Where the CRF search's probe windows go (`WindowPlacement`): the whole of a short stretch, else one short window
/// in each of a few equal strata, at a scene's start when the source's keyframes show its cuts.
@Suite struct WindowPlacementTests {
    /// Every window inside `0..<length`, the weights summing to 1.
    static func expectSound(_ windows: [ProbeWindow], length: Double, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(windows.allSatisfy { $0.start >= 0 && $0.length > 0 && $0.start + $0.length <= length + 1e-9 }, sourceLocation: sourceLocation)
        #expect(abs(windows.reduce(0) { $0 + $1.weight } - 1) < 1e-9, sourceLocation: sourceLocation)
    }

    @Test("under 450 frames: one window, the whole stretch, weight 1", arguments: [(5.0, 30.0), (14.9, 30), (17, 25), (0.5, 60), (15, 29.97)])
    func short(length: Double, fps: Double) {
        #expect(WindowPlacement.place(length: length, fps: fps) == [ProbeWindow(start: 0, length: length, weight: 1)])
    }

    @Test("an unknown rate: whole; an empty or broken length: no window")
    func degenerate() {
        #expect(WindowPlacement.place(length: 600, fps: 0) == [ProbeWindow(start: 0, length: 600, weight: 1)])
        #expect(WindowPlacement.place(length: 600, fps: .nan).count == 1)
        #expect(WindowPlacement.place(length: 0, fps: 30).isEmpty && WindowPlacement.place(length: -1, fps: 30).isEmpty)
        #expect(WindowPlacement.place(length: .infinity, fps: 30).isEmpty && WindowPlacement.place(length: .nan, fps: 30).isEmpty)
    }

    @Test("30 s to 1 min: 4 windows; 2 min: 6; 5 min and more: 8, of 40 frames in the middle of equal strata",
          arguments: [(30.0, 4), (59.0, 4), (120, 6), (300, 8), (3600, 8)])
    func strata(length: Double, count: Int) {
        let windows = WindowPlacement.place(length: length, fps: 30)
        #expect(windows.count == count)
        Self.expectSound(windows, length: length)
        let stratum = length / Double(count)
        for (index, window) in windows.enumerated() {
            #expect(abs(window.length - 40.0 / 30) < 1e-9 && abs(window.weight - 1 / Double(count)) < 1e-12)
            #expect(abs(window.start + window.length / 2 - (Double(index) + 0.5) * stratum) < 1e-9)
        }
    }

    @Test("regular keyframes (a fixed GOP): the strata's middles")
    func regularKeyframes() {
        let gop = stride(from: 0.0, to: 300, by: 2).map { $0 }
        #expect(!WindowPlacement.irregular(gop))
        #expect(WindowPlacement.place(length: 300, fps: 30, keyframes: gop) == WindowPlacement.place(length: 300, fps: 30))
    }

    @Test("irregular keyframes (scene cuts): a window starts at the first keyframe in its stratum's middle half")
    func sceneCuts() {
        // 5 min, 8 strata of 37.5 s: middle halves 9.375…28.125, 46.875…65.625, …
        let cuts = [0, 3.1, 12.4, 20.0, 44.0, 50.5, 51.7, 80.0, 125.0, 160.0, 200.0, 241.0, 250.0, 290.0, 299.0]
        #expect(WindowPlacement.irregular(cuts))
        let windows = WindowPlacement.place(length: 300, fps: 30, keyframes: cuts.reversed())
        Self.expectSound(windows, length: 300)
        #expect(windows.count == 8)
        #expect(windows[0].start == 12.4 && windows[1].start == 50.5)
        // No keyframe in the third's middle half (84.375…103.125): its middle.
        #expect(abs(windows[2].start - (93.75 - 20.0 / 30)) < 1e-9)
        #expect(windows[3].start == 125.0 && windows[6].start == 241.0 && windows[7].start == 290.0)
    }

    @Test("a keyframe too late in its stratum for 40 frames: the window starts as late as it fits in the stratum")
    func lateKeyframe() {
        // 15 min at 1 fps: 8 strata of 112.5 s, windows of 40 s; 870 lies in the last one's middle half (815.6…871.9).
        let keys = [0, 7, 9, 25, 26.5, 27, 28.1, 190, 870]
        let windows = WindowPlacement.place(length: 900, fps: 1, keyframes: keys)
        Self.expectSound(windows, length: 900)
        #expect(windows.count == 8 && windows.last!.start == 860 && windows.last!.length == 40)
        #expect(windows[1].start == 225 - 40, "190 + 40 would pass its stratum's end, 225")
    }

    @Test("fewer than 3 keyframes tell nothing: not irregular")
    func fewKeyframes() {
        #expect(!WindowPlacement.irregular([]) && !WindowPlacement.irregular([0, 40]) && !WindowPlacement.irregular([.nan, 3, 3]))
    }

    @Test("a placement round-trips through JSON")
    func roundTrip() throws {
        let windows = WindowPlacement.place(length: 120, fps: 25)
        let data = try JSONEncoder().encode(windows)
        #expect(try JSONDecoder().decode([ProbeWindow].self, from: data) == windows)
    }
}
