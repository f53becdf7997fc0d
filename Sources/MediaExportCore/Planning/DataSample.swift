import Foundation

/// What decoding a sample of a file's data found (`batch --dry-run --check-data`): a few points, each decoded for
/// about a second from the keyframe before it, and whether the data ended before the header's length.
public struct DataSample: Codable, Sendable, Equatable {
    /// One point decoded.
    public struct Point: Codable, Sendable, Equatable {
        /// Where the sample starts, seconds from the source's start (the keyframe at or before the point asked for).
        public var at: Double
        /// Packets the decoder or demuxer rejected, and frames the decoder marked corrupt.
        public var corrupt: Int
        /// Where the first of them is, seconds from the source's start; nil when there is none.
        public var firstCorruptAt: Double?
        /// True when the demuxer failed to read or seek there (counted in `corrupt`).
        public var unreadable: Bool
        /// Seconds missing: a stream's timestamps jump ahead where a demuxer skipped unreadable data (the stream's that lost most).
        public var missing: Double = 0
        /// Where the first jump starts, seconds from the source's start; nil when there is none.
        public var missingAt: Double? = nil

        /// A point and what its decoding found.
        public init(at: Double, corrupt: Int = 0, firstCorruptAt: Double? = nil, unreadable: Bool = false) {
            self.at = at; self.corrupt = corrupt; self.firstCorruptAt = firstCorruptAt; self.unreadable = unreadable
        }
    }

    /// The points decoded, in order.
    public var points: [Point]
    /// Where the data ended, seconds from the start, when reading met the end of the file before a point's second was
    /// read; nil when every point was read whole.
    public var dataEnd: Double?
    /// The length the header declares (nil when unknown or guessed from the bit rate: no truncation is judged then).
    public var declaredDuration: Double?
    /// Seconds the check took, wall clock.
    public var seconds: Double

    /// A sample and what it found.
    public init(points: [Point], dataEnd: Double? = nil, declaredDuration: Double? = nil, seconds: Double) {
        self.points = points; self.dataEnd = dataEnd; self.declaredDuration = declaredDuration; self.seconds = seconds
    }

    /// Packets and frames found corrupt, at every point.
    public var corrupt: Int { points.reduce(0) { $0 + $1.corrupt } }

    /// True when the data ends early by the truncation rule (`SourceInfo.isTruncated`).
    public var truncated: Bool {
        guard let end = dataEnd, let declared = declaredDuration else { return false }
        return SourceInfo.isTruncated(end: end, of: declared)
    }

    /// Seconds missing, at every point.
    public var missing: Double { points.reduce(0) { $0 + $1.missing } }

    /// True when the sample shows damage: a corrupt packet or frame, an unreadable or skipped stretch, data that ends early.
    public var isDamaged: Bool { corrupt > 0 || missing > 0 || truncated }

    /// The damage in words: "12 corrupt packets or frames at 4.00 s", "2.04 s missing at 3.98 s (…)",
    /// "the data ends at 6.02 s of 10.00 s"; nil when clean.
    public var damage: String? {
        var parts: [String] = []
        let n = corrupt
        if n > 0 {
            let at = points.compactMap(\.firstCorruptAt).min().map { String(format: " at %.2f s", $0) } ?? ""
            let unreadable = points.contains(where: \.unreadable) ? " (unreadable data)" : ""
            parts.append("\(n) corrupt packet\(n == 1 ? "" : "s") or frame\(n == 1 ? "" : "s")\(at)\(unreadable)")
        }
        if missing > 0 {
            let at = points.compactMap(\.missingAt).min().map { String(format: " at %.2f s", $0) } ?? ""
            parts.append(String(format: "%.2f s missing%@ (timestamps jump ahead)", missing, at))
        }
        if truncated, let end = dataEnd, let declared = declaredDuration {
            parts.append(String(format: "the data ends at %.2f s of %.2f s", end, declared))
        }
        return parts.isEmpty ? nil : parts.joined(separator: "; ")
    }
}

extension ExportPlanner {
    /// The route a run delivers an input by when its sampled data is damaged: from its first route (a byte copy's
    /// too: damaged data does not fit, as a truncated file does not), the fallback chain taken as for damage seen —
    /// `salvage` by default, `copy` under `--damaged copy`; nil when the chain ends (`--damaged fail`,
    /// `--fallback none`) and the run fails the asset.
    package static func damagedRoute(from route: ExportRoute, fallback: FallbackPolicy, damaged: DamagePolicy) -> ExportRoute? {
        var current = route == .copy ? ExportRoute.transcode : route
        while current == .transcode || current == .remux {
            guard let next = fallback.next(after: current, failure: .damaged, damageSeen: true, damaged: damaged) else { return nil }
            current = next
        }
        return current
    }
}
