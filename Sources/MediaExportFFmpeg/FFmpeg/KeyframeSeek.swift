internal import CFFmpeg
import Foundation
import MediaExportCore

extension Demuxer {
    /// Seeks so that reading starts at a keyframe of `stream` at or before `seconds` (on the container's timeline),
    /// and returns that keyframe's presentation time, seconds from the start; nil when none was found (the plain
    /// seek to `seconds` then stands).
    ///
    /// An index (MP4, Matroska) lands a seek on a keyframe. A container without one (MPEG-PS/TS) is searched by
    /// timestamps and lands on whatever packet comes first there: decoding from it gives frames that cannot be
    /// decoded until the next keyframe, and that keyframe may be well after the start (ps.mpg: a 0.48 s GOP lost
    /// 11 frames of 50). So the first keyframe read after the seek is checked, and the seek goes back further
    /// (0.5 s, 1 s, 2 s … to the start of the file) until it comes at or before `seconds`. Deterministic: the
    /// same seek lands on the same packet, so the search and the final seek agree.
    func seek(toKeyframeOf stream: Int32, atOrBefore seconds: Double) throws -> Double? {
        var back = 0.0
        while true {
            let at = max(0, seconds - back)
            try seek(toSecondsOrStart: at)
            if let key = try firstKeyframe(of: stream), key <= seconds + 0.0005 {
                try seek(toSecondsOrStart: at)
                return key
            }
            if at == 0 { break }
            back = back == 0 ? 0.5 : back * 2
        }
        try seek(toSeconds: seconds)
        return nil
    }

    /// Seeks to an export's start (`origin`, on the container's clock): to the kept main video's keyframe at or before
    /// it (frames from there decode; those before the start are left out by the stages, or hidden by a copy's edit
    /// list). Without video, half a second before it when transcoding: a seek may land inside an audio frame (MPEG
    /// audio), whose damage is then decoded and dropped before the start rather than heard as missing audio at it.
    /// A transcoded audio decoder that drops its first samples (Opus' pre-skip) is read `lead` seconds earlier still
    /// (`AudioTranscodeStage.decoderLead`): it would otherwise drop audio after the start.
    func seek(toStartOf plan: ExportPlan, origin: Double, mainVideo: Int?, decoderLead lead: Double) throws {
        let start = origin - startTime
        guard start > 0 else { return }
        if let video = mainVideo, video < plan.streams.count, plan.streams[video].isKept, !plan.streams[video].isCoverArt {
            _ = try seek(toKeyframeOf: Int32(video), atOrBefore: max(0, start - lead))
        } else {
            let copies = plan.streams.contains { if case .copy = $0.action { return true } else { return false } }
            let at = copies ? start : start - 0.5 - lead
            // Before 0 with a lead: from the first byte, where the pre-skip's packets are (a seek to 0 lands after them).
            if lead > 0 && at <= 0 { try seek(toSecondsOrStart: 0) } else { try seek(toSeconds: max(0, at)) }
        }
    }

    /// A seek to `seconds`; at 0, to the file's first byte where the format allows it: a timestamp search of an
    /// MPEG-TS lands after its first packets (its first keyframe among them), and nothing comes before byte 0.
    func seek(toSecondsOrStart seconds: Double) throws {
        guard seconds <= 0, let format = context.pointee.iformat, (format.pointee.flags & AVFMT_NO_BYTE_SEEK) == 0 else {
            return try seek(toSeconds: seconds)
        }
        try check(av_seek_frame(context, -1, 0, AVSEEK_FLAG_BYTE), .decode, path, "seeking to the start")
    }

    /// The presentation time (else decode time) of the first keyframe of `stream` read from here, seconds from
    /// the start; nil when none comes within 10 000 packets.
    private func firstKeyframe(of stream: Int32) throws -> Double? {
        guard stream >= 0, Int(stream) < streams.count else { return nil }
        let base = av_q2d(streams[Int(stream)].pointee.time_base)
        let packet = Packet()
        for _ in 0..<10_000 {
            guard case .packet = try read(into: packet) else { return nil }
            defer { packet.unref() }
            let p = packet.pointer.pointee
            guard p.stream_index == stream, (p.flags & AV_PKT_FLAG_KEY) != 0 else { continue }
            let time = p.pts != AVCode.noPTS ? p.pts : p.dts
            guard time != AVCode.noPTS else { continue }
            return Double(time) * base - startTime
        }
        return nil
    }
}
