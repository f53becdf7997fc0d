import Foundation

/// A display matrix turned into the pixels: the picture rotated clockwise by `clockwise`, then mirrored left to right
/// when `mirrored` — which covers all eight orientations a quarter-turn matrix can give (a vertical flip is a half
/// turn mirrored). A transcode into a container that keeps no display matrix (`ContainerKeeps.displayMatrix`: FFmpeg
/// 5.1's Matroska muxer writes none) turns the picture upright this way, so players show it as the source's matrix
/// said; the output then has no matrix at all (never both: a player would turn it twice).
package struct PixelOrientation: Sendable, Equatable, Codable {
    /// Clockwise degrees, as shown: 0, 90, 180 or 270.
    package var clockwise: Int
    /// Mirrored left to right after the rotation.
    package var mirrored: Bool

    /// Creates an orientation (`clockwise` snapped to a quarter turn).
    package init(clockwise: Int, mirrored: Bool) {
        self.clockwise = Rotation.quarterTurns(clockwise); self.mirrored = mirrored
    }

    /// The orientation a display matrix shows (FFmpeg's row-major 16.16 matrix, `[a b u; c d v; x y w]`: a shown
    /// point is `(a·x + c·y, b·x + d·y)`), its angle snapped to a quarter turn; nil for none, an identity or a matrix
    /// that is not 9 entries. A rotation by θ has `a = cos θ, b = sin θ`; mirrored (a negative determinant) it is
    /// `a = −cos θ` (`DisplayMatrix.flipped` negates the first column).
    package init?(matrix m: [Int32]?) {
        guard let m, m.count == 9 else { return nil }
        let a = Double(m[0]), b = Double(m[1]), c = Double(m[3]), d = Double(m[4])
        guard a != 0 || b != 0 else { return nil }
        let mirrored = a * d - b * c < 0
        let degrees = atan2(b, mirrored ? -a : a) * 180 / .pi
        // To the nearest quarter turn (a matrix of 89.9° is a quarter turn; `Rotation.quarterTurns` snaps down).
        self.init(clockwise: Int((degrees / 90).rounded()) * 90, mirrored: mirrored)
        if clockwise == 0 && !mirrored { return nil }
    }

    /// True when the picture's sides swap (a quarter turn either way).
    package var swapsSides: Bool { clockwise == 90 || clockwise == 270 }

    /// `90°`, `180° mirrored`: how the change and the notes name it.
    package var description: String { "\(clockwise)°" + (mirrored ? " mirrored" : "") }

    /// The libavfilter filters that turn coded pixels into displayed ones (`transpose`, `hflip`, `vflip`): each of the
    /// eight orientations in one filter but the plain half turn. `transpose`'s `cclock_flip` is the plain transpose
    /// (a quarter turn clockwise, mirrored), `clock_flip` the anti-transpose (three quarters, mirrored).
    package var filters: [String] {
        switch (clockwise, mirrored) {
        case (90, false): return ["transpose=clock"]
        case (180, false): return ["hflip", "vflip"]
        case (270, false): return ["transpose=cclock"]
        case (0, true): return ["hflip"]
        case (90, true): return ["transpose=cclock_flip"]
        case (180, true): return ["vflip"]
        case (270, true): return ["transpose=clock_flip"]
        default: return []
        }
    }
}
