internal import CFFmpeg
import MediaExportCore

/// Scores pictures against their references with libavfilter's own metric filters (`ssim`: all planes, the CLI's
/// "All"; `psnr`: its `psnr_avg`), exactly as the ffmpeg CLI measures them:
/// `[dist]scale,format[d];[d][ref]ssim` → a sink whose frames carry the score in their metadata.
///
/// Pairs are ours, never the filter's: each pair is stamped with its own index (time base 1/1) before it goes in,
/// so the filter's frame sync can only match the two pictures given together. The graph (one `FilterGraph`) is
/// built for the first pair's geometry and freed once, with this object.
final class MetricGraph {
    let metric: QualityMetric
    private let graph: FilterGraph
    private let taken = Frame()
    /// Pairs given so far: the next pair's timestamp.
    private var pairs: Int64 = 0

    /// A graph for references like `reference` and distorted pictures like `distorted` (only their properties are
    /// read). The distorted side is brought to the reference's size and pixel format (a no-op when they match: a
    /// decoder may give back `yuvj420p` or another depth than the encoder took).
    init(metric: QualityMetric, reference: Frame, distorted: Frame, path: String) throws {
        self.metric = metric
        if let refusal = MetricCatalog.refusal(metric) { throw refusal }
        let r = reference.pointer.pointee
        let format = pixelFormatName(AVPixelFormat(rawValue: r.format))
        let description = "[dist]scale=\(r.width):\(r.height):flags=bicubic,format=\(format)[d];"
            + "[d][ref]\(metric.filterName)=shortest=1:repeatlast=0[out]"
        let unit = AVRational(num: 1, den: 1), unknown = AVRational(num: 0, den: 1)
        graph = try FilterGraph(description: description,
                                inputs: [("ref", "buffer", FilterGraph.bufferArguments(reference.pointer, timeBase: unit, frameRate: unknown)),
                                         ("dist", "buffer", FilterGraph.bufferArguments(distorted.pointer, timeBase: unit, frameRate: unknown))],
                                output: "buffersink", path: path, threads: 1)
    }

    /// Gives the graph one pair (their buffers move in: both frames are left empty); returns the scores of the pairs
    /// the filter has finished, in the order given (the filter may hold a pair until the next one comes).
    func add(reference: Frame, distorted: Frame) throws -> [Double] {
        reference.pointer.pointee.pts = pairs
        distorted.pointer.pointee.pts = pairs
        pairs += 1
        try graph.push(reference, input: 0)
        try graph.push(distorted, input: 1)
        return try takeScores()
    }

    /// No more pairs: the scores of those the filter still held.
    func finish() throws -> [Double] {
        try graph.flush()
        return try takeScores()
    }

    /// The scores of the frames the sink has ready.
    private func takeScores() throws -> [Double] {
        var scores: [Double] = []
        while try graph.pull(into: taken) == .ready {
            scores.append(try score(of: taken))
            taken.unref()
        }
        return scores
    }

    /// The metric's value in a frame the filter let through; PSNR at most `QualityMetric.psnrCap` (identical
    /// pictures measure `inf`).
    private func score(of frame: Frame) throws -> Double {
        let key = metric == .ssim ? "lavfi.ssim.All" : "lavfi.psnr.psnr_avg"
        guard let entry = av_dict_get(frame.pointer.pointee.metadata, key, nil, 0), let value = Double(String(cString: entry.pointee.value)) else {
            throw ExportError.ffmpeg(stage: .filter, path: graph.path, code: -1, message: "the \(metric.rawValue) filter gave no \(key)")
        }
        return metric == .psnr ? min(value, QualityMetric.psnrCap) : value
    }
}
