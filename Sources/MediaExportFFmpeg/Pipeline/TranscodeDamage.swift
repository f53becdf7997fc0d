internal import CFFmpeg
import MediaExportCore

/// What a run lost of its input, as the executor tells it: the damage account, a salvage's cause, the streams that
/// came out short.
extension Transcoder {
    /// The damage met, each kind apart: corrupt packets (counted as they came), video frames lost (fewer than the
    /// header declares, or in holes of the timestamps), silence inserted, the bytes the demuxer could not read.
    func damageAccount(kept: [StreamDecision], counts: Counts, lostFrames: [LostFrames], audioGaps: [AudioGap]) -> ExportEvent.Damage {
        let declared = kept.compactMap { declaredFrames($0, counts: counts) }
        let silence = audioGaps.filter { $0.seconds > 0 }
        let firstAt = ([counts.firstSkipAt].compactMap { $0 } + lostFrames.map(\.at) + silence.map(\.at)).min()
        var damage = ExportEvent.Damage(corruptPackets: counts.skippedPackets,
                                        lostFrames: declared.reduce(0) { $0 + $1.missing } + lostFrames.reduce(0) { $0 + $1.frames },
                                        lostAudio: silence.reduce(0) { $0 + $1.seconds },
                                        unreadableBytes: demuxer.unreadable.reduce(0) { $0 + $1.toByte - $1.fromByte },
                                        demuxerErrors: demuxer.loggedErrors, firstAt: firstAt)
        if damage.total > 0, let main = info.mainVideo, let j = kept.firstIndex(where: { $0.index == main }) {
            // Frames encoded, or packets copied.
            damage.videoFrames = counts.videoFrames > 0 ? counts.videoFrames : counts.shownPackets[j]
            let seconds: Double? = kept[j].expectedDuration, rate: Double? = info.streams[main].frameRate
            var byLength: Int?
            if let seconds, let rate { byLength = Int((seconds * rate + 1e-6).rounded(.down)) }
            damage.expectedFrames = declared.first?.declared ?? byLength
        }
        return damage
    }

    /// What a salvage lost, one line: where the data ends, and the damage met. nil when nothing.
    func partialCause(truncation: String?, damage: ExportEvent.Damage) -> String? {
        let parts = [truncation, damage.isEmpty ? nil : damage.summary].compactMap { $0 }
        return parts.isEmpty ? nil : parts.joined(separator: "; ")
    }

    /// The warning for a kept stream that came out short of its expected duration because damaged input was
    /// skipped, or that lost frames its header declares (each such frame is named, however short); nil otherwise.
    func shortfall(_ decision: StreamDecision, delivered: DeliveredStream, counts: Counts) -> String? {
        guard decision.kind == .video || decision.kind == .audio, let want = decision.expectedDuration, let got = delivered.duration else { return nil }
        let frames = declaredFrames(decision, counts: counts).flatMap { $0.missing > 0 ? $0 : nil }
        guard want - got > 0.1 || frames != nil else { return nil }
        let cause = frames == nil ? "the rest did not decode (corrupt packets skipped)"
                                  : "the rest did not decode or was missing from the data (corrupt packets skipped, frames lost)"
        return String(format: "%@ stream #%d: %.2f s of %.2f s delivered%@: %@", decision.kind.rawValue, decision.index, got, want,
                      frames.map { " (\($0.clause))" } ?? "", cause)
    }

    /// A kept video's frames against the count its header declares, for a container that declares one
    /// (`SourceInfo.declaresFrameCounts`) and an export of the whole stream at its own speed; nil otherwise.
    func declaredFrames(_ decision: StreamDecision, counts: Counts) -> DeclaredFrames? {
        guard info.declaresFrameCounts, decision.kind == .video, timeline.length == nil, timeline.slowMotion == nil,
              timeline.origin <= info.startTime, decision.index < counts.inputPackets.count else { return nil }
        let stream = info.streams[decision.index]
        guard let declared = stream.frameCount, let seconds = stream.duration else { return nil }
        let i = decision.index, tick = counts.inputBases[i]
        let span = counts.inputEnd[i].flatMap { end in counts.inputStart[i].map { end - $0 } } ?? 0
        let slots = tick > 0 ? Int(max(0, min(Double(declared), (span / tick).rounded()))) : 0  // 0…declared: NaN keeps declared
        return DeclaredFrames(declared: declared, held: max(counts.inputPackets[i], slots), declaredSeconds: seconds)
    }
}
