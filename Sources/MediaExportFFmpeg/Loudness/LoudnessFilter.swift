internal import CFFmpeg
import MediaExportCore

/// `loudnorm`'s second pass in an audio stage (`LoudnessNormalisation.filter`): the encoder-ready frames go through
/// `loudnorm` (which works at 192 kHz), are resampled back to the output's rate and format, and come out in the
/// encoder's frame size (the last one short), stamped one after the other from the first frame's time. One
/// `FilterGraph`; `loudnorm` holds up to 3 s of audio (its look-ahead), given back when flushed.
final class LoudnessFilter {
    private let graph: FilterGraph
    private var next: Int64?
    /// The graph was told the stream ended.
    var flushed: Bool { graph.flushed }

    /// A filter for frames like `first` (the resampler's output: the encoder's format, rate and layout) running
    /// `filter` (`loudnorm=…`), giving frames of `frameSize` samples.
    init(filter: String, first: Frame, frameSize: Int32, path: String) throws {
        let f = first.pointer
        let format = av_get_sample_fmt_name(AVSampleFormat(rawValue: f.pointee.format)).map { String(cString: $0) } ?? "fltp"
        let layout = LoudnessMeter.layoutName(Int(f.pointee.ch_layout.nb_channels))
        let description = "\(filter),aresample=\(f.pointee.sample_rate),aformat=sample_fmts=\(format):channel_layouts=\(layout),"
            + "asetnsamples=n=\(frameSize):p=0"
        graph = try FilterGraph(description: description, input: ("abuffer", LoudnessMeter.bufferArguments(f, AVRational(num: 1, den: f.pointee.sample_rate))),
                                output: "abuffersink", path: path)
    }

    /// Gives the filter a frame (its buffers move in).
    func push(_ frame: Frame) throws {
        if next == nil { next = frame.pointer.pointee.pts }
        try graph.push(frame)
    }

    /// End of stream: what `loudnorm` holds comes out on the next pulls.
    func flush() throws { try graph.flush() }

    /// The next normalised frame, or nil when the filter needs more input (or has given everything).
    func pull() throws -> Frame? {
        let out = Frame()
        guard try graph.pull(into: out) == .ready else { return nil }
        out.pointer.pointee.pts = next ?? 0
        next = (next ?? 0) + Int64(out.pointer.pointee.nb_samples)
        return out
    }
}
