import MediaExportCore
import MediaExportFFmpeg

/// EBU R128 loudness of a media file's audio, measured in-process as FFmpeg's `ebur128=peak=true` measures it
/// (docs/loudness.md): for `--loudness` and for callers that export one source several times (a package's
/// renditions measure the source once and pass the measurement on as `ExportRequest.loudnessMeasured`).
public enum Loudness {
    /// Measures the main audio of the file at `input` (or its stream `stream`); nil when it has no audio.
    /// - Parameters:
    ///   - channels: the channel count to measure it downmixed to, as the export's output will have it (the preset's
    ///     `audio.channels` when the source has more); nil: its own channels.
    ///   - range: seconds on the file's clock to measure (`start`, `end`; `end` nil: to the end); nil: all of it.
    /// Throws `ExportError` when the file cannot be read.
    public static func measure(input: String, stream: Int? = nil, channels: Int? = nil,
                               range: (start: Double, end: Double?)? = nil) throws -> LoudnessMeasurement? {
        try LoudnessMeter.measure(path: input, stream: stream, range: range, channels: channels)
    }

    /// The channels an export with `preset` measures the source's audio in: the preset's most channels when the
    /// source has more (its output is downmixed), else the source's own (nil).
    public static func measuredChannels(preset: Preset, sourceChannels: Int) -> Int? {
        guard let most = preset.audio?.channels, sourceChannels > most else { return nil }
        return most
    }
}
