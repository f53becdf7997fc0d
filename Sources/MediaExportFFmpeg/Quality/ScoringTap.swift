internal import CFFmpeg
import MediaExportCore

/// Measures an encode while it runs: each scored frame given to the encoder (every `every`-th) is kept, the
/// encoder's packets are decoded again by a decoder of its own, and each decoded picture is scored against the
/// frame it came from (`MetricGraph`). No second pass, and no second decode of the source or its filters.
///
/// Frames are paired by timestamp: the encoder gives each packet its frame's (both on the stage's time base).
/// References are held only until their picture comes back, so at most the encoder's delay of them at once.
final class ScoringTap {
    private var scores: FrameScores
    private let decoder: StreamDecoder
    private let path: String
    /// Seconds from the first frame given of the frames to score; nil: all of them.
    private let window: Range<Double>?
    /// The encoder's time base, in seconds.
    private let timeBase: Double
    /// The first frame's timestamp.
    private var firstPTS: Int64?
    /// The references waiting for their picture, oldest first (timestamps increase: the stage gives them in order).
    private var references: [Frame] = []
    /// Frames given to the encoder so far.
    private var offered = 0
    private var graph: MetricGraph?
    private let decoded = Frame()

    /// Frames an encoder holds before its first packet, counted for the memory rule (x264 medium: its 40 frames of
    /// lookahead, B-frames and frame threads).
    static let encoderDelay = 48

    /// A tap for the encoder of `outputStream` (its parameters are the encoder's, its time base still the encoder's:
    /// made before the muxer writes its header).
    init(metric: QualityMetric, every: Int, outputStream: UnsafeMutablePointer<AVStream>, path: String, window: Range<Double>? = nil) throws {
        scores = FrameScores(metric: metric, every: every)
        self.path = path
        self.window = window
        timeBase = av_q2d(outputStream.pointee.time_base)
        // One thread: frame threads would hold more pictures, and the encoder has the cores.
        decoder = try StreamDecoder(stream: outputStream, path: path, codecs: CodecRun(threads: 1, deterministic: true))
    }

    /// Every how many frames to score pictures of `width`×`height` in `format` so that the references held stay
    /// within `FrameScores.memoryBudget`.
    static func every(width: Int, height: Int, format: AVPixelFormat, frames: Int? = nil) -> Int {
        let bytes = av_image_get_buffer_size(format, Int32(width), Int32(height), 1)
        return FrameScores.every(frameBytes: Int(max(0, bytes)), delay: encoderDelay, frames: frames)
    }

    /// The frame about to be given to the encoder (its timestamp set): kept (a new reference to its buffers, which
    /// the frame's owner then no longer overwrites) when it is one to score.
    func reference(_ frame: Frame) throws {
        defer { offered += 1 }
        let pts = frame.pointer.pointee.pts
        let first = firstPTS ?? pts
        firstPTS = first
        guard offered % scores.every == 0, window.map({ $0.contains(Double(pts - first) * timeBase) }) ?? true else { return }
        let kept = Frame()
        try check(av_frame_ref(kept.pointer, frame.pointer), .filter, path, "keeping a frame to score")
        references.append(kept)
    }

    /// A packet the encoder made (before it is rescaled for the muxer): decoded, and its pictures scored.
    func encoded(_ packet: Packet) throws {
        try decoder.send(packet)
        try takeDecoded()
    }

    /// The encoder has ended: what the decoder and the metric still hold is scored; references that never came
    /// back are counted (`FrameScores.unpaired`).
    func finish() throws -> FrameScores {
        try decoder.send(nil)
        try takeDecoded()
        for score in try graph?.finish() ?? [] { scores.append(score) }
        scores.unpaired += references.count
        references.removeAll()
        return scores
    }

    /// Scores each picture the decoder has ready against its reference.
    private func takeDecoded() throws {
        while try decoder.receive(into: decoded) == .ready {
            try pair(decoded)
            decoded.unref()
        }
    }

    /// Finds `picture`'s reference by timestamp: older references whose picture never came are counted as
    /// unpaired; a picture of a frame not scored (every k-th) has none.
    private func pair(_ picture: Frame) throws {
        let pts = picture.pointer.pointee.pts
        while let head = references.first, head.pointer.pointee.pts < pts {
            references.removeFirst()
            scores.unpaired += 1
        }
        guard let head = references.first, head.pointer.pointee.pts == pts else { return }
        references.removeFirst()
        if graph == nil { graph = try MetricGraph(metric: scores.metric, reference: head, distorted: picture, path: path) }
        for score in try graph!.add(reference: head, distorted: picture) { scores.append(score) }
    }
}
