/// One sprite sheet: a JPEG of `tiles` tiles in rows of the layout's columns.
public struct SpriteSheet: Codable, Equatable, Sendable {
    /// The file, relative to the folder holding `thumbnails.vtt` (`sprites/sheet_000.jpg`).
    public var name: String
    /// The picture's size in pixels: columns × tile width, rows × tile height.
    public var width: Int, height: Int
    /// Tiles on the sheet (the last row may be partly empty).
    public var tiles: Int

    /// Creates the value from each of its fields.
    public init(name: String, width: Int, height: Int, tiles: Int) {
        self.name = name; self.width = width; self.height = height; self.tiles = tiles
    }
}

/// One tile's cue: the seconds it stands for, [start, end), and where it sits on its sheet.
public struct SpriteCue: Codable, Equatable, Sendable {
    /// Seconds from the start of the video.
    public var start: Double, end: Double
    /// The sheet's file name, as in `SpriteSheet.name`.
    public var sheet: String
    /// The tile's rectangle on the sheet, in pixels (WebVTT's `#xywh=`).
    public var x: Int, y: Int, w: Int, h: Int

    /// Creates the value from each of its fields.
    public init(start: Double, end: Double, sheet: String, x: Int, y: Int, w: Int, h: Int) {
        self.start = start; self.end = end; self.sheet = sheet; self.x = x; self.y = y; self.w = w; self.h = h
    }
}

/// `thumbnails.json`: the whole layout of a package's scrub previews, for players that do not read WebVTT and for
/// checking the sheets (`problems`).
public struct SpriteIndex: Codable, Equatable, Sendable {
    /// The index's format; readers ignore fields they do not know.
    public var version = 1
    /// Seconds the cues cover, from 0.
    public var duration: Double
    /// Seconds between two tiles.
    public var interval: Double
    /// A tile's size in pixels.
    public var tileWidth: Int, tileHeight: Int
    /// Tiles a row, and rows a full sheet.
    public var columns: Int, rows: Int
    /// The sheets, in order.
    public var sheets: [SpriteSheet]
    /// One cue a tile, in order.
    public var cues: [SpriteCue]

    /// Creates the value from each of its fields.
    public init(duration: Double, interval: Double, tileWidth: Int, tileHeight: Int, columns: Int, rows: Int,
                sheets: [SpriteSheet], cues: [SpriteCue]) {
        self.duration = duration; self.interval = interval; self.tileWidth = tileWidth; self.tileHeight = tileHeight
        self.columns = columns; self.rows = rows; self.sheets = sheets; self.cues = cues
    }

    /// The WebVTT thumbnails track: `WEBVTT`, then one cue a tile whose text is the sheet's name and `#xywh=x,y,w,h`.
    public var webVTT: String {
        var text = "WEBVTT\n"
        for cue in cues {
            text += "\n\(Self.clock(cue.start)) --> \(Self.clock(cue.end))\n\(cue.sheet)#xywh=\(cue.x),\(cue.y),\(cue.w),\(cue.h)\n"
        }
        return text
    }

    /// Seconds as WebVTT writes them, `HH:MM:SS.mmm` (hours in two digits or more).
    public static func clock(_ seconds: Double) -> String {
        let ms = Int((min(max(0, seconds), 1e12) * 1000).rounded())  // NaN: 0
        func pad(_ n: Int, _ width: Int) -> String { String(repeating: "0", count: max(0, width - String(n).count)) + String(n) }
        return "\(pad(ms / 3_600_000, 2)):\(pad(ms / 60_000 % 60, 2)):\(pad(ms / 1000 % 60, 2)).\(pad(ms % 1000, 3))"
    }
}

