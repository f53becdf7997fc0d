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
/// applied on top of the preset by the library (`Preset.applying`), which checks them as preset file keys.
struct EncodingOverrideOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Constant rate factor, 0-51 (lower is better): replaces the preset's (or its average bit rate).", valueName: "N"))
    var crf: Int?

    @Option(name: .customLong("encoder-preset"), help: ArgumentHelp("x264/x265 speed: ultrafast, superfast, veryfast, faster, fast, medium, slow, slower, veryslow, placebo.", valueName: "NAME"),
            completion: .list(VideoCodec.h264.profile.speeds))
    var encoderPreset: String?

    @Option(name: .customLong("video-bitrate"), help: ArgumentHelp("Average video bit rate instead of the CRF (64k, 2.5M, 160000 bits/s); not with --crf.", valueName: "RATE"))
    var videoBitrate: String?

    @Option(name: .customLong("max-bitrate"), help: ArgumentHelp("Ceiling on the video bit rate (x264/x265 VBV, ffmpeg's -maxrate), e.g. 4M.", valueName: "RATE"))
    var maxBitrate: String?

    @Option(name: .customLong("audio-bitrate"), help: ArgumentHelp("AAC bit rate, e.g. 64k or 160000.", valueName: "RATE"))
    var audioBitrate: String?

    func validate() throws {
        for (option, text) in [("--video-bitrate", videoBitrate), ("--max-bitrate", maxBitrate), ("--audio-bitrate", audioBitrate)] {
            if let text, PresetOverrides.parseRate(text) == nil {
                throw ValidationError("\(option) takes bits/s as a number or with k or M (160000, 64k, 2.5M), got '\(text)'")
            }
        }
    }

    /// The overrides asked for.
    var overrides: PresetOverrides {
        PresetOverrides(crf: crf, encoderPreset: encoderPreset, videoBitrate: videoBitrate.flatMap(PresetOverrides.parseRate),
                        maxBitrate: maxBitrate.flatMap(PresetOverrides.parseRate), audioBitrate: audioBitrate.flatMap(PresetOverrides.parseRate))
    }
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

    @Option(help: "How the started record's size estimate is made: plain (from the plan, no extra work; a CRF video's is a guess) or samples (three short sample encodes first, 3-25 % more CPU; --max-size always measures).")
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
