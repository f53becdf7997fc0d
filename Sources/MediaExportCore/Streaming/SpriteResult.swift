/// The scrub previews written into a folder (`Trickplay.render`): what a package's record says of them.
public struct TrickplayResult: Codable, Equatable, Sendable {
    /// Seconds between two tiles, and seconds the cues cover.
    public var interval: Double, duration: Double
    /// A tile's size in pixels, as displayed (upright).
    public var tileWidth: Int, tileHeight: Int
    /// Tiles a row, and rows a full sheet.
    public var columns: Int, rows: Int
    /// The sheets written, relative to the folder, with their sizes in pixels.
    public var sheets: [SpriteSheet]
    /// Cues in the WebVTT track and the index (one a tile).
    public var cueCount: Int
    /// The WebVTT thumbnails track and the JSON index, relative to the folder.
    public var vtt: String, index: String
    /// True when only keyframes were decoded: every tile time had one within half an interval.
    public var keyframesOnly: Bool
    /// The largest gap between the source's keyframes, in seconds (nil when none was found before decoding).
    public var largestKeyframeGap: Double?
    /// Pictures the decoder gave.
    public var framesDecoded: Int

    /// The file names under the folder.
    public static let vttName = "thumbnails.vtt", indexName = "thumbnails.json"

    /// The result for `layout`, decoded as said.
    public init(layout: SpriteLayout, keyframesOnly: Bool, largestKeyframeGap: Double?, framesDecoded: Int) {
        interval = layout.interval; duration = layout.duration
        tileWidth = layout.tileWidth; tileHeight = layout.tileHeight
        columns = layout.columns; rows = layout.rows
        sheets = layout.sheets; cueCount = layout.tileCount
        vtt = Self.vttName; index = Self.indexName
        self.keyframesOnly = keyframesOnly; self.largestKeyframeGap = largestKeyframeGap; self.framesDecoded = framesDecoded
    }
}
