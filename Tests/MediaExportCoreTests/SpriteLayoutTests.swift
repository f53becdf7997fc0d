import Foundation
import Testing
@testable import MediaExportCore

/// Scrub-preview layouts: cues cover the duration with no gap or overlap, sheets agree with their tiles, the
/// interval rules, the keyframe rule, the WebVTT text and the tile picker.
@Suite struct SpriteLayoutTests {
    static func layout(_ duration: Double, interval: Double = 2, width: Int = 160, aspect: Double = 16.0 / 9) throws -> SpriteLayout {
        try SpriteLayout(duration: duration, interval: interval, tileWidth: width, displayAspect: aspect)
    }

    /// Durations from half a second to ten hours, intervals the rules give them.
    @Test(arguments: [0.5, 0.001, 1.999, 2, 2.001, 10, 10.04, 59.94, 600, 1999.5, 3600, 36_000.123])
    func cuesCoverTheDurationExactly(duration: Double) throws {
        let interval = SpriteLayout.interval(duration: duration, requested: nil, keyframes: [])
        let l = try Self.layout(duration, interval: interval)
        let cues = l.cues
        #expect(cues.count == l.tileCount && l.tileCount <= SpriteLayout.maximumTiles && l.tileCount >= 1)
        #expect(cues.first?.start == 0)
        #expect(cues.last?.end == (duration * 1000).rounded() / 1000)
        for (a, b) in zip(cues, cues.dropFirst()) { #expect(a.end == b.start && a.start < a.end) }
        #expect(l.index.problems().isEmpty, "\(l.index.problems())")
        // Each sheet but the last is full; the tiles of all sheets are the cues.
        let sheets = l.sheets
        #expect(sheets.dropLast().allSatisfy { $0.tiles == l.tilesPerSheet })
        #expect(sheets.reduce(0) { $0 + $1.tiles } == cues.count)
    }

    @Test func tenSecondsAtTwoSeconds() throws {
        let l = try Self.layout(10)
        #expect(l.tileCount == 5 && l.columns == 5 && l.tileWidth == 160 && l.tileHeight == 90)
        #expect(l.sheets == [SpriteSheet(name: "sprites/sheet_000.jpg", width: 800, height: 90, tiles: 5)])
        #expect(l.tileTimes == [0, 2, 4, 6, 8])
        #expect(l.cues[4] == SpriteCue(start: 8, end: 10, sheet: "sprites/sheet_000.jpg", x: 640, y: 0, w: 160, h: 90))
    }

    @Test func halfSecondClipIsOneTile() throws {
        let l = try Self.layout(0.5)
        #expect(l.tileCount == 1 && l.sheets.count == 1 && l.sheets[0].width == 160 && l.sheets[0].height == 90)
        #expect(l.cues == [SpriteCue(start: 0, end: 0.5, sheet: "sprites/sheet_000.jpg", x: 0, y: 0, w: 160, h: 90)])
        #expect(l.index.webVTT == "WEBVTT\n\n00:00:00.000 --> 00:00:00.500\nsprites/sheet_000.jpg#xywh=0,0,160,90\n")
    }

    @Test func longSourceFillsSeveralSheetsTheLastWithFewerRows() throws {
        // 1 h: 4 s apart (3600 / 1000 = 3.6, up to half a second), 900 tiles on 9 full sheets.
        let hour = SpriteLayout.interval(duration: 3600, requested: nil, keyframes: [])
        #expect(hour == 4)
        // 250 tiles: two full sheets and one of five rows.
        let l = try Self.layout(499, interval: 2)
        #expect(l.tileCount == 250 && l.sheets.count == 3)
        #expect(l.sheets.map(\.height) == [900, 900, 450] && l.sheets.allSatisfy { $0.width == 1600 })
        #expect(l.cues[249] == SpriteCue(start: 498, end: 499, sheet: "sprites/sheet_002.jpg", x: 1440, y: 360, w: 160, h: 90))
        #expect(l.cues[100].sheet == "sprites/sheet_001.jpg" && l.cues[100].x == 0 && l.cues[100].y == 0)
        #expect(l.index.problems().isEmpty)
        #expect(SpriteLayout.sheetName(1234) == "sprites/sheet_1234.jpg")
    }

    /// Aspect (width / height), width asked → tile width, height.
    static let aspects: [(Double, Int, Int, Int)] = [
        (16.0 / 9, 160, 160, 90), (9.0 / 16, 160, 160, 284), (4.0 / 3, 160, 160, 120), (1.0, 161, 160, 160),
        (2.39, 320, 320, 134), (1920.0 / 1080, 16, 16, 10), (20.0, 160, 160, 8), (0.05, 16, 16, 320),
    ]

    @Test(arguments: aspects)
    func tileHeightFollowsTheDisplayedAspect(aspect: Double, width: Int, tileW: Int, tileH: Int) throws {
        let l = try Self.layout(30, width: width, aspect: aspect)
        #expect(l.tileWidth == tileW && l.tileHeight == tileH)
        #expect(l.tileWidth % 2 == 0 && l.tileHeight % 2 == 0)
        #expect(l.index.problems().isEmpty)
    }

    @Test func refusals() {
        #expect(throws: SpriteLayout.Problem.duration(0)) { try Self.layout(0) }
        #expect(throws: SpriteLayout.Problem.duration(0.0004)) { try Self.layout(0.0004) }
        #expect(throws: SpriteLayout.Problem.duration(.infinity)) { try Self.layout(.infinity) }
        #expect(throws: SpriteLayout.Problem.interval(0.05)) { try Self.layout(10, interval: 0.05) }
        #expect(throws: SpriteLayout.Problem.tileWidth(8)) { try Self.layout(10, width: 8) }
        #expect(throws: SpriteLayout.Problem.aspect(0)) { try Self.layout(10, aspect: 0) }
        #expect(throws: SpriteLayout.Problem.aspect(21)) { try Self.layout(10, aspect: 21) }
        #expect(throws: SpriteLayout.Problem.sheetSize(width: 19_200, height: 10_800)) { try Self.layout(600, width: 1920) }
        #expect(throws: SpriteLayout.Problem.grid(columns: 0, rows: 10)) {
            try SpriteLayout(duration: 10, interval: 2, tileWidth: 160, displayAspect: 1, columns: 0)
        }
    }

