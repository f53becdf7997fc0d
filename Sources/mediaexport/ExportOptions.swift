import ArgumentParser
import MediaExport

/// Every option of one file's export, shared by `export` and `batch`: the preset and what changes it, the version,
/// the streams kept, the fallback and error policies, the decode thread, threads and determinism. An option added
/// here (and to `ExportRequest`) is an option of both commands; `request(input:output:catalog:)` makes the request.
/// What only one file in place can have (its range, `--edits`, `--sandbox`, `-y`/`-n`) stays on `export`.
struct ExportOptions: ParsableArguments {
    @Option(name: .shortAndLong, help: "Preset name, Apple alias, or path to a preset .json file (see `mediaexport presets`).", completion: PresetCompletion.kind)
    var preset: String = "highest"

    @OptionGroup var version: AssetVersionOption

    @Flag(help: "Short for --asset-version original.")
    var original = false

    @Flag(name: .customLong("require-current"), help: "Fail instead of delivering the original when the edits cannot be rendered (an .AAE only).")
    var requireCurrent = false

    @OptionGroup var audioTracks: AudioTrackOptions

    @OptionGroup var sizeLimit: SizeLimitOptions

    @OptionGroup var encoding: EncodingOverrideOptions
    @OptionGroup var metadataLevel: MetadataOption

    @Option(help: ArgumentHelp("needed: remux or byte copy a file that already fits the preset (the transcode would change nothing); always: transcode. Default: always for export, needed for batch.", valueName: "needed|always"))
    var policy: TranscodePolicy?

    @Option(help: "Fallback when the input cannot be transcoded: auto (remux, then byte copy), remux, copy, none.")
    var fallback: FallbackPolicy = .auto

    @Option(help: "Threads for the decoders and encoders of an export (default: FFmpeg's automatic count, about one a core; in a batch, the cores shared out among the jobs, at least 1).")
    var threads: Int?

    @Flag(help: "Byte-identical output on any x86-64 CPU and core count: the libraries' CPU-dependent code fixed, the codecs on --threads (default 4) threads. Costs speed (docs/regress.md).")
    var deterministic = false

    @Flag(help: "Fail (or fall back) on the first corrupt packet instead of skipping it.")
    var strict = false

    @Option(name: .customLong("max-decode-errors"), help: "Corrupt packets/frames to skip before giving up on the transcode.")
    var maxDecodeErrors: Int = ErrorPolicy().maxDecodeErrors

    @Option(help: "A damaged input (cut short, or undecodable past --max-decode-errors), once its remux failed too: salvage (what decodes, in the container asked for, said partial; exit 3), copy (a byte copy of the file as it is), fail (exit 1, nothing written).")
    var damaged: DamagePolicy = .salvage

    @Option(name: .customLong("stall-timeout"), help: "Seconds without progress before the export is stopped (0: never).")
    var stallTimeout: Double = ErrorPolicy().stallTimeout

    @Option(help: "Decode the video on a thread of its own: auto (from 4 cores up), on, off. The output is the same either way.")
    var pipeline: PipelineMode = .auto

    @Option(help: ArgumentHelp("Append the --verbose log and every event (JSON Lines) to FILE, for a ticket; the terminal shows what it would without it.", valueName: "FILE"),
            completion: .file())
    var log: String?

    /// What the options were read as (`--audio-bitrate 96 read as 96 kb/s`), for notes on stderr.
    var notes: [String] { encoding.notes }

    func validate() throws {
        try NumberRange.check("--max-decode-errors", maxDecodeErrors, 0...1_000_000_000)
        try NumberRange.check("--threads", threads, 1...1024)
        try NumberRange.check("--stall-timeout", stallTimeout, 0...604_800)
    }

    /// The request these options make for `input` → `output`: the preset resolved in `catalog`, then changed by the
    /// overrides, the size limit and the metadata level. A batch makes one with no input and output, its jobs' template.
    func request(input: String, output: String, catalog: PresetCatalog) throws -> ExportRequest {
        let resolved = try catalog.resolve(preset).applying(encoding.overrides, maxFileSize: sizeLimit.bytes)
        var request = ExportRequest(input: input, output: output, preset: metadataLevel.apply(to: resolved),
                                    version: original ? .original : version.assetVersion, requireCurrent: requireCurrent, fallback: fallback,
                                    errors: ErrorPolicy(strict: strict, maxDecodeErrors: maxDecodeErrors, stallTimeout: stallTimeout, damaged: damaged))
        request.tracks = audioTracks.selection
        request.maxFileSize = sizeLimit.bytes
        request.estimate = sizeLimit.estimate
        request.pipeline = pipeline
        request.threads = threads
        request.deterministic = deterministic
        request.policy = policy ?? .always
        request.searchCache = ExportRequest.defaultSearchCache
        request.measureLoudness = encoding.loudnessTarget != nil
        if let refusal = request.qualityRefusal { throw refusal }
        return request
    }
}

