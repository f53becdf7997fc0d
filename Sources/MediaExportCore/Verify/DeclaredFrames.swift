import Foundation

/// A video stream's frames against the count its header declares (AVI's `dwLength`, FFmpeg's `nb_frames`). Frames
/// the header declares and the data does not hold were lost — zeroed or cut out — even where the demuxer numbers the
/// frames it finds without a gap: each is counted and said, and enough of them make the file truncated.
package struct DeclaredFrames: Sendable, Equatable {
    /// Frames the header declares.
    package var declared: Int
    /// Frames the data held: its packets, or the frame slots their timestamps span when that is more. A gap in an
    /// AVI's timestamps is an empty chunk, a frame its writer dropped on purpose (a variable frame rate; FFmpeg's own
    /// muxer writes them), which players show as the frame before: not a frame lost.
    package var held: Int
    /// The header's length of the stream in seconds (its declared frames at the declared rate).
    package var declaredSeconds: Double

    /// Creates a count.
    package init(declared: Int, held: Int, declaredSeconds: Double) {
        self.declared = declared; self.held = held; self.declaredSeconds = declaredSeconds
    }

    /// Frames the header declares that the data did not hold.
    package var missing: Int { max(0, declared - held) }

    /// Seconds the frames held make at the declared rate.
    package var heldSeconds: Double { declared > 0 ? declaredSeconds * Double(min(held, declared)) / Double(declared) : 0 }

    /// `743 of the 750 frames the header declares`.
    package var clause: String { "\(min(held, declared)) of the \(declared) frames the header declares" }
}
