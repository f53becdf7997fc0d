internal import CFFmpeg
import MediaExportCore

/// A stream's index as the demuxer built it, read without touching the media data: what the source probe and the
/// verifier both ask of an MP4/MOV (which samples its edit list hides).
enum StreamIndex {
    /// An MP4/MOV stream's index: whether its decode times increase, how many of its samples the edit list hides
    /// (the demuxer marks them discard: a cut's lead-in, encoder priming), and whether its decode times keep the
    /// constant frame rate of `FrameHoles`' rule over the whole stream (false: a phone's variable rate); `leadIn`:
    /// the seconds the hidden samples before the first shown one span (a stream-copy cut's lead-in).
    static func read(_ stream: UnsafeMutablePointer<AVStream>, entries: Int) -> (increasing: Bool, hidden: Int, constantRate: Bool, leadIn: Double) {
        var increasing = true, hidden = 0
        var last = Int64.min, first: Int64?, firstShown: Int64?
        let base = stream.pointee.r_frame_rate, tick = av_q2d(stream.pointee.time_base)
        var holes = FrameHoles(frameDuration: base.num > 0 && base.den > 0 ? av_q2d(av_inv_q(base)) : 0)
        for e in 0..<entries {
            guard let entry = avformat_index_get_entry(stream, Int32(e)) else { continue }
            if cff_index_entry_discarded(entry) != 0 { hidden += 1 } else if firstShown == nil { firstShown = entry.pointee.timestamp }
            if first == nil { first = entry.pointee.timestamp }
            if entry.pointee.timestamp <= last { increasing = false }
            if last != Int64.min { holes.note(from: Double(last) * tick, to: Double(entry.pointee.timestamp) * tick) }
            last = entry.pointee.timestamp
        }
        let leadIn = first.flatMap { f in firstShown.map { Double(max(0, $0 - f)) * tick } } ?? 0
        return (increasing, hidden, holes.isConstantRate, leadIn)
    }
}
