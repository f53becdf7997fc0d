import Foundation

/// Why a route cannot deliver what was asked of it (`ExportPlan.blockers`): a value the session and the batch decide
/// on; `description` gives the words said on stderr and in events.
package enum PlanBlocker: Sendable, Equatable, CustomStringConvertible {
    /// A main stream a transcode keeps has no decoder in this FFmpeg build.
    case noDecoder(stream: Int, kind: SourceStream.Kind, codec: String)
    /// A stream copy's container cannot hold a main stream; `can`: the containers mediaexport writes that can.
    case containerCannot(stream: Int, kind: SourceStream.Kind, codec: String, container: Container, can: [Container])
    /// MP4/MOV write each copied audio track's sample rate, which no probe found.
    case sampleRateUnknown(stream: Int, codec: String, container: Container)
    /// A stream copy into a container without a display matrix would lose the main video's orientation.
    case orientationLost(stream: Int, container: Container, orientation: PixelOrientation, can: [Container])
    /// A copy of audio cut after its start into a container without edit lists would lose its pre-skip (seconds).
    case preSkipReplayed(stream: Int, codec: String, container: Container, seconds: Double, can: [Container])
    /// Every stream of a kind the preset keeps would be dropped (`reasons`: each one's, as `#0 h264: …`).
    case kindLost(SourceStream.Kind, reasons: [String])

    /// The stream the blocker names; nil for a kind lost whole.
    package var stream: Int? {
        switch self {
        case .noDecoder(let s, _, _), .containerCannot(let s, _, _, _, _), .sampleRateUnknown(let s, _, _),
             .orientationLost(let s, _, _, _), .preSkipReplayed(let s, _, _, _, _): return s
        case .kindLost: return nil
        }
    }

    /// True for a main stream without a decoder.
    package var isNoDecoder: Bool {
        if case .noDecoder = self { return true }
        return false
    }

    /// The words: `no decoder for video stream #0 (zzv9)`, `.mp4 cannot hold audio stream #1 (pcm_s16le); .mov, .mkv can` …
    package var description: String {
        switch self {
        case .noDecoder(let s, let kind, let codec): return "no decoder for \(kind.rawValue) stream #\(s) (\(codec))"
        case .containerCannot(let s, let kind, let codec, let container, let can):
            return ".\(container.rawValue) cannot hold \(kind.rawValue) stream #\(s) (\(codec))"
                + (can.isEmpty ? "; no container mediaexport writes can" : "; \(Self.names(can)) can")
        case .sampleRateUnknown(let s, let codec, let container):
            return "audio stream #\(s) (\(codec)): sample rate unknown, which .\(container.rawValue) needs"
        case .orientationLost(let s, let container, let orientation, let can):
            return ".\(container.rawValue) keeps no display matrix: a stream copy of video stream #\(s) would lose its rotation (\(orientation.description))"
                + (can.isEmpty ? "; a transcode turns the pixels upright" : "; \(Self.names(can)) keep it, or a transcode turns the pixels upright")
        case .preSkipReplayed(let s, let codec, let container, let seconds, let can):
            return String(format: ".%@ has no edit list: a copy of audio stream #%d (%@) cut after its start would lose its first %.3f s "
                          + "(its pre-skip, dropped again by players); %@a transcode can", container.rawValue, s, codec, seconds,
                          can.isEmpty ? "" : Self.names(can) + " or ")
        case .kindLost(let kind, let reasons):
            return "every \(kind.rawValue) stream would be dropped (\(reasons.joined(separator: "; ")))"
        }
    }

    /// `.mov, .mkv`.
    private static func names(_ containers: [Container]) -> String {
        containers.map { ".\($0.rawValue)" }.joined(separator: ", ")
    }
}
