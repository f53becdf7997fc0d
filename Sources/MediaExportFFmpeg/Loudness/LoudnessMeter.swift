internal import CFFmpeg
import MediaExportCore

/// Measures an audio stream's loudness as EBU R128 / ITU-R BS.1770 define it: the stream decoded (`FrameReader`) into
/// a libavfilter graph (`FilterGraph`) `[atrim,] [aformat,] ebur128=peak=true:metadata=1`, whose frames carry the
/// running measure (`lavfi.r128.*`) every 100 ms. The last frame's `I` and `LRA` are the file's, the true peak the
/// largest of any channel, and the relative gate is computed from the momentary loudness of every block as the filter
/// gates them (it keeps it to itself). The same numbers the ffmpeg CLI's `-af ebur128=peak=true` summary prints.
package enum LoudnessMeter {
    /// Measures stream `stream` of `path` (nil: its main audio); nil when the file has no such audio.
    /// - Parameters:
    ///   - range: seconds on the file's clock to measure (a trim); nil: all of it. `end` nil: to the end.
    ///   - channels: the channel count to measure the audio downmixed to (as an export's output has it); nil: its own.
    ///   - through: filters the audio goes through before it is measured (a `loudnorm` whose result is predicted).
    ///   - activity: called now and then while it reads (a watchdog's touch).
    package static func measure(path: String, stream: Int? = nil, range: (start: Double, end: Double?)? = nil, channels: Int? = nil,
                                through: String? = nil, cancel: CancelToken? = nil, activity: () -> Void = {}) throws -> LoudnessMeasurement? {
        let demuxer = try Demuxer(path: path, cancel: cancel)
        guard let index = stream ?? SourceProbe.info(demuxer).mainAudio, index >= 0, index < demuxer.streams.count,
              demuxer.streams[index].pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_AUDIO else { return nil }
        let st = demuxer.streams[index]
        for s in demuxer.streams where s.pointee.index != st.pointee.index { s.pointee.discard = AVDISCARD_ALL }
        // A trim's start is read from a second before it: the decoder's first frames after a seek are its warm-up.
        let reader = try FrameReader(demuxer: demuxer, stream: st, path: path,
                                     from: range.map { max(0, $0.start - demuxer.startTime - 1) } ?? 0)
        var tally = Tally()
        var graph: FilterGraph?
        let out = Frame()
        var read = 0
        while let (frame, _) = try reader.next() {
            if cancel?.isSet == true { throw ExportError.cancelled }
            read += 1
            if read % 256 == 0 { activity() }
            let f = frame.pointer
            f.pointee.pts = f.pointee.best_effort_timestamp
            if graph == nil {
                graph = try FilterGraph(description: description(range: range, channels: channels, through: through.map { ($0, channels ?? Int(st.pointee.codecpar.pointee.ch_layout.nb_channels)) }), input: ("abuffer", bufferArguments(f, st.pointee.time_base)),
                                        output: "abuffersink", path: path)
            }
            try graph!.push(frame)  // made just above when nil
            try drain(graph!, into: out, &tally)
        }
        guard let graph else { return tally.measurement(channels: channels ?? Int(st.pointee.codecpar.pointee.ch_layout.nb_channels)) }
        try graph.flush()
        try drain(graph, into: out, &tally)
        return tally.measurement(channels: channels ?? Int(st.pointee.codecpar.pointee.ch_layout.nb_channels))
    }

    /// The graph's text: the range trimmed (`atrim` on the frames' own times), the downmix, the meter.
    /// `through`'s channels are said again after it (`loudnorm` leaves its output's layout open).
    static func description(range: (start: Double, end: Double?)?, channels: Int?, through: (filters: String, channels: Int)? = nil) -> String {
        var filters: [String] = []
        if let range {
            filters.append(String(format: "atrim=start=%.6f", range.start) + (range.end.map { String(format: ":end=%.6f", $0) } ?? ""))
        }
        if let channels { filters.append("aformat=channel_layouts=\(layoutName(channels))") }
        if let through { filters.append("\(through.filters),aformat=channel_layouts=\(layoutName(through.channels))") }
        filters.append("ebur128=peak=true:metadata=1:framelog=verbose")
        return filters.joined(separator: ",")
    }

    /// FFmpeg's name of the default layout of `channels` channels (`stereo`, `5.1`): the layout the export's
    /// resampler downmixes to.
    static func layoutName(_ channels: Int) -> String {
        var layout = AVChannelLayout()
        defer { av_channel_layout_uninit(&layout) }
        cff_default_layout(&layout, Int32(clamping: max(1, channels)))
        var name = [CChar](repeating: 0, count: 64)
        return av_channel_layout_describe(&layout, &name, name.count) < 0 ? "stereo" : cText(name)
    }

    /// The `abuffer` source's arguments for frames like `f`, stamped in `timeBase`.
    static func bufferArguments(_ f: UnsafeMutablePointer<AVFrame>, _ timeBase: AVRational) -> String {
        var layout = f.pointee.ch_layout
        var described = [CChar](repeating: 0, count: 128)
        var name = "mono"
        if layout.nb_channels > 0, layout.order != AV_CHANNEL_ORDER_UNSPEC, av_channel_layout_describe(&layout, &described, described.count) >= 0 {
            name = cText(described)
        } else if f.pointee.ch_layout.nb_channels > 1 {
            name = layoutName(Int(f.pointee.ch_layout.nb_channels))
        }
        let format = av_get_sample_fmt_name(AVSampleFormat(rawValue: f.pointee.format)).map { String(cString: $0) } ?? "fltp"
        return "time_base=\(timeBase.num)/\(timeBase.den):sample_rate=\(f.pointee.sample_rate):sample_fmt=\(format):channel_layout=\(name)"
    }

    /// Takes every frame the graph has ready, reading its measure.
    private static func drain(_ graph: FilterGraph, into out: Frame, _ tally: inout Tally) throws {
        while try graph.pull(into: out) == .ready {
            tally.read(out.pointer)
            out.unref()
        }
    }

    /// What the frames said so far.
    struct Tally {
        var integrated: Double?
        var range = 0.0
        var peak = 0.0
        var momentary: [Double] = []
        var samples = 0
        var rate = 48_000

        /// Reads one frame's `lavfi.r128.*` (set on frames that end a 100 ms step).
        mutating func read(_ f: UnsafeMutablePointer<AVFrame>) {
            samples += Int(f.pointee.nb_samples)
            if f.pointee.sample_rate > 0 { rate = Int(f.pointee.sample_rate) }
            let meta = Demuxer.dictionary(f.pointee.metadata)
            guard let m = meta["lavfi.r128.M"].flatMap(Double.init) else { return }
            momentary.append(m)
            if let i = meta["lavfi.r128.I"].flatMap(Double.init) { integrated = i }
            if let lra = meta["lavfi.r128.LRA"].flatMap(Double.init) { range = lra }
            for (key, value) in meta where key.hasPrefix("lavfi.r128.true_peaks_ch") { peak = max(peak, Double(value) ?? 0) }
        }

        /// The measurement of `channels` channels.
        func measurement(channels: Int) -> LoudnessMeasurement {
            // To 0.001, as the filter gives I and LRA.
            func rounded(_ v: Double) -> Double { (v * 1000).rounded() / 1000 }
            return LoudnessMeasurement(integrated: integrated ?? -70, range: range, truePeak: rounded(LoudnessMeasurement.decibels(amplitude: peak)),
                                       threshold: rounded(LoudnessMeasurement.relativeGate(momentary: momentary)), channels: channels,
                                       seconds: rounded(Double(samples) / Double(max(1, rate))))
        }
    }
}
