internal import CFFmpeg
import MediaExportCore

/// Slows one region's audio down with its pitch kept, for slow motion: `abuffer` → `atempo` × n → `abuffersink` on
/// libavfilter. `atempo` takes 0.5 … 2 per instance, so a rate of 0.125 is three instances at 0.5
/// (`SlowMotion.tempoFactors`). One graph per region: the stage feeds it the region's samples exactly (a decoded
/// frame that straddles a boundary is split there, `slice`), flushes it at the region's end, and pads what
/// `atempo` gives short (its first and last half-windows, about 0.1 s) with silence to the region's exact length,
/// so audio and video stay in step after every region.
final class AudioTempo {
    private let graph: FilterGraph
    /// Samples given in and taken out so far.
    private(set) var samplesIn = 0
    private(set) var samplesOut = 0

    /// Builds the graph for frames like `first` (sample format, rate and channel layout).
    init(first: UnsafeMutablePointer<AVFrame>, slowRate: Double, path: String) throws {
        let f = first.pointee
        var layout = [CChar](repeating: 0, count: 128)
        var chLayout = f.ch_layout
        if av_channel_layout_describe(&chLayout, &layout, layout.count) < 0 { layout = Array("mono".utf8CString) }
        let format = av_get_sample_fmt_name(AVSampleFormat(rawValue: f.format)).map { String(cString: $0) } ?? "fltp"
        let args = "time_base=1/\(f.sample_rate):sample_rate=\(f.sample_rate):sample_fmt=\(format):channel_layout=\(cText(layout))"
        let tempos = SlowMotion.tempoFactors(slowRate).map { "atempo=\($0)" }.joined(separator: ",")
        graph = try FilterGraph(description: tempos, input: ("abuffer", args), output: "abuffersink", path: path)
    }

    /// Gives the graph a frame (its buffers move in).
    func push(_ frame: Frame) throws {
        samplesIn += Int(frame.pointer.pointee.nb_samples)
        try graph.push(frame)
    }

    /// End of stream: the graph gives up what it holds.
    func flush() throws { try graph.flush() }

    /// The next slowed frame, or nil when the graph needs more input (or has ended).
    func pull(into frame: Frame) throws -> Bool {
        guard try graph.pull(into: frame) == .ready else { return false }
        samplesOut += Int(frame.pointer.pointee.nb_samples)
        return true
    }

    /// How many samples `atempo` at `slowRate` gives short at its start, for audio shaped like `like`: measured once
    /// per shape and rate on a second of silence (the filter's windows are fixed by the sample rate).
    static func startLoss(like: Frame, slowRate: Double, path: String) throws -> Int {
        let key = "\(like.pointer.pointee.sample_rate)/\(like.pointer.pointee.format)/\(like.pointer.pointee.ch_layout.nb_channels)/\(slowRate)"
        if let known = lossCache.withLock({ $0[key] }) { return known }
        let rate = Int(max(1, like.pointer.pointee.sample_rate))
        let probe = try AudioTempo(first: like.pointer, slowRate: slowRate, path: path)
        let chunk = try silence(like: like, count: 1024, path: path)
        let sink = Frame()
        var given = 0
        while given < rate {
            let copy = try silence(like: chunk, count: 1024, path: path)
            try probe.push(copy)
            given += 1024
            while try probe.pull(into: sink) { sink.unref() }
        }
        try probe.flush()
        while try probe.pull(into: sink) { sink.unref() }
        // What is missing at the end of a flushed run is the start's loss: the flush gives the tail back.
        let loss = max(0, Int((Double(given) / slowRate).rounded()) - probe.samplesOut)  // rate in 1/16…1 (SlowMotion.problem)
        lossCache.withLock { $0[key] = loss }
        return loss
    }

    private static let lossCache = LockedBox<[String: Int]>([:])

    /// `count` samples of silence shaped like `like` (format, rate, layout).
    static func silence(like: Frame, count: Int32, path: String) throws -> Frame {
        let l = like.pointer.pointee
        let out = try Frame(audioSamples: count, format: l.format, rate: l.sample_rate, layout: l.ch_layout, path: path)
        try check(av_samples_set_silence(out.pointer.pointee.extended_data, 0, count, l.ch_layout.nb_channels, AVSampleFormat(rawValue: l.format)),
                  .filter, path, "silence")
        return out
    }

    /// The samples `[from, from + count)` of `frame` as a frame of their own (same format, layout and rate).
    static func slice(_ frame: Frame, from: Int32, count: Int32, path: String) throws -> Frame {
        let f = frame.pointer
        let out = try Frame(audioSamples: count, format: f.pointee.format, rate: f.pointee.sample_rate, layout: f.pointee.ch_layout, path: path)
        try check(av_samples_copy(out.pointer.pointee.extended_data, f.pointee.extended_data, 0, from, count, f.pointee.ch_layout.nb_channels,
                                  AVSampleFormat(rawValue: f.pointee.format)), .filter, path, "copying audio")
        return out
    }
}

/// What `atempo` lost at the start of one audio stream's slowed regions (silence in its place, so that each region
/// keeps its exact length): said when it took more than half of a region's sound.
struct TempoStartLoss {
    /// Slowed regions, those that lost more than half their samples, and the most lost at one region's start.
    private(set) var regions = 0
    private(set) var mostlyLost = 0
    private(set) var longest = 0

    /// Counts a region that lost `lost` of its `wanted` slowed samples.
    mutating func add(lost: Int, of wanted: Int) {
        regions += 1
        if 2 * lost > wanted { mostlyLost += 1 }
        longest = max(longest, lost)
    }

    /// The warning, for stream `stream` (the input's index) whose slowed samples are at `sampleRate`; nil when no
    /// region lost more than half its sound.
    func warning(stream: Int, sampleRate: Int) -> String? {
        guard mostlyLost > 0, sampleRate > 0 else { return nil }
        return String(format: "audio stream #%d: %d of %d slow-motion region%@ lost more than half their sound to the tempo filter's start (up to the first %.0f ms of each is silence)",
                      stream, mostlyLost, regions, regions == 1 ? "" : "s", 1000 * Double(longest) / Double(sampleRate))
    }
}
