import Foundation

/// Everything an export left out or changed, counted and with its reason: the `completed` record's `warnings`,
/// which the human summary prints as `WARNING:` lines and the batch report keeps. Nothing is dropped silently.
public enum Accounting {
    /// The warnings of a finished route.
    public static func warnings(plan: ExportPlan, skippedPackets: Int, droppedFrames: Int, timestampRepairs: Int,
                                version: VersionReport?) -> [String] {
        var out: [String] = []
        for d in plan.streams {
            guard case .drop(let reason) = d.action, reason != ExportPlanner.chapterTrackReason else { continue }
            out.append("stream #\(d.index) \(d.kind.rawValue) (\(d.codec)) dropped: \(reason)")
        }
        if skippedPackets > 0 { out.append("\(skippedPackets) corrupt packet\(skippedPackets == 1 ? "" : "s") or frame\(skippedPackets == 1 ? "" : "s") skipped") }
        if droppedFrames > 0 {
            out.append("\(droppedFrames) frame\(droppedFrames == 1 ? "" : "s") or packet\(droppedFrames == 1 ? "" : "s") dropped: timestamps that could not be repaired")
        }
        if timestampRepairs > 0 {
            out.append("\(timestampRepairs) timestamp\(timestampRepairs == 1 ? "" : "s") repaired (discontinuities, repeated or missing timestamps)")
        }
        if let line = version.flatMap(versionWarning) { out.append(line) }
        return out
    }

    /// The warning for a version other than the one asked for; nil when it is the one.
    public static func versionWarning(_ version: VersionReport) -> String? {
        guard version.requested != version.delivered else { return nil }
        return "the \(version.requested.rawValue) version was asked for; the \(version.delivered.rawValue) was delivered: \(version.reason)"
    }
}

/// What one export verified and dropped, as the batch report and the export database keep it.
public struct ExportAccount: Codable, Sendable, Equatable {
    /// The checks of the output against its plan.
    public var verification: Verification?
    /// Everything dropped or changed, each with its count and reason.
    public var warnings: [String]
    public var skippedPackets: Int
    public var droppedFrames: Int
    public var timestampRepairs: Int

    /// The account of a finished export.
    public init(_ c: ExportEvent.Completed) {
        verification = c.verification; warnings = c.warnings; skippedPackets = c.skippedPackets
        droppedFrames = c.droppedFrames; timestampRepairs = c.timestampRepairs
    }
}