extension AssetVersion: ExpressibleByArgument {}
extension FallbackPolicy: ExpressibleByArgument {}
extension TranscodePolicy: ExpressibleByArgument {}
extension DamagePolicy: ExpressibleByArgument {}
extension SizeEstimation: ExpressibleByArgument {}
extension PipelineMode: ExpressibleByArgument {}
extension MetadataLevel: ExpressibleByArgument {}

/// `--crf`, `--encoder-preset`, `--video-bitrate`, `--max-bitrate` and `--audio-bitrate` (part of `ExportOptions`):
/// applied on top of the preset by the library (`Preset.applying`), which checks them as preset file keys, for the
/// preset's own encoder (`--crf 60` is refused for x264, taken for AV1).
struct EncodingOverrideOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Constant rate factor (lower is better): x264/x265 0-51, AV1 (SVT-AV1) 0-63; replaces the preset's (or its average bit rate).", valueName: "N"))
    var crf: Int?

    @Option(help: ArgumentHelp("The smallest encode that meets a measured quality, its CRF searched on short windows and the output measured: ssim:0.985 (all planes) or psnr:42 (dB); not with --crf or --video-bitrate.", valueName: "METRIC:TARGET"))
    var quality: String?

    @Option(name: .customLong("encoder-preset"), help: ArgumentHelp("Encoder speed: x264/x265 ultrafast, superfast, veryfast, faster, fast, medium, slow, slower, veryslow, placebo; AV1 (SVT-AV1) 0-13 (0 slowest).", valueName: "NAME"),
            completion: .list(VideoCodec.h264.profile.speeds))
    var encoderPreset: String?

    @Option(name: .customLong("video-bitrate"), help: ArgumentHelp("Average video bit rate instead of the CRF (64k, 2.5M, 160000 bits/s); not with --crf.", valueName: "RATE"))
    var videoBitrate: String?

    @Option(name: .customLong("max-bitrate"), help: ArgumentHelp("Ceiling on the video bit rate (x264/x265 VBV, ffmpeg's -maxrate), e.g. 4M.", valueName: "RATE"))
    var maxBitrate: String?

    @Option(name: .customLong("audio-bitrate"), help: ArgumentHelp("Audio bit rate, e.g. 64k or 160000; a bare number under 1000 is kb/s (96: 96k, as HandBrake's --ab).", valueName: "RATE"))
    var audioBitrate: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("EBU R128 loudness: measure (the source's and the output's main audio, recorded), or a target in LUFS (-70 to -5, e.g. -16) the audio is normalised to, true peak at most -1 dBTP.", valueName: "measure|LUFS"))
    var loudness: String?

    /// `--loudness` as parsed (nil when not given or malformed: `validate` refuses that).
    var loudnessTarget: LoudnessTarget? { loudness.flatMap { try? LoudnessTarget(parsing: $0) } }

    @OptionGroup var shape: PictureSoundOptions

    func validate() throws {
        for (option, text) in [("--video-bitrate", videoBitrate), ("--max-bitrate", maxBitrate), ("--audio-bitrate", audioBitrate)] {
            if let text, PresetOverrides.parseRate(text) == nil {
                throw ValidationError("\(option) takes bits/s as a number or with k or M (160000, 64k, 2.5M), got '\(text)'")
            }
        }
        if let text = quality {
            do { _ = try QualityTarget(parsing: text) } catch { throw ValidationError("--quality: \(error.reason)") }
        }
        if let text = loudness {
            do { _ = try LoudnessTarget(parsing: text) } catch { throw ValidationError("--loudness: \(error.reason)") }
        }
    }

    /// `--audio-bitrate` in bits/s: a bare number under 1000 is read as kb/s.
    private var audioRate: Int? {
        guard let text = audioBitrate, let rate = PresetOverrides.parseRate(text) else { return nil }
        return Self.isKilobits(text, rate) ? rate * 1000 : rate
    }

    private static func isKilobits(_ text: String, _ rate: Int) -> Bool { rate < 1000 && text.allSatisfy(\.isNumber) }

    /// What the options were read as, for a note (`--audio-bitrate 96 read as 96 kb/s`).
    var notes: [String] {
        guard let text = audioBitrate, let rate = PresetOverrides.parseRate(text), Self.isKilobits(text, rate) else { return [] }
        return ["--audio-bitrate \(text) read as \(rate) kb/s (\(rate)k; bits/s from 1000 up)"]
    }

    /// The overrides asked for.
    var overrides: PresetOverrides {
        PresetOverrides(crf: crf, encoderPreset: encoderPreset, videoBitrate: videoBitrate.flatMap(PresetOverrides.parseRate),
                        maxBitrate: maxBitrate.flatMap(PresetOverrides.parseRate), audioBitrate: audioRate,
                        maxSize: shape.box, maxFrameRate: shape.fps, channels: shape.channelCount,
                        quality: quality.flatMap { try? QualityTarget(parsing: $0) }, loudness: loudnessTarget?.integrated)
    }
}

