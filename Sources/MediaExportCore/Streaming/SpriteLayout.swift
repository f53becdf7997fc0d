/// Trickplay scrub previews laid out: one tile every `interval` seconds, `tileWidth`×`tileHeight` pixels, in sheets of
/// `columns`×`rows` tiles, and the cue of each tile. Pure arithmetic on whole milliseconds, so the cues cover
/// [0, duration] exactly: each starts where the one before ends, the last ends at the duration (docs/trickplay.md).
public struct SpriteLayout: Equatable, Sendable {
    /// One tile every 2 s for short sources (Mux's storyboards and Jellyfin's previews are 1 to 10 s apart).
    public static let defaultInterval = 2.0
    /// Tiles 160 px wide: a scrub bar's preview, not a poster (Jellyfin's default is 320).
    public static let defaultTileWidth = 160
    /// Ten tiles a row and ten rows a sheet: 100 tiles, a 1600×900 sheet for 16:9 (Jellyfin's 10×10).
    public static let defaultColumns = 10, defaultRows = 10
    /// At most this many tiles for a whole source: longer sources get a longer interval (1 h: one tile every 4 s).
    public static let maximumTiles = 1000
    /// The longest interval chosen for a source's keyframes (when the caller names none): sources whose keyframes
    /// are further apart get `defaultInterval` and every frame decoded.
    public static let largestAdoptedKeyframeGap = 10.0
    /// The narrowest and widest tile, and the shortest interval a caller may ask for.
    public static let tileWidths = 16...1920, shortestInterval = 0.1
    /// The widest and highest sheet: a JPEG any browser decodes.
    public static let largestSheetSide = 16384

    /// Seconds of video the tiles cover, on a millisecond grid.
    public var duration: Double { Double(durationMs) / 1000 }
    /// Seconds between two tiles (the last tile's cue may be shorter).
    public var interval: Double { Double(intervalMs) / 1000 }
    /// A tile's size in pixels (even numbers, as JPEG's 4:2:0 wants).
    public let tileWidth: Int, tileHeight: Int
    /// Tiles a row of every sheet, and rows a full sheet (the last sheet may have fewer).
    public let columns: Int, rows: Int
    /// Tiles in all: one per interval started before the duration.
    public let tileCount: Int
    let durationMs: Int, intervalMs: Int

    /// Why a layout cannot be made.
    public enum Problem: Error, Equatable, Sendable {
        /// The duration is not a positive number of milliseconds (or is not finite).
        case duration(Double)
        /// The interval is below `shortestInterval` or not finite.
        case interval(Double)
        /// The tile width is outside `tileWidths`.
        case tileWidth(Int)
        /// The displayed aspect ratio (width / height) is outside 1:20 … 20:1.
        case aspect(Double)
        /// Columns or rows below 1.
        case grid(columns: Int, rows: Int)
        /// A sheet would be wider or higher than `largestSheetSide`.
        case sheetSize(width: Int, height: Int)
    }

    /// Lays out tiles `interval` s apart over `duration` s, `tileWidth` wide (rounded down to even) and as high as
    /// `displayAspect` (width / height, as displayed) says, rounded to even; a source with fewer tiles than
    /// `columns` gets a sheet only as wide as its tiles.
    public init(duration: Double, interval: Double, tileWidth: Int, displayAspect: Double,
                columns: Int = defaultColumns, rows: Int = defaultRows) throws(Problem) {
        guard duration.isFinite, duration < 1e9, (duration * 1000).rounded() >= 1 else { throw .duration(duration) }
        guard interval.isFinite, interval >= Self.shortestInterval, interval < 1e9 else { throw .interval(interval) }
        guard Self.tileWidths.contains(tileWidth) else { throw .tileWidth(tileWidth) }
        guard displayAspect >= 0.05, displayAspect <= 20 else { throw .aspect(displayAspect) }
        guard columns >= 1, rows >= 1 else { throw .grid(columns: columns, rows: rows) }
        durationMs = Int((duration * 1000).rounded())
        intervalMs = Int((interval * 1000).rounded())
        tileCount = (durationMs + intervalMs - 1) / intervalMs
        self.tileWidth = tileWidth / 2 * 2
        let height = Double(self.tileWidth) / displayAspect
        tileHeight = max(2, Int((height / 2).rounded()) * 2)
        self.columns = min(columns, tileCount)
        self.rows = min(rows, (tileCount + self.columns - 1) / self.columns)
        if self.columns * self.tileWidth > Self.largestSheetSide || self.rows * tileHeight > Self.largestSheetSide {
            throw .sheetSize(width: self.columns * self.tileWidth, height: self.rows * tileHeight)
        }
    }

