/// Chooses the picture of each tile while the pictures go by, in time order, holding one back at most: with
/// `nearest` (keyframes only) a tile gets the keyframe nearest its time (the earlier on a tie), with `atOrAfter`
/// (every frame) the first frame at or after its time (half a frame of slack); tiles after the last picture get it.
///
/// The caller offers each candidate's time with `arrive`, keeps the candidate it returns tiles for or holds, and
/// calls `finish` at the end for the tiles of the one still held.
public struct SpriteTilePicker: Sendable {
    /// How a tile's picture is chosen.
    public enum Rule: Sendable { case nearest, atOrAfter }

    /// The tiles the pictures go to: the one held before the latest `arrive` (use it, then let it go), and the one
    /// just offered (use it now; it is held from here on in any case).
    public struct Assignment: Equatable, Sendable {
        /// Tiles for the picture held before this one (none: nothing to do with it).
        public var held: Range<Int>
        /// Tiles for the picture just offered, to be used now.
        public var current: Range<Int>
    }

    let times: [Double]
    let rule: Rule
    let slack: Double
    /// The first tile not yet given a picture.
    private(set) var next = 0
    /// The time of the picture held, and the tiles it already has (from `nearest`).
    private var held: Double?
    private var heldTiles: Range<Int> = 0..<0

    /// Picks for tiles at `times` (increasing); `slack`: seconds a frame may come before its tile's time and still
    /// count as at it (half a frame for `atOrAfter`).
    public init(times: [Double], rule: Rule, slack: Double = 0) {
        self.times = times; self.rule = rule; self.slack = max(0, slack)
    }

    /// True when every tile's time has been reached: reading may stop, and `finish` gives the held picture's tiles.
    public var isDone: Bool { next >= times.count }

    /// A picture at `time` goes by; says which tiles the held picture and this one get.
    public mutating func arrive(_ time: Double) -> Assignment {
        let start = next
        while next < times.count, times[next] <= time + slack { next += 1 }
        let reached = start..<next
        switch rule {
        case .atOrAfter:
            held = time
            return Assignment(held: 0..<0, current: reached)
        case .nearest:
            // Tiles up to `time` go to the held picture while they are nearer to it (ties to the earlier).
            var split = reached.lowerBound
            if let h = held {
                while split < reached.upperBound, times[split] - h <= time - times[split] { split += 1 }
            }
            let used = Assignment(held: held == nil ? 0..<0 : heldTiles.lowerBound..<split, current: 0..<0)
            held = time
            heldTiles = split..<reached.upperBound
            return used
        }
    }

    /// The end: the tiles still without a picture go to the one held (none when nothing was ever offered).
    public mutating func finish() -> Range<Int> {
        defer { next = times.count; heldTiles = 0..<0 }
        guard held != nil else { return 0..<0 }
        return rule == .nearest ? heldTiles.lowerBound..<times.count : next..<times.count
    }
}