/// `--max-height`, `--max-width`, `--max-dimensions`, `--fps`, `--channels` and `--mixdown` (part of
/// `EncodingOverrideOptions`): the picture's box, the frame-rate cap and the channel count, replacing the preset's.
struct PictureSoundOptions: ParsableArguments {
    /// `--mixdown`, HandBrake's names for the channel counts.
    enum Mixdown: String, ExpressibleByArgument, CaseIterable {
        case mono, stereo, fivePointOne = "5point1", sevenPointOne = "7point1"
        var channels: Int { [.mono: 1, .stereo: 2, .fivePointOne: 6, .sevenPointOne: 8][self]! }
    }

    @Option(name: .customLong("max-height"), help: ArgumentHelp("Fit the picture's short side (a landscape picture's height: 720 as in 720p; a portrait one's width) in N pixels, never upscaled; replaces the preset's size.", valueName: "N"))
    var maxHeight: Int?

    @Option(name: .customLong("max-width"), help: ArgumentHelp("Fit the picture's long side (a landscape picture's width) in N pixels, never upscaled; replaces the preset's size.", valueName: "N"))
    var maxWidth: Int?

    @Option(name: .customLong("max-dimensions"), help: ArgumentHelp("Fit the picture in a box as a preset's size does (1280x720 also holds a portrait 720x1280), never upscaled; not with --max-height/--max-width. (--max-size is the file size.)", valueName: "WxH"))
    var maxDimensions: String?

    @Option(help: ArgumentHelp("Most frames per second (1-240), a peak as HandBrake's --pfr: a faster source has frames left out evenly, a slower one keeps its rate.", valueName: "N"))
    var fps: Double?

    @Option(help: ArgumentHelp("Most audio channels (1-8): more are downmixed (5.1 to stereo), fewer kept.", valueName: "N"))
    var channels: Int?

    @Option(help: ArgumentHelp("--channels by HandBrake's name: mono (1), stereo (2), 5point1 (6), 7point1 (8).", valueName: "stereo|mono"))
    var mixdown: Mixdown?

    func validate() throws {
        if maxDimensions != nil && (maxHeight != nil || maxWidth != nil) {
            throw ValidationError("--max-dimensions and --max-height/--max-width contradict each other: give one")
        }
        if let text = maxDimensions, Self.sides(text) == nil {
            throw ValidationError("--max-dimensions takes WIDTHxHEIGHT in pixels (1280x720), got '\(text)'")
        }
        try NumberRange.check("--max-height", maxHeight, 2...16384)
        try NumberRange.check("--max-width", maxWidth, 2...16384)
        if let c = channels, let m = mixdown, c != m.channels {
            throw ValidationError("--channels \(c) and --mixdown \(m.rawValue) contradict each other: give one")
        }
    }

