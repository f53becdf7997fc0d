import Foundation

/// A stream dropped whole at `sharing` or `none` for what it carries, not for its tags: positions in its content
/// (camera telemetry, a drone's GPS subtitle track) or, at `none`, subtitle text at all. The planner drops it with
/// this reason (`StreamDecision.Action.drop`), the `started` event and the warnings name it, the plan's
/// `MetadataPlan.droppedStreams` lists it for the `completed` record.
package enum PrivateStream: String, Sendable, Equatable, Codable {
    /// A data track of camera telemetry, GPS among it: GoPro's GPMF (`gpmd`), Google's camera motion metadata (`camm`).
    case telemetry
    /// A subtitle track whose first cues name positions (`PrivateStream.namesPositions`): a drone's DJI-style
    /// telemetry (`GPS (8.6874, 47.3703, 21)`, `[latitude: 47.3703] [longitude: 8.6874]`).
    case positionsInText
    /// A subtitle track at `none`: words someone wrote or a device made, which no rule can clear.
    case subtitleText

    /// The drop's reason in the `started` event and the warnings.
    package var description: String {
        switch self {
        case .telemetry: return "camera telemetry (GPS among it): --metadata sharing and none drop it"
        case .positionsInText: return "its text names positions (GPS, latitude, longitude): --metadata sharing and none drop it"
        case .subtitleText: return "subtitle text: --metadata none keeps none"
        }
    }

    /// Codec tags (QuickTime sample entries) of telemetry tracks.
    package static let telemetryTags: Set<String> = ["gpmd", "camm"]

    /// Why `stream` is dropped whole at `level`; nil when it is not (at `all`, always nil).
    package static func of(_ stream: SourceStream, level: MetadataLevel) -> PrivateStream? {
        guard level != .all, !stream.isChapterTrack, !stream.isTimecodeTrack, !stream.isAttachedPicture else { return nil }
        if stream.kind == .data || stream.kind == .subtitle, isTelemetry(stream) { return .telemetry }
        guard stream.kind == .subtitle else { return nil }
        if let text = stream.textSample, namesPositions(text) { return .positionsInText }
        return level == .bare ? .subtitleText : nil
    }

    /// A telemetry track by its codec tag, or its handler's name where the tag was lost (`GoPro MET`,
    /// `CameraMetadataMotionHandler`).
    static func isTelemetry(_ stream: SourceStream) -> Bool {
        if let tag = stream.codecTag?.lowercased(), telemetryTags.contains(tag) { return true }
        let handler = stream.tags.first { $0.key.lowercased() == "handler_name" }?.value.lowercased() ?? ""
        return handler.contains("gopro met") || handler.contains("cameramotionmetadata") || handler.contains("camerametadatamotion")
    }

    /// True when `text` names a position: the words `GPS`, `latitude` or `longitude`, a `lat`/`lon`/`lng` label
    /// before a number, or an ISO 6709 coordinate pair (`+47.3703+008.6874`). Any case.
    package static func namesPositions(_ text: String) -> Bool {
        let lower = text.lowercased()
        if ["gps", "latitude", "longitude"].contains(where: { lower.contains($0) }) { return true }
        if lower.contains(#/\b(lat|lon|lng)\s*[:=]\s*[+-]?\d/#) { return true }
        return lower.contains(#/[+-]\d{1,2}\.\d+[+-]\d{1,3}\.\d+/#)
    }
}
