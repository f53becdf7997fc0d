internal import CFFmpeg
import MediaExportCore

/// One libavfilter graph: a `buffer` (or `abuffer`) source → `description` → a `buffersink` (or `abuffersink`),
/// built from the first decoded frame's properties, as FFmpeg's `doc/examples/filtering_video.c` and fftools
/// configure theirs. Owns the graph and frees it once.
final class FilterGraph {
    private var graph: UnsafeMutablePointer<AVFilterGraph>?
    /// The graph's sources, in the order of the inputs it was built with.
    private let sources: [UnsafeMutablePointer<AVFilterContext>]
    private let sink: UnsafeMutablePointer<AVFilterContext>
    /// The time base of the frames that come out (`bwdif` halves it, even when it sends one frame per frame).
    let outputTimeBase: AVRational
    /// The graph's text, for messages.
    let description: String
    /// The file the frames belong to, for messages.
    let path: String
    /// End of stream has been sent in.
    private(set) var flushed = false

    /// A video graph (`buffer` → `description` → `buffersink`).
    /// - Parameters:
    ///   - first: the first decoded frame (only its properties are read).
    ///   - timeBase: the time base of the timestamps the frames will carry.
    ///   - threads: the slice threads its filters may use (0: libavfilter's automatic count, one a core).
    convenience init(video description: String, first: UnsafeMutablePointer<AVFrame>, timeBase: AVRational, frameRate: AVRational,
                     path: String, threads: Int32 = 0) throws {
        try self.init(description: description, input: ("buffer", Self.bufferArguments(first, timeBase: timeBase, frameRate: frameRate)),
                      output: "buffersink", path: path, threads: threads)
    }

    /// The `buffer` source's arguments for pictures like `first` (`frameRate` left out when unknown).
    static func bufferArguments(_ first: UnsafeMutablePointer<AVFrame>, timeBase: AVRational, frameRate: AVRational) -> String {
        let f = first.pointee
        var sar = f.sample_aspect_ratio
        if sar.num <= 0 || sar.den <= 0 { sar = AVRational(num: 1, den: 1) }
        var args = "video_size=\(f.width)x\(f.height):pix_fmt=\(f.format):time_base=\(timeBase.num)/\(timeBase.den)"
            + ":pixel_aspect=\(sar.num)/\(sar.den)"
        if frameRate.num > 0 && frameRate.den > 0 { args += ":frame_rate=\(frameRate.num)/\(frameRate.den)" }
        return args
    }

    /// A graph from `input` (a source filter and its arguments) through `description` into the sink filter `output`.
    convenience init(description: String, input: (filter: String, args: String), output: String, path: String, threads: Int32 = 0) throws {
        try self.init(description: description, inputs: [("in", input.filter, input.args)], output: output, path: path, threads: threads)
    }

    /// A graph from several sources (each a label `description` names, a source filter and its arguments) into the
    /// sink filter `output`, whose label is `out`.
    init(description: String, inputs: [(label: String, filter: String, args: String)], output: String, path: String, threads: Int32 = 0) throws {
        self.description = description
        self.path = path
        guard let g = avfilter_graph_alloc() else { fatalError("avfilter_graph_alloc: out of memory") }
        graph = g
        g.pointee.nb_threads = threads
        // Scalers the graph inserts itself (format conversions) use bicubic, as the ffmpeg CLI's graphs do.
        g.pointee.scale_sws_opts = av_strdup("flags=bicubic")
        var srcs: [UnsafeMutablePointer<AVFilterContext>] = []
        var out: UnsafeMutablePointer<AVFilterContext>? = nil
        // Every stored property but the two contexts is set: a failure below frees the graph (and them) here.
        func fail(_ code: Int32, _ what: String) -> ExportError {
            var gg: UnsafeMutablePointer<AVFilterGraph>? = g
            avfilter_graph_free(&gg)
            return ExportError.ffmpeg(stage: .filter, path: path, code: code, message: "\(what): \(ffmpegMessage(code)) (\(description))")
        }
        for input in inputs {
            var src: UnsafeMutablePointer<AVFilterContext>? = nil
            let code = avfilter_graph_create_filter(&src, avfilter_get_by_name(input.filter), input.label, input.args, nil, g)
            if code < 0 { throw fail(code, "creating the filter graph's input \(input.label)") }
            srcs.append(src!)
        }
        var code = avfilter_graph_create_filter(&out, avfilter_get_by_name(output), "out", nil, nil, g)
        if code < 0 { throw fail(code, "creating the filter graph's output") }
        // The open ends the description connects to: each source's output, and the sink's input.
        var outputs: UnsafeMutablePointer<AVFilterInOut>? = nil, ends = avfilter_inout_alloc()
        defer { avfilter_inout_free(&outputs); avfilter_inout_free(&ends) }
        for (input, src) in zip(inputs, srcs).reversed() {
            guard let o = avfilter_inout_alloc() else { fatalError("avfilter_inout_alloc: out of memory") }
            o.pointee.name = av_strdup(input.label); o.pointee.filter_ctx = src; o.pointee.pad_idx = 0; o.pointee.next = outputs
            outputs = o
        }
        guard let i = ends else { fatalError("avfilter_inout_alloc: out of memory") }
        i.pointee.name = av_strdup("out"); i.pointee.filter_ctx = out; i.pointee.pad_idx = 0; i.pointee.next = nil
        code = avfilter_graph_parse_ptr(g, description, &ends, &outputs, nil)
        if code < 0 { throw fail(code, "parsing the filter graph") }
        code = avfilter_graph_config(g, nil)
        if code < 0 { throw fail(code, "configuring the filter graph") }
        sources = srcs
        sink = out!
        outputTimeBase = av_buffersink_get_time_base(out)
    }

    deinit { avfilter_graph_free(&graph) }

    /// Gives the graph a frame (into its `input`-th source); its buffers move into the graph (the frame is left empty).
    func push(_ frame: Frame, input: Int = 0) throws {
        let code = av_buffersrc_add_frame_flags(sources[input], frame.pointer, 0)
        if code < 0 { try check(code, .filter, path, "filtering (\(description))") }
    }

    /// End of stream: the graph gives up what it holds (a deinterlacer's last frame) on the next pulls.
    func flush() throws {
        guard !flushed else { return }
        flushed = true
        var code: Int32 = 0
        for source in sources where code >= 0 || code == AVCode.eof { code = av_buffersrc_add_frame_flags(source, nil, 0) }
        if code < 0 && code != AVCode.eof { try check(code, .filter, path, "flushing the filter graph") }
    }

    /// Takes the next filtered frame into `frame`.
    func pull(into frame: Frame) throws -> Received {
        try received(av_buffersink_get_frame(sink, frame.pointer), .filter, path, "filtering (\(description))")
    }
}