    /// `1280x720` (or `1280:720`) as two numbers.
    static func sides(_ text: String) -> (Int, Int)? {
        let parts = text.lowercased().split(whereSeparator: { $0 == "x" || $0 == ":" || $0 == "×" })
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]) else { return nil }
        return (w, h)
    }

    /// The box asked for: `--max-dimensions` as a preset's box; `--max-height` the short side, `--max-width` the long.
    var box: SizeBox? {
        if let (w, h) = maxDimensions.flatMap(Self.sides) { return SizeBox(w, h) }
        if let maxWidth, let maxHeight { return SizeBox(maxWidth, maxHeight) }
        guard maxWidth != nil || maxHeight != nil else { return nil }
        var box = SizeBox(16384, 16384)
        (box.long, box.short) = (maxWidth ?? 16384, maxHeight ?? 16384)
        return box
    }

    /// `--channels`, or `--mixdown`'s count.
    var channelCount: Int? { channels ?? mixdown?.channels }
}

/// `--audio-language`, `--audio` and `--subtitles` (part of `ExportOptions`).
struct AudioTrackOptions: ParsableArguments {
    /// `--audio`.
    enum AudioChoice: String, ExpressibleByArgument, CaseIterable { case all, first }

    @Option(name: .customLong("audio-language"), help: "Keep only audio streams in these languages (ISO 639 codes, comma-separated: deu,eng).")
    var audioLanguage: String?

    @Option(help: "Which audio streams to keep: all (default) or first.")
    var audio: AudioChoice = .all

    /// `--subtitles`.
    enum SubtitleChoice: String, ExpressibleByArgument, CaseIterable { case keep, drop }

    @Option(help: "Subtitle streams: keep (default: text converted to mov_text for .mp4/.mov/.m4v, webvtt for .webm, copied for .mkv) or drop.")
    var subtitles: SubtitleChoice = .keep

    func validate() throws {
        if let l = audioLanguage, l.split(separator: ",").contains(where: { !(2...3).contains($0.trimmingCharacters(in: .whitespaces).count) || !$0.allSatisfy(\.isLetter) }) {
            throw ValidationError("--audio-language takes ISO 639 codes separated by commas (e.g. deu,eng), got '\(l)'")
        }
    }

    /// The selection asked for.
    var selection: TrackSelection {
        let languages = audioLanguage.map { $0.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } }
        return TrackSelection(audioLanguages: languages, firstAudioOnly: audio == .first, keepSubtitles: subtitles == .keep)
    }
}

/// `--asset-version`, shared by `ExportOptions`, `regress` and `thumbnail`.
struct AssetVersionOption: ParsableArguments {
    @Option(name: .customLong("asset-version"), help: "current (edits applied: rendered edit, else the JSON sidecar, else the original) or original.")
    var assetVersion: AssetVersion = .current
}

/// `--max-size` and `--estimate` (part of `ExportOptions`).
struct SizeLimitOptions: ParsableArguments {
    @Option(name: .customLong("max-size"), help: "Largest output allowed, in bytes or with a unit (400000, 500k, 16MB, 1.5GiB): the video bit rate is chosen to fit and encoded in two passes; exit 1 if it cannot fit.")
    var maxSize: String?

    func validate() throws {
        if let text = maxSize {
            guard let size = ByteSize(parsing: text) else {
                throw ValidationError("--max-size takes a size in bytes or with a unit (400000, 500k, 16MB, 1.5GiB), got '\(text)'")
            }
            if size.bytes < 10_000 { throw ValidationError("--max-size must be at least 10000 bytes, got \(size.bytes)") }
        }
    }

    @Option(help: "How the started record's size estimate is made: plain (from the plan, no extra work; a CRF video's is a guess) or samples (three short sample encodes first: more CPU, up to 2x on a 4 s clip; --max-size always measures).")
    var estimate: SizeEstimation = .plain

    /// The limit asked for, in bytes.
    var bytes: Int64? { maxSize.flatMap { ByteSize(parsing: $0)?.bytes } }
}


/// `--metadata` (part of `ExportOptions`; issue 35).
struct MetadataOption: ParsableArguments {
    @Option(help: "Descriptive metadata to keep: all (default: every tag), sharing (no location in any form, GPS subtitle and telemetry tracks too, owner names, serial numbers or unique identifiers; keeps creation date, make/model/software, title), none (no descriptive tags, no subtitles; rotation, languages, chapter points and timecode stay). Overrides a preset's metadata key.")
    var metadata: MetadataLevel?

    /// `preset` with the level asked for (`all` as nil: the preset's JSON, and so a batch's settings hash, is the one with no option).
    func apply(to preset: Preset) -> Preset {
        guard let metadata else { return preset }
        var out = preset
        out.metadata = metadata == .all ? nil : metadata
        return out
    }
}