    @Test func intervalRules() {
        // Asked for: kept, unless the source would need more than 1000 tiles.
        #expect(SpriteLayout.interval(duration: 100, requested: 0.5, keyframes: []) == 0.5)
        #expect(SpriteLayout.interval(duration: 7200, requested: 2, keyframes: []) == 7.5)
        // Keyframes every 2.4 s (x264 -g 60 at 25 fps): 2.5 s; every 4 s: 4 s.
        let every = { (gap: Double, until: Double) in stride(from: 0.0, to: until, by: gap).map { $0 } }
        #expect(SpriteLayout.interval(duration: 600, requested: nil, keyframes: every(2.4, 600)) == 2.5)
        #expect(SpriteLayout.interval(duration: 10, requested: nil, keyframes: every(4, 10)) == 4)
        // Every 4.004 s (29.97 fps): 4.5 s leaves the tile at 58.5 s 2.44 s from the last keyframe (56.056 s): 5 s.
        #expect(SpriteLayout.interval(duration: 60, requested: nil, keyframes: every(4.004, 60)) == 5)
        #expect(SpriteLayout.interval(duration: 56.5, requested: nil, keyframes: every(4.004, 56.5)) == 4.5)
        // Every frame a keyframe: the default.
        #expect(SpriteLayout.interval(duration: 60, requested: nil, keyframes: every(0.04, 60)) == 2)
        // Only the first keyframe, or gaps over 10 s: the default (every frame decoded).
        #expect(SpriteLayout.interval(duration: 60, requested: nil, keyframes: [0]) == 2)
        #expect(SpriteLayout.interval(duration: 120, requested: nil, keyframes: every(12, 120)) == 2)
        // A long source with sparse keyframes: the tile cap's interval.
        #expect(SpriteLayout.interval(duration: 36_000, requested: nil, keyframes: every(60, 36_000)) == 36)
    }

    @Test func keyframeRule() throws {
        let l = try Self.layout(10)  // tiles at 0, 2, 4, 6, 8; reach 1 s
        #expect(l.keyframesSuffice([0, 2, 4, 6, 8]))
        #expect(l.keyframesSuffice([8.9, 0.5, 3, 5, 7]))  // any order
        #expect(l.keyframesSuffice([0, 3, 5, 7]))  // 2 is 1 s from 3: within half an interval
        #expect(!l.keyframesSuffice([0, 3.1, 5, 7]))
        #expect(!l.keyframesSuffice([0, 2, 4, 6]))  // 8 is 2 s past the last
        #expect(!l.keyframesSuffice([]) && !l.keyframesSuffice([.nan]))
        #expect(SpriteLayout.largestGap([0, 2.5, 4.5]) == 2.5)
        #expect(SpriteLayout.largestGap([1]) == nil)
    }

