import Foundation

/// Everything an export left out or changed, counted and with its reason: the `completed` record's `warnings`,
/// which the human summary prints as `WARNING:` lines and the batch report keeps. Nothing is dropped silently: a drop
/// the request asked for (`StreamDecision.asked`) is said by the plan, not warned of.
package enum Accounting {
    /// The warnings of a finished route; `skippedPackets` are the corrupt packets (`ExportEvent.Damage.corruptPackets`).
    package static func warnings(plan: ExportPlan, skippedPackets: Int, droppedFrames: Int, timestampRepairs: Int,
                                audioGaps: [AudioGap] = [], lostFrames: [LostFrames] = [], unreadableBytes: Int64 = 0,
                                version: VersionReport?) -> [String] {
        var out: [String] = []
        for d in plan.streams {
            guard case .drop(let reason) = d.action, !d.carriedElsewhere, !d.asked else { continue }
            out.append("stream #\(d.index) \(d.kind.rawValue) (\(d.codec)) dropped: \(reason)")
        }
        if let line = plan.timecode?.warning { out.append(line) }
        if skippedPackets > 0 {
            // A stream copy writes them as they are (as `ffmpeg -c copy` does); a transcode skips them.
            let copied = plan.streams.allSatisfy { d in if case .copy = d.action { return true }; return !d.isKept || (d.kind != .video && d.kind != .audio) }
            out.append("\(skippedPackets) corrupt packet\(skippedPackets == 1 ? "" : "s") or frame\(skippedPackets == 1 ? "" : "s") \(copied ? "copied as they are" : "skipped")")
        }
        if droppedFrames > 0 {
            out.append("\(droppedFrames) frame\(droppedFrames == 1 ? "" : "s") or packet\(droppedFrames == 1 ? "" : "s") dropped: timestamps that could not be repaired")
        }
        if timestampRepairs > 0 {
            out.append("\(timestampRepairs) timestamp\(timestampRepairs == 1 ? "" : "s") repaired (discontinuities, repeated or missing timestamps)")
        }
        if unreadableBytes > 0 {
            out.append("\(unreadableBytes / 1000) kB of the file unreadable: the demuxer searched through it for its sync (a zeroed or overwritten stretch)")
        }
        out += lostFrameWarnings(lostFrames)
        out += gapWarnings(audioGaps)
        if let line = version.flatMap(versionWarning) { out.append(line) }
        return out
    }

    /// One line per audio stream and kind of break: the seconds in all, and where (up to four places named).
    package static func gapWarnings(_ gaps: [AudioGap]) -> [String] {
        var out: [String] = []
        for stream in Set(gaps.map(\.stream)).sorted() {
            for filled in [true, false] {
                let these = gaps.filter { $0.stream == stream && ($0.seconds > 0) == filled }
                guard !these.isEmpty else { continue }
                let total = String(format: "%.2f", abs(these.reduce(0) { $0 + $1.seconds }))
                let whereText = places(these.map(\.at))
                out.append(filled ? "audio stream #\(stream): \(total) s of silence inserted \(whereText) where packets are missing"
                                  : "audio stream #\(stream): \(total) s of audio dropped \(whereText) where its timestamps go back over audio already placed")
            }
        }
        return out
    }

    /// One line per video stream that lost frames in holes of its timestamps: the frames in all, and where.
    package static func lostFrameWarnings(_ lost: [LostFrames]) -> [String] {
        Set(lost.map(\.stream)).sorted().map { stream in
            let these = lost.filter { $0.stream == stream }
            let frames = these.reduce(0) { $0 + $1.frames }, seconds = these.reduce(0) { $0 + $1.seconds }
            return "video stream #\(stream): \(frames) frame\(frames == 1 ? "" : "s") missing \(places(these.map(\.at))) "
                + String(format: "(%.2f s where its timestamps jump ahead at a constant frame rate): packets are missing", seconds)
        }
    }

    /// `at 3.00 s`, or `in 5 places (at 1.00 s, 2.00 s, 3.00 s, 4.00 s, …)`.
    static func places(_ times: [Double]) -> String {
        let list = times.prefix(4).map { String(format: "%.2f s", $0) }.joined(separator: ", ") + (times.count > 4 ? ", …" : "")
        return times.count == 1 ? "at \(list)" : "in \(times.count) places (at \(list))"
    }

    /// The warning for a version other than the one asked for; nil when it is the one.
    package static func versionWarning(_ version: VersionReport) -> String? {
        guard version.requested != version.delivered else { return nil }
        return "the \(version.requested.rawValue) version was asked for; the \(version.delivered.rawValue) was delivered: \(version.reason)"
    }
}

/// A break in an audio stream's timeline that an export bridged to keep the audio on its pictures (as the ffmpeg
/// CLI keeps it by its timestamps): silence where packets are missing, or audio dropped where timestamps go back.
package struct AudioGap: Codable, Sendable, Equatable {
    /// The input stream's index.
    package var stream: Int
    /// Where the break is, in seconds on the output's timeline.
    package var at: Double
    /// Seconds of silence inserted (positive), or of audio dropped (negative).
    package var seconds: Double

    /// A break of `stream` at `at` seconds: `seconds` of silence (positive) or dropped audio (negative).
    package init(stream: Int, at: Double, seconds: Double) {
        self.stream = stream; self.at = at; self.seconds = seconds
    }
}

/// What one export verified and dropped, as the batch report and the export database keep it.
public struct ExportAccount: Codable, Sendable, Equatable {
    /// The checks of the output against its plan.
    public var verification: Verification?
    /// Everything dropped or changed, each with its count and reason.
    public var warnings: [String]
    /// Corrupt input packets skipped.
    public var skippedPackets: Int
    /// Frames or packets the plan kept that were left out anyway.
    public var droppedFrames: Int
    /// Timestamps repaired on the way.
    public var timestampRepairs: Int
    /// Seconds the output holds, as probed (for a byte copy of a file cut short: where its data ends). Absent in
    /// accounts written before it was kept.
    public var duration: Double?
    /// Set when the output holds only part of its source (`ExportEvent.Completed.partial`).
    public var partial: ExportEvent.Partial?
    /// The metadata level other than `all` and the keys it dropped (`--metadata`); absent at `all`.
    public var metadata: ExportEvent.MetadataReport?
    /// The damage met in the input, counted apart; absent when none was (and in accounts written before it was kept).
    public var damage: ExportEvent.Damage?
    /// A quality target's CRF, measure and predicted saving (`QualityReport`); absent without one.
    public var quality: QualityReport?

    /// The account of a finished export.
    public init(_ c: ExportEvent.Completed) {
        verification = c.verification; warnings = c.warnings; skippedPackets = c.skippedPackets
        droppedFrames = c.droppedFrames; timestampRepairs = c.timestampRepairs; duration = c.duration; partial = c.partial
        metadata = c.metadata; damage = c.damage; quality = c.quality
    }
}
