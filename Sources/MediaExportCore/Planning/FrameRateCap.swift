import Foundation

/// `video.maxFrameRate` as a transcode applies it: frames are left out evenly so that the output shows at most
/// `maxFrameRate` frames a second, the kept frames keeping their own (variable) timing — no constant-rate
/// conversion. The output's timeline is cut into slots of 1/`maxFrameRate` s from its time 0, and a frame is kept
/// when its output time falls into a slot after the last kept frame's: 240 → 30 fps keeps every 8th frame, 60 → 30
/// every 2nd, 50 → 30 three of every five. Output time, because slow motion stretches it: a slowed region is slower
/// and loses fewer frames, or none.
///
/// Decided by the planner (`VideoPlan.frameRateCap`); frames it leaves out are planned, not losses (never counted
/// in `droppedFrames`): the plan's note says what share goes, the video stage's note how many went.
package struct FrameRateCap: Sendable, Equatable {
    /// The most frames per second of the output.
    package var maxFrameRate: Double
    /// The source's average frame rate, if known (nil: the cap is applied wherever the frames come faster).
    package var sourceRate: Double?
    /// The fastest playback rate over the part exported: 1, unless slow motion slows all of it.
    package var playback: Double
    /// Slow motion slows part of the output, where fewer frames (or none) are left out.
    package var slowed: Bool

    /// Creates a cap.
    package init(maxFrameRate: Double, sourceRate: Double?, playback: Double = 1, slowed: Bool = false) {
        self.maxFrameRate = maxFrameRate; self.sourceRate = sourceRate; self.playback = playback; self.slowed = slowed
    }

    /// Average rates within this fraction of the cap count as at the cap: a phone's variable-rate "30 fps" averages
    /// 30.02, and its jittering timestamps would lose a frame wherever two of them fell into one slot.
    package static let tolerance = 0.005

    /// The cap a transcode of a stream averaging `sourceRate` frames/s applies: nil when the preset sets none, or
    /// when the output is never faster than `maxFrameRate` — the source's rate times `playback` (the fastest
    /// playback rate over the part exported: 1 without slow motion, or where it leaves some at normal speed) at most
    /// the cap. An unknown rate is capped: the preset asks for at most so many frames a second.
    package static func planned(maxFrameRate: Double?, sourceRate: Double?, playback: Double = 1, slowed: Bool = false) -> FrameRateCap? {
        guard let cap = maxFrameRate, cap > 0 else { return nil }
        let rate = sourceRate.flatMap { $0 > 0 ? $0 : nil }
        if let rate, rate * playback <= cap * (1 + tolerance) { return nil }
        return FrameRateCap(maxFrameRate: cap, sourceRate: rate, playback: playback, slowed: slowed)
    }

    /// The source's frames per second on the output's timeline at its fastest, if known.
    package var shownRate: Double? { sourceRate.map { $0 * playback } }

    /// Frames kept of `frames` frames spaced evenly at `sourceRate` from output time 0: one per slot from the first
    /// frame's to the last's, so `floor((frames - 1) × cap / rate) + 1` (480 at 240 fps → 60 at 30; 100 at 50 → 60).
    package static func keptFrames(_ frames: Int, sourceRate: Double, maxFrameRate cap: Double) -> Int {
        guard frames > 0, sourceRate > cap else { return max(0, frames) }
        return min(frames, Int((Double(frames - 1) * cap / sourceRate + 1e-6).rounded(.down)) + 1)
    }

    /// The plan's note: "frame rate capped at 30 fps (source 240 fps): 7 of every 8 frames left out".
    package var note: String {
        let cap = Self.format(maxFrameRate)
        guard let rate = sourceRate, let shown = shownRate else {
            return "frame rate capped at \(cap) fps (source rate unknown): frames left out evenly wherever they come faster"
        }
        let source = "source \(Self.format(rate)) fps" + (playback < 1 ? ", \(Self.format(shown)) fps slowed" : "")
        let share = Self.share(1 - maxFrameRate / shown)
        return "frame rate capped at \(cap) fps (\(source)): "
            + (slowed ? "up to \(share) frames left out, fewer where slow motion slows the picture" : "\(share) frames left out")
    }

    /// A share as "7 of every 8" when a small fraction says it (within 0.2 %), else "about 37 % of the".
    static func share(_ fraction: Double) -> String {
        for den in 2...12 {
            let num = (fraction * Double(den)).rounded()
            guard num >= 1, num < Double(den) else { continue }
            let error = abs(fraction - num / Double(den))
            if error < 0.002 { return "\(error > 1e-9 ? "about " : "")\(Int(num)) of every \(den)" }
        }
        return String(format: "about %.0f %% of the", fraction * 100)
    }

    /// `30`, `29.97`, `23.976`.
    static func format(_ rate: Double) -> String {
        var text = String(format: "%.3f", rate)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }

    /// The frame-by-frame decision, on output times in seconds: which frames are kept, how long a kept one is
    /// shown, and how many were left out. A value: nothing is allocated per frame.
    package struct Decimator: Sendable {
        /// The most frames per second.
        package let maxFrameRate: Double
        /// Up to half a timestamp tick, in slots: a time the time base rounded down onto a slot's edge is in that slot.
        let slack: Double
        /// The slot of the last kept frame.
        private var lastSlot = Int64.min
        /// Frames decided on (every frame of the part exported).
        package private(set) var seen = 0
        /// Frames left out.
        package private(set) var leftOut = 0

        /// A decimator for timestamps counted in ticks of `tick` seconds (the stream's time base).
        package init(maxFrameRate: Double, tick: Double) {
            self.maxFrameRate = maxFrameRate
            slack = 0.5 * max(0, tick) * maxFrameRate + 1e-6
        }

        /// The slot output time `seconds` falls into.
        package func slot(_ seconds: Double) -> Int64 { Int64(saturating: (seconds * maxFrameRate + slack).rounded(.down)) }

        /// Whether the frame shown at `seconds` is kept (it starts a new slot); counts it either way.
        package mutating func keeps(_ seconds: Double) -> Bool {
            seen += 1
            let s = slot(seconds)
            guard s > lastSlot else { leftOut += 1; return false }
            lastSlot = s
            return true
        }

        /// How long a kept frame shown at `seconds` lasts, given that it would last `own` seconds uncapped (a source
        /// frame, stretched by slow motion): until its slot ends at least — the next kept frame comes no earlier —
        /// so that the last kept frame ends where the source's frames did.
        package func shownDuration(at seconds: Double, own: Double) -> Double {
            max(own, Double(slot(seconds) + 1) / maxFrameRate - seconds)
        }

        /// The stage's note: "frame rate capped at 30 fps: 420 of 480 frames left out".
        package var note: String {
            "frame rate capped at \(FrameRateCap.format(maxFrameRate)) fps: \(leftOut) of \(seen) frame\(seen == 1 ? "" : "s") left out"
        }
    }
}