    /// The interval the tiles get: the caller's, lengthened to a multiple of half a second when the source would
    /// need more than `maximumTiles`. With none asked for: the shortest of `defaultInterval`, then half-second steps
    /// from the largest gap between `keyframes` up to `largestAdoptedKeyframeGap`, at which every tile has a keyframe
    /// within half an interval (`keyframesSuffice`); `defaultInterval` when none has (the tiles then need every frame).
    public static func interval(duration: Double, requested: Double?, keyframes: [Double]) -> Double {
        let least = duration.isFinite && duration > 0 ? (duration / Double(maximumTiles) * 2).rounded(.up) / 2 : 0
        if let requested { return duration / requested > Double(maximumTiles) ? least : requested }
        let sorted = keyframes.filter(\.isFinite).sorted()
        let gap = zip(sorted, sorted.dropFirst()).map { $1 - $0 }.max() ?? 0
        var candidate = max(defaultInterval, least, halfSecondsUp(gap))
        while candidate <= max(largestAdoptedKeyframeGap, least) {
            if keyframesSuffice(sorted, interval: candidate, duration: duration) { return candidate }
            candidate += 0.5
        }
        return max(defaultInterval, least)
    }

    /// `seconds` rounded up to a multiple of 0.5 (a millisecond of slack: 4.0004 is 4).
    static func halfSecondsUp(_ seconds: Double) -> Double { ((seconds - 0.001) * 2).rounded(.up) / 2 }

    /// Tiles on full sheets, and sheets in all.
    public var tilesPerSheet: Int { columns * rows }
    /// How many sheets the tiles fill.
    public var sheetCount: Int { (tileCount + tilesPerSheet - 1) / tilesPerSheet }

    /// The sheets, in order: `sprites/sheet_000.jpg` on, each `columns × tileWidth` wide and as many rows high as
    /// its tiles fill.
    public var sheets: [SpriteSheet] {
        (0..<sheetCount).map { s in
            let tiles = min(tilesPerSheet, tileCount - s * tilesPerSheet)
            let sheetRows = (tiles + columns - 1) / columns
            return SpriteSheet(name: Self.sheetName(s), width: columns * tileWidth, height: sheetRows * tileHeight, tiles: tiles)
        }
    }

    /// The file of sheet `index`, relative to the folder holding `thumbnails.vtt`.
    public static func sheetName(_ index: Int) -> String {
        let digits = String(index)
        return "sprites/sheet_" + String(repeating: "0", count: max(0, 3 - digits.count)) + digits + ".jpg"
    }

    /// The time tile `index` shows: the start of its cue.
    public func tileTime(_ index: Int) -> Double { Double(index * intervalMs) / 1000 }

    /// All tile times, in order.
    public var tileTimes: [Double] { (0..<tileCount).map(tileTime) }

    /// Where tile `index` sits: its sheet and its top-left corner there.
    public func position(_ index: Int) -> (sheet: Int, x: Int, y: Int) {
        let within = index % tilesPerSheet
        return (index / tilesPerSheet, within % columns * tileWidth, within / columns * tileHeight)
    }

    /// One cue a tile: [i × interval, min((i + 1) × interval, duration)) and its rectangle.
    public var cues: [SpriteCue] {
        (0..<tileCount).map { i in
            let p = position(i)
            let end = min((i + 1) * intervalMs, durationMs)
            return SpriteCue(start: Double(i * intervalMs) / 1000, end: Double(end) / 1000, sheet: Self.sheetName(p.sheet),
                             x: p.x, y: p.y, w: tileWidth, h: tileHeight)
        }
    }

    /// True when every tile time has a keyframe within half an interval (a millisecond of slack): then decoding the
    /// keyframes alone is close enough. `keyframes` are seconds from the start, in any order.
    public func keyframesSuffice(_ keyframes: [Double]) -> Bool {
        Self.keyframesSuffice(keyframes.filter(\.isFinite).sorted(), interval: interval, duration: duration)
    }

    /// `keyframesSuffice` for tiles `interval` s apart over `duration` s; `sorted`: finite, in increasing order.
    static func keyframesSuffice(_ sorted: [Double], interval: Double, duration: Double) -> Bool {
        guard !sorted.isEmpty, interval > 0, duration.isFinite else { return false }
        let reach = interval / 2 + 0.001
        let intervalMs = Int((interval * 1000).rounded()), durationMs = Int((duration * 1000).rounded())
        var k = 0
        for tile in stride(from: 0, to: durationMs, by: intervalMs) {
            let t = Double(tile) / 1000
            while k + 1 < sorted.count, sorted[k + 1] <= t { k += 1 }
            let before = abs(t - sorted[k]), after = k + 1 < sorted.count ? abs(sorted[k + 1] - t) : .infinity
            if min(before, after) > reach { return false }
        }
        return true
    }

    /// The largest gap between consecutive keyframes, in seconds (nil for fewer than two).
    public static func largestGap(_ keyframes: [Double]) -> Double? {
        let sorted = keyframes.filter(\.isFinite).sorted()
        return zip(sorted, sorted.dropFirst()).map { $1 - $0 }.max()
    }

    /// The index of this layout, for `thumbnails.json`.
    public var index: SpriteIndex {
        SpriteIndex(duration: duration, interval: interval, tileWidth: tileWidth, tileHeight: tileHeight, columns: columns,
                    rows: rows, sheets: sheets, cues: cues)
    }
}
