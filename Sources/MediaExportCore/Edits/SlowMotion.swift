import Foundation

/// Slow motion: regions of the original's timeline played at `rate` (0.125 = eight times longer), the rest at normal
/// speed — Apple's `com.apple.video.slomo` record, or the sidecar's `slowMotion`. Rendered as a flat rate over each
/// region (Photos adds short speed ramps at the edges; they are not reproduced, and the notes say so).
public struct SlowMotion: Codable, Sendable, Equatable {
    /// A stretch of the original's timeline, in seconds.
    public struct Region: Codable, Sendable, Equatable {
        /// Seconds from the original's start.
        public var start: Double
        /// Seconds of the original the region covers.
        public var duration: Double
        /// A region of `duration` seconds from `start`.
        public init(start: Double, duration: Double) { self.start = start; self.duration = duration }
        /// Where the region ends on the original's timeline.
        public var end: Double { start + duration }
    }

    /// Playback rate inside the regions, 1/16 … 1 (Apple writes 0.125, 0.25 or 0.5).
    public var rate: Double
    /// The slowed regions, on the original's timeline (sorted, not overlapping, once `normalized`).
    public var regions: [Region]

    /// Creates a slow-motion edit.
    public init(rate: Double, regions: [Region]) { self.rate = rate; self.regions = regions }

    /// The slowest rate rendered: four `atempo` stages of 0.5.
    public static let minimumRate = 1.0 / 16

    /// Sorted, overlaps merged, empty regions dropped.
    package var normalized: SlowMotion {
        var merged: [Region] = []
        for r in regions.filter({ $0.duration > 0 }).sorted(by: { $0.start < $1.start }) {
            if let last = merged.last, r.start <= last.end {
                merged[merged.count - 1].duration = max(last.end, r.end) - last.start
            } else {
                merged.append(r)
            }
        }
        return SlowMotion(rate: rate, regions: merged)
    }

    /// The regions a video of `frame` seconds a frame can show: a gap under a frame between two regions is slowed
    /// with them (the regions joined), then a region still under a frame is dropped (it would slow no whole frame, and
    /// its audio would be all the tempo filter's start). `merged`: regions that were joined into others.
    package func withoutSubFrameRegions(frame: Double) -> (slow: SlowMotion, merged: Int, dropped: Int) {
        let regions = normalized.regions
        guard frame > 0, frame.isFinite else { return (normalized, 0, 0) }
        var joined: [Region] = []
        for r in regions {
            if let last = joined.last, r.start - last.end < frame {
                joined[joined.count - 1].duration = r.end - last.start
            } else {
                joined.append(r)
            }
        }
        let kept = joined.filter { $0.duration >= frame }
        return (SlowMotion(rate: rate, regions: kept), regions.count - joined.count, joined.count - kept.count)
    }

    /// Where original time `t` (seconds from the original's start) lands on the slowed timeline.
    package func outputTime(_ t: Double) -> Double {
        var out = t
        for r in regions {
            let inside = min(max(0, t - r.start), r.duration)
            out += inside * (1 / rate - 1)
        }
        return out
    }

    /// The original time that lands at `out` on the slowed timeline (the inverse of `outputTime`).
    package func originalTime(_ out: Double) -> Double {
        var shift = 0.0
        for r in regions {
            let regionStart = r.start + shift
            if out < regionStart { break }
            let regionEnd = regionStart + r.duration / rate
            if out < regionEnd { return r.start + (out - regionStart) * rate }
            shift += r.duration * (1 / rate - 1)
        }
        return out - shift
    }

    /// The rate at original time `t`: `rate` inside a region, 1 outside.
    package func rate(at t: Double) -> Double {
        regions.contains { t >= $0.start && t < $0.end } ? rate : 1
    }

    /// The next region boundary after original time `t`, if any (where the rate changes).
    package func nextBoundary(after t: Double) -> Double? {
        regions.flatMap { [$0.start, $0.end] }.filter { $0 > t }.min()
    }

    /// `atempo` factors whose product is `r` (each 0.5 … 1, as `atempo` takes them): 0.125 → 0.5, 0.5, 0.5.
    package static func tempoFactors(_ r: Double) -> [Double] {
        var factors: [Double] = []
        var left = r
        while left < 0.5 - 1e-12 && factors.count < 8 {
            factors.append(0.5)
            left /= 0.5
        }
        factors.append(min(1, left))
        return factors
    }

    /// Checks a sidecar's or record's values; the reason when they cannot be rendered.
    package var problem: String? {
        if !(rate.isFinite && rate >= SlowMotion.minimumRate && rate <= 1) {
            return "rate \(rate) is outside \(SlowMotion.minimumRate)…1"
        }
        if regions.isEmpty { return "no region" }
        for r in regions where !(r.start.isFinite && r.duration.isFinite && r.start >= 0 && r.duration >= 0 && r.end <= 10_000_000) {
            return "region start \(r.start) s duration \(r.duration) s is not a time range of the media"
        }
        return nil
    }
}