/// What the geometry check found wrong in an index (empty: every sheet and cue agree).
public enum SpriteGeometryProblem: Equatable, Sendable {
    /// A sheet is not `columns × tileWidth` wide.
    case sheetWidth(sheet: String, declared: Int, expected: Int)
    /// A sheet is not as high as the rows its tiles fill, or holds more tiles than a full sheet.
    case sheetHeight(sheet: String, declared: Int, expected: Int)
    /// The picture on disk is not the size the index declares.
    case pictureSize(sheet: String, declared: [Int], actual: [Int])
    /// The sheets' tiles and the cues differ in number.
    case tileCount(sheets: Int, cues: Int)
    /// A cue names no sheet of the index.
    case unknownSheet(cue: Int, sheet: String)
    /// A cue's rectangle is not a whole tile of its sheet's grid, inside the sheet.
    case misplacedTile(cue: Int)
    /// A cue is empty, or does not start where the one before ends (a gap or an overlap); the first must start at 0.
    case notContiguous(cue: Int, expectedStart: Double, start: Double, end: Double)
    /// The last cue does not end at the duration (or there is no cue).
    case coverage(lastEnd: Double, duration: Double)
}

extension SpriteIndex {
    /// Checks the geometry and the timing: each sheet `columns × tileWidth` wide and `rows × tileHeight` high for
    /// the rows its tiles fill, each cue a whole tile inside its sheet, the cues contiguous from 0 to the duration
    /// (to the millisecond), and, when `pictures` gives the sizes read from the files, the same sizes there.
    public func problems(pictures: [String: (width: Int, height: Int)] = [:]) -> [SpriteGeometryProblem] {
        var found: [SpriteGeometryProblem] = []
        var byName: [String: SpriteSheet] = [:]
        for sheet in sheets {
            byName[sheet.name] = sheet
            if sheet.width != columns * tileWidth {
                found.append(.sheetWidth(sheet: sheet.name, declared: sheet.width, expected: columns * tileWidth))
            }
            let sheetRows = columns > 0 ? (sheet.tiles + columns - 1) / columns : 0
            if sheet.height != sheetRows * tileHeight || sheetRows > rows || sheet.tiles < 1 {
                found.append(.sheetHeight(sheet: sheet.name, declared: sheet.height, expected: min(sheetRows, rows) * tileHeight))
            }
            if let p = pictures[sheet.name], p.width != sheet.width || p.height != sheet.height {
                found.append(.pictureSize(sheet: sheet.name, declared: [sheet.width, sheet.height], actual: [p.width, p.height]))
            }
        }
        let tiles = sheets.reduce(0) { $0 + $1.tiles }
        if tiles != cues.count { found.append(.tileCount(sheets: tiles, cues: cues.count)) }
        var expectedStart = 0
        for (i, cue) in cues.enumerated() {
            if let sheet = byName[cue.sheet] {
                if !Self.isTile(cue, of: sheet, tileWidth: tileWidth, tileHeight: tileHeight) { found.append(.misplacedTile(cue: i)) }
            } else {
                found.append(.unknownSheet(cue: i, sheet: cue.sheet))
            }
            let start = Self.ms(cue.start), end = Self.ms(cue.end)
            if start != expectedStart || end <= start {
                found.append(.notContiguous(cue: i, expectedStart: Double(expectedStart) / 1000, start: cue.start, end: cue.end))
            }
            expectedStart = end
        }
        if cues.isEmpty || expectedStart != Self.ms(duration) {
            found.append(.coverage(lastEnd: cues.last?.end ?? 0, duration: duration))
        }
        return found
    }

    /// True when `cue`'s rectangle is one cell of `sheet`'s grid.
    static func isTile(_ cue: SpriteCue, of sheet: SpriteSheet, tileWidth: Int, tileHeight: Int) -> Bool {
        cue.w == tileWidth && cue.h == tileHeight && tileWidth > 0 && tileHeight > 0 && cue.x >= 0 && cue.y >= 0
            && cue.x % tileWidth == 0 && cue.y % tileHeight == 0 && cue.x + cue.w <= sheet.width && cue.y + cue.h <= sheet.height
    }

    /// Seconds as whole milliseconds.
    static func ms(_ seconds: Double) -> Int { abs(seconds) < 1e12 ? Int((seconds * 1000).rounded()) : Int.min }
}
