import Foundation

/// A rectangle in coded pixels (the picture as stored, before the display matrix turns it).
package struct PixelRect: Sendable, Equatable, Codable {
    /// Pixels from the coded picture's left edge.
    package var left: Int
    /// Pixels from the coded picture's top edge.
    package var top: Int
    /// Width in coded pixels.
    package var width: Int
    /// Height in coded pixels.
    package var height: Int

    /// Creates a rectangle.
    package init(left: Int, top: Int, width: Int, height: Int) {
        self.left = left; self.top = top; self.width = width; self.height = height
    }
}

/// The main video's picture edits, in coded pixels: a crop rectangle and the display matrix to write.
/// Rotation and flips are never applied to pixels: they compose into the display matrix, losslessly, so a player
/// shows the picture as edited (the source's own rotation included).
///
/// Integers are `Int` rather than FFmpeg's `Int32`: a crop the session has not checked yet cannot trap here;
/// the FFmpeg layer converts (validated sidecars keep every value within ±65 536).
package enum VideoGeometry {
    /// A display-space rectangle (after the source's clockwise rotation `sourceClockwise`) as a coded-space rectangle.
    package static func codedRect(displayed c: EditSidecar.Crop, codedWidth w: Int, codedHeight h: Int, sourceClockwise cw: Int) -> PixelRect {
        switch Rotation.quarterTurns(cw) {
        case 90: return PixelRect(left: c.y, top: h - c.x - c.width, width: c.height, height: c.width)
        case 180: return PixelRect(left: w - c.x - c.width, top: h - c.y - c.height, width: c.width, height: c.height)
        case 270: return PixelRect(left: w - c.y - c.height, top: c.x, width: c.height, height: c.width)
        default: return PixelRect(left: c.x, top: c.y, width: c.width, height: c.height)
        }
    }

    /// The matrix for the source's rotation plus the edit's clockwise rotation, then the edit's flip in display
    /// space; nil when the edits neither rotate nor flip (the source's own matrix is then copied as it is).
    package static func displayMatrix(sourceClockwise cw: Int, edits: EditSidecar) -> [Int32]? {
        let extra = Rotation.normalized(edits.rotate ?? 0)
        guard extra != 0 || edits.flip != nil else { return nil }
        let rotated = DisplayMatrix.rotation(degrees: Double(Rotation.normalized(Rotation.quarterTurns(cw) + extra)))
        guard let flip = edits.flip else { return rotated }
        return DisplayMatrix.flipped(rotated, horizontal: flip == .horizontal, vertical: flip == .vertical)
    }

    /// The longest side an output picture may have (FFmpeg's encoders take `Int32` sizes; none goes near this).
    package static let maximumSide = 65_536

    /// The coded output size for a transcoded video: the displayed picture (sample aspect ratio applied to the
    /// crop, or to the whole coded picture) fitted into the box with square pixels, both sides even. Rotation needs
    /// no special case: the box is orientation-free.
    package static func outputSize(codedWidth: Int, codedHeight: Int, sampleAspect: Rational?, crop: PixelRect?, box: SizeBox?) -> PixelSize {
        let height = crop?.height ?? codedHeight
        var displayWidth = Double(crop?.width ?? codedWidth)
        // Multiply, then divide — the old `outputSize`'s order (see `PixelSize.displayed` for why it matters).
        if let sar = sampleAspect, sar.isValid, sar.num != sar.den { displayWidth = displayWidth * Double(sar.num) / Double(sar.den) }
        let fitted = SizeBox.fitting(width: Int(saturating: min(displayWidth.rounded(), 0x1p32)), height: height, into: box)  // above maximumSide: refused
        return PixelSize(width: fitted.width, height: fitted.height)
    }
}

/// FFmpeg 5.1's display-matrix helpers (libavutil/display.c) ported to Swift, so that planning needs no C.
/// A matrix is 9 `Int32`s, row-major: a, b, u; c, d, v; x, y, w — 16.16 fixed point except u, v, w (2.30).
package enum DisplayMatrix {
    /// `av_display_rotation_set(matrix, angle)`: a rotation by `degrees`, clockwise as a player shows it (FFmpeg
    /// writes the negated angle into a counter-clockwise matrix). Every other entry is 0; w is 1.0 in 2.30.
    package static func rotation(degrees angle: Double) -> [Int32] {
        // display.c: `double radians = -angle * M_PI / 180.0f;` (180.0f is exact, so double arithmetic throughout).
        let radians = -angle * Double.pi / 180.0
        let c = cos(radians), s = sin(radians)
        var m = [Int32](repeating: 0, count: 9)
        m[0] = fixed(c)
        m[1] = fixed(-s)
        m[3] = fixed(s)
        m[4] = fixed(c)
        m[8] = 1 << 30
        return m
    }

    /// `av_display_matrix_flip(matrix, hflip, vflip)`: entry i multiplied by [h ? -1 : 1, v ? -1 : 1, 1][i % 3].
    package static func flipped(_ matrix: [Int32], horizontal: Bool, vertical: Bool) -> [Int32] {
        guard horizontal || vertical else { return matrix }
        let flip: [Int32] = [horizontal ? -1 : 1, vertical ? -1 : 1, 1]
        // Wrapping multiply: C's int multiply cannot trap, so a hostile matrix holding Int32.min must not trap here.
        return matrix.enumerated().map { i, value in value &* flip[i % 3] }
    }

    /// display.c's `CONV_DB(x)`: `(int32_t)(x * (1 << 16))`, truncating toward zero as C's cast does — which is what
    /// Swift's `Int32(Double)` does too; |x| ≤ 1 here, so it cannot overflow.
    static func fixed(_ x: Double) -> Int32 { Int32(x * 65536) }
}
