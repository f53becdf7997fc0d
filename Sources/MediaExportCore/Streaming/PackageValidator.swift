/// What is wrong with a streaming package, as values (the words are the caller's). Segments are counted from 0;
/// times are in seconds.
public enum PackageFinding: Equatable, Sendable {
    /// A rung has no media segments.
    case noSegments(rendition: String)
    /// A segment's first sample (of a track) is not a sync sample, so a player switching there cannot decode it.
    case segmentStartsWithoutSync(rendition: String, segment: Int, trackID: UInt32)
    /// A segment lasts longer than the target + 0.5 s.
    case segmentTooLong(rendition: String, segment: Int, duration: Double, limit: Double)
    /// A rung has another number of segments than the first rung.
    case segmentCountDiffers(rendition: String, count: Int, expected: Int)
    /// A segment starts more than 1 ms away from the same segment of the first rung.
    case boundaryMisaligned(rendition: String, segment: Int, start: Double, expected: Double)
    /// The first segment starts elsewhere than the first rung's (more than 1 ms away): the rungs do not start
    /// together. Starting at 0 is not required when all start at the same time.
    case firstSegmentStartsApart(rendition: String, start: Double, expected: Double)
    /// The declared `BANDWIDTH` is under the measured peak segment bit rate.
    case bandwidthBelowPeak(rendition: String, declared: Int, peak: Double)
    /// The declared `BANDWIDTH` is more than 10 % over the measured peak.
    case bandwidthOverMargin(rendition: String, declared: Int, peak: Double)
    /// A track's codec string is unknown, so `CODECS` would lack it (the sample entry's type).
    case codecUnknown(rendition: String, sampleEntry: String)
    /// The cues leave `from`…`to` of the duration uncovered (a scrub preview with nothing to show).
    case cuesLeaveGap(from: Double, to: Double)
}

/// The package's own checks, over measured renditions and what the manifests declare of them: pure, so that any
/// package (ours or another packager's) can be judged from its facts.
public enum PackageValidator {
    /// How far a boundary may sit from the first rung's: 1 ms.
    public static let boundaryTolerance = 0.001
    /// How far over the target a segment may run: 0.5 s.
    public static let segmentSlack = 0.5
    /// The most `BANDWIDTH` may exceed the measured peak: 10 %.
    public static let bandwidthCeiling = 1.10

    /// Every finding on `renditions` (the first is the reference for counts and boundaries), with `declared` their
    /// declared bandwidths (matched by id) and `targetDuration` the segment target in seconds. `audio` is the separate
    /// audio rendition, if any: its peak counts in each rung's, and its own segments are checked (its boundaries
    /// follow its frames, not the video's).
    public static func check(_ renditions: [Rendition], declared: [StreamingManifests.Declared], audio: Rendition? = nil,
                             targetDuration: Double) -> [PackageFinding] {
        var findings: [PackageFinding] = []
        for rendition in renditions + (audio.map { [$0] } ?? []) {
            findings += segments(of: rendition, targetDuration: targetDuration)
            findings += rendition.unknownCodecs.map { .codecUnknown(rendition: rendition.id, sampleEntry: $0) }
            // Measured here, not taken from `declared`: a rung's peak plus the audio group's it is played with.
            let isAudioGroup = rendition.id == audio?.id && rendition.folder == audio?.folder
            let peak = rendition.peakBitRate + (isAudioGroup ? 0 : audio?.peakBitRate ?? 0)
            if let figures = declared.first(where: { $0.id == rendition.id }) {
                findings += bandwidth(figures.bandwidth, peak: peak, rendition: rendition.id)
            }
        }
        if let reference = renditions.first {
            for rendition in renditions.dropFirst() { findings += alignment(rendition, with: reference) }
        }
        return findings
    }

    /// A declared bandwidth against a measured peak: never under it, at most 10 % over.
    public static func bandwidth(_ declared: Int, peak: Double, rendition: String) -> [PackageFinding] {
        if Double(declared) < peak { return [.bandwidthBelowPeak(rendition: rendition, declared: declared, peak: peak)] }
        if Double(declared) > peak * bandwidthCeiling {
            return [.bandwidthOverMargin(rendition: rendition, declared: declared, peak: peak)]
        }
        return []
    }

    /// Cues `(start, end)` against `[0, duration]`: each stretch no cue covers, beyond `tolerance` seconds.
    public static func cueCoverage(_ cues: [(Double, Double)], duration: Double, tolerance: Double = 0.001) -> [PackageFinding] {
        var gaps: [PackageFinding] = []
        var covered = 0.0
        for (start, end) in cues.sorted(by: { $0.0 < $1.0 }) where end > start {
            if start > covered + tolerance { gaps.append(.cuesLeaveGap(from: covered, to: start)) }
            covered = max(covered, end)
        }
        if duration > covered + tolerance { gaps.append(.cuesLeaveGap(from: covered, to: duration)) }
        return gaps
    }

    private static func segments(of rendition: Rendition, targetDuration: Double) -> [PackageFinding] {
        guard !rendition.segments.isEmpty else { return [.noSegments(rendition: rendition.id)] }
        var findings: [PackageFinding] = []
        let limit = targetDuration + segmentSlack
        for (i, segment) in rendition.segments.enumerated() {
            for track in segment.tracks where track.kind != .other && !track.startsWithSync {
                findings.append(.segmentStartsWithoutSync(rendition: rendition.id, segment: i, trackID: track.id))
            }
            if let duration = segment.timing?.duration, duration > limit {
                findings.append(.segmentTooLong(rendition: rendition.id, segment: i, duration: duration, limit: limit))
            }
        }
        return findings
    }

    /// Counts and boundaries against the reference rung.
    private static func alignment(_ rendition: Rendition, with reference: Rendition) -> [PackageFinding] {
        var findings: [PackageFinding] = []
        if rendition.segments.count != reference.segments.count {
            findings.append(.segmentCountDiffers(rendition: rendition.id, count: rendition.segments.count,
                                                 expected: reference.segments.count))
        }
        for (i, (start, expected)) in zip(rendition.starts, reference.starts).enumerated()
        where abs(start - expected) > boundaryTolerance {
            findings.append(i == 0 ? .firstSegmentStartsApart(rendition: rendition.id, start: start, expected: expected)
                                   : .boundaryMisaligned(rendition: rendition.id, segment: i, start: start, expected: expected))
        }
        return findings
    }
}
