import Foundation

/// Rotations in degrees: the one place an angle is normalised.
package enum Rotation {
    /// Degrees normalised to 0 ..< 360 (-90 becomes 270).
    package static func normalized(_ degrees: Int) -> Int { (degrees % 360 + 360) % 360 }

    /// Degrees normalised to 0 ..< 360 and snapped down to a quarter turn: 0, 90, 180 or 270.
    package static func quarterTurns(_ degrees: Int) -> Int { normalized(degrees) / 90 * 90 }

    /// True when a rotation swaps the picture's sides (90 or 270 degrees, either direction).
    package static func isQuarterTurn(_ degrees: Int) -> Bool { abs(degrees) % 180 == 90 }
}

extension PixelSize {
    /// The picture as displayed: the sample aspect ratio applied to the coded width (`av_q2d`'s order: divided
    /// first, then rounded; nil or invalid is square), then the sides swapped for a quarter turn. The transcode's
    /// `VideoGeometry.outputSize` multiplies first: the two can differ in the last bit, so each keeps its own order.
    package static func displayed(width: Int, height: Int, sampleAspect: Rational?, rotation: Int) -> PixelSize {
        let ratio = sampleAspect.flatMap { $0.isValid ? Double($0.num) / Double($0.den) : nil } ?? 1
        let w = Int(saturating: (Double(width) * ratio).rounded())
        return Rotation.isQuarterTurn(rotation) ? PixelSize(width: height, height: w) : PixelSize(width: w, height: height)
    }
}
