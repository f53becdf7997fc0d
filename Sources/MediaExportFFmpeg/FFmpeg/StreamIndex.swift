internal import CFFmpeg

/// A stream's index as the demuxer built it, read without touching the media data: what the source probe and the
/// verifier both ask of an MP4/MOV (which samples its edit list hides).
enum StreamIndex {
    /// An MP4/MOV stream's index: whether its decode times increase, and how many of its samples the edit list
    /// hides (the demuxer marks them discard: a cut's lead-in, encoder priming).
    static func read(_ stream: UnsafeMutablePointer<AVStream>, entries: Int) -> (increasing: Bool, hidden: Int) {
        var increasing = true, hidden = 0
        var last = Int64.min
        for e in 0..<entries {
            guard let entry = avformat_index_get_entry(stream, Int32(e)) else { continue }
            if cff_index_entry_discarded(entry) != 0 { hidden += 1 }
            if entry.pointee.timestamp <= last { increasing = false }
            last = entry.pointee.timestamp
        }
        return (increasing, hidden)
    }
}