    @Test func webVTTAndJSON() throws {
        let l = try Self.layout(3725.5, interval: 4)
        let vtt = l.index.webVTT
        #expect(vtt.hasPrefix("WEBVTT\n\n00:00:00.000 --> 00:00:04.000\nsprites/sheet_000.jpg#xywh=0,0,160,90\n\n"))
        #expect(vtt.hasSuffix("\n01:02:04.000 --> 01:02:05.500\nsprites/sheet_009.jpg#xywh=160,270,160,90\n"))
        #expect(vtt.components(separatedBy: " --> ").count - 1 == l.tileCount)
        #expect(SpriteIndex.clock(360_000.25) == "100:00:00.250" && SpriteIndex.clock(.nan) == "00:00:00.000")
        let data = try JSONEncoder().encode(l.index)
        let back = try JSONDecoder().decode(SpriteIndex.self, from: data)
        #expect(back == l.index && back.problems().isEmpty)
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains("\"interval\":4") && text.contains("\"tileWidth\":160") && text.contains("\"version\":1"))
    }

    @Test func geometryCheckFindsEachProblem() throws {
        var index = try Self.layout(499).index  // 3 sheets, 250 tiles
        index.sheets[0].width = 1610
        index.sheets[2].height = 900
        index.cues[5].x = 81
        index.cues[7].start = 14.5
        index.cues[8].sheet = "sprites/other.jpg"
        let found = index.problems(pictures: ["sprites/sheet_001.jpg": (1600, 890)])
        #expect(found.contains(.sheetWidth(sheet: "sprites/sheet_000.jpg", declared: 1610, expected: 1600)))
        #expect(found.contains(.sheetHeight(sheet: "sprites/sheet_002.jpg", declared: 900, expected: 450)))
        #expect(found.contains(.pictureSize(sheet: "sprites/sheet_001.jpg", declared: [1600, 900], actual: [1600, 890])))
        #expect(found.contains(.misplacedTile(cue: 5)))
        #expect(found.contains(.notContiguous(cue: 7, expectedStart: 14, start: 14.5, end: 16)))
        #expect(found.contains(.unknownSheet(cue: 8, sheet: "sprites/other.jpg")))
        #expect(found.count == 6, "\(found)")
        index = try Self.layout(499).index
        index.cues.removeLast()
        #expect(index.problems() == [.tileCount(sheets: 250, cues: 249), .coverage(lastEnd: 498, duration: 499)])
        index.cues = []
        #expect(index.problems().contains(.coverage(lastEnd: 0, duration: 499)))
        index = try Self.layout(10).index
        index.cues[2].end = index.cues[2].start  // empty, then the next starts late
        #expect(index.problems().contains(.notContiguous(cue: 2, expectedStart: 4, start: 4, end: 4)))
    }

    @Test func nearestKeyframePicker() {
        // Tiles at 0, 2, 4, 6, 8; keyframes at 0, 2.5, 5, 7, 9.
        var p = SpriteTilePicker(times: [0, 2, 4, 6, 8], rule: .nearest)
        #expect(p.arrive(0) == .init(held: 0..<0, current: 0..<0))  // held with tile 0
        #expect(p.arrive(2.5) == .init(held: 0..<1, current: 0..<0))  // 2 goes to 2.5
        #expect(p.arrive(5) == .init(held: 1..<2, current: 0..<0))  // 4 goes to 5
        #expect(p.arrive(7) == .init(held: 2..<4, current: 0..<0))  // 6 is 1 s from each: the earlier, 5
        #expect(p.isDone == false)
        #expect(p.arrive(9) == .init(held: 4..<5, current: 0..<0))  // 8: a tie again, 7
        #expect(p.isDone)
        #expect(p.finish() == 5..<5)
        // A keyframe with no tile near it is held with none: nothing to decode.
        var q = SpriteTilePicker(times: [0, 10], rule: .nearest)
        _ = q.arrive(0)
        #expect(q.arrive(2) == .init(held: 0..<1, current: 0..<0))
        #expect(q.arrive(4) == .init(held: 1..<1, current: 0..<0))
        #expect(q.finish() == 1..<2)  // 10 s: the last keyframe
        var none = SpriteTilePicker(times: [0, 2], rule: .nearest)
        #expect(none.finish() == 0..<0)
    }

    @Test func firstFrameAtOrAfterPicker() {
        // 25 fps frames, tiles every 0.1 s with half a frame of slack.
        var p = SpriteTilePicker(times: [0, 0.1, 0.2, 0.5], rule: .atOrAfter, slack: 0.02)
        #expect(p.arrive(0) == .init(held: 0..<0, current: 0..<1))
        #expect(p.arrive(0.04) == .init(held: 0..<0, current: 1..<1))
        #expect(p.arrive(0.09) == .init(held: 0..<0, current: 1..<2))  // within half a frame of 0.1
        #expect(p.arrive(0.3) == .init(held: 0..<0, current: 2..<3))  // frames missing: the next one
        #expect(p.finish() == 3..<4)  // 0.5 after the end: the last frame
        var late = SpriteTilePicker(times: [0, 1], rule: .atOrAfter)
        #expect(late.arrive(0.5) == .init(held: 0..<0, current: 0..<1))
        #expect(late.arrive(1.5) == .init(held: 0..<0, current: 1..<2) && late.isDone)
    }
}
