/// Where `video.keyframeInterval` puts keyframes: the first frame at or after each multiple of the interval on the
/// output's timeline (a frame a hair before one, by rounding of its time base, counts as on it). Every rendition of
/// a ladder gets the same frames and so its keyframes at the same times, where the segmenter cuts.
package struct KeyframeSchedule: Sendable, Equatable {
    /// Seconds between keyframes.
    package let interval: Double
    /// The time from which the next frame is a keyframe.
    private var next: Double = 0

    /// A schedule with a keyframe every `interval` seconds, the first frame included.
    package init(interval: Double) { self.interval = interval }

    /// Whether the frame shown at `seconds` (output timeline) must be a keyframe; moves the schedule past it.
    package mutating func isKeyframe(at seconds: Double) -> Bool {
        let tolerance = 1e-6 * max(interval, 1)
        guard seconds + tolerance >= next else { return false }
        next = ((seconds + tolerance) / interval).rounded(.down) * interval + interval
        return true
    }
}
