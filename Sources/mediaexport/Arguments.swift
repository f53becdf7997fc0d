import ArgumentParser
import Foundation
import Logging
import MediaExport

extension MediaExportCommand {
    /// The command line as given, without argv[0]. File names are bytes: Swift's `CommandLine.arguments`
    /// repairs arguments that are not UTF-8 (a Latin-1 `caf\xE9.mp4` would become `caf\u{FFFD}.mp4`, a file that
    /// does not exist), so the raw `argv` is decoded losslessly with `FileName` instead; the library turns each
    /// path back into its exact bytes.
    static func losslessArguments() -> [String] {
        let argv = CommandLine.unsafeArgv
        return (1..<Int(CommandLine.argc)).compactMap { argv[$0].map { FileName.decode(cString: $0) } }
    }
}

/// `--audio-language`, `--audio` and `--subtitles`, shared by `export` and `batch`.
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

/// `--asset-version`, shared by `batch`, `regress` and `thumbnail` (`export` explains it at length).
struct AssetVersionOption: ParsableArguments {
    @Option(name: .customLong("asset-version"), help: "current or original.")
    var assetVersion: AssetVersion = .current
}

/// `--max-size` and `--estimate`, shared by `export` and `batch`.
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

extension SizeEstimation: ExpressibleByArgument {}
extension PipelineMode: ExpressibleByArgument {}

/// A time on the command line: seconds (`90`, `2.5`) or `[HH:]MM:SS[.mmm]` (`1:30`, `0:00:02.5`), as ffmpeg and
/// HandBrake take them. A negative time is parsed (so that it gets a real message, not "Missing value") and refused
/// by the command's validation.
struct TimeArgument: ExpressibleByArgument, Equatable {
    var seconds: Double

    init?(argument: String) {
        guard let s = TimeArgument.parse(argument) else { return nil }
        seconds = s
    }

    /// Seconds for `text`, or nil when it is not a time.
    static func parse(_ text: String) -> Double? {
        var t = text.trimmingCharacters(in: .whitespaces)
        var sign = 1.0
        if t.hasPrefix("-") { sign = -1; t.removeFirst() }
        let parts = t.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count), parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isASCII && ($0.isNumber || $0 == ".") } }) else { return nil }
        // Only the last part may have a fraction; minutes and seconds after the first part are below 60.
        guard parts.dropLast().allSatisfy({ !$0.contains(".") }) else { return nil }
        var total = 0.0
        for (k, part) in parts.enumerated() {
            guard let v = Double(part), v.isFinite else { return nil }
            if k > 0 && v >= 60 { return nil }
            total = total * 60 + v
        }
        return sign * total
    }

    static var defaultCompletionKind: CompletionKind { .default }
}

/// The tool's side of swift-log: the library's log (and FFmpeg's lines) on stderr with `--verbose`; otherwise nothing,
/// since the tool renders the events itself.
enum CLILogging {
    static func bootstrap(verbose: Bool) {
        LoggingSystem.bootstrap { label in
            var handler = EscapingLogHandler(StreamLogHandler.standardError(label: label))
            handler.logLevel = verbose ? .info : .critical
            return handler
        }
        if verbose { MediaExportLogging.forwardFFmpegLog() } else { MediaExportLogging.stopForwardingFFmpegLog() }
    }
}

/// A log handler that escapes each message (`TerminalText`) before `inner` writes it: the library logs names and
/// FFmpeg's lines, which must not add lines or drive the terminal either.
struct EscapingLogHandler<Inner: LogHandler>: LogHandler {
    var inner: Inner
    init(_ inner: Inner) { self.inner = inner }

    var logLevel: Logger.Level { get { inner.logLevel } set { inner.logLevel = newValue } }
    var metadata: Logger.Metadata { get { inner.metadata } set { inner.metadata = newValue } }
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { inner[metadataKey: key] }
        set { inner[metadataKey: key] = newValue }
    }

    func log(event: LogEvent) {
        var event = event
        event.message = "\(TerminalText.escaped(event.message.description))"
        event.metadata = event.metadata?.mapValues { .string(TerminalText.escaped($0.description)) }
        inner.log(event: event)
    }
}

extension MetadataLevel: ExpressibleByArgument {}

/// `--metadata`, shared by `export` and `batch` (issue 35).
struct MetadataOption: ParsableArguments {
    @Option(help: "Descriptive metadata to keep: all (default, every tag as today), sharing (no location in any form, owner names, serial numbers or unique identifiers; keeps creation date, make/model/software, title), none (no descriptive tags; rotation, languages, chapters and timecode stay). Overrides a preset's metadata key.")
    var metadata: MetadataLevel?

    /// `preset` with the level asked for (`all` as nil: a preset's JSON, and so a batch's settings hash, as before).
    func apply(to preset: Preset) -> Preset {
        guard let metadata else { return preset }
        var out = preset
        out.metadata = metadata == .all ? nil : metadata
        return out
    }
}
