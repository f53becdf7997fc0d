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
}

/// The tool's side of swift-log: the library's log (and FFmpeg's lines) on stderr with `--verbose`, and in the
/// `--log` file; otherwise nothing, since the tool renders the events itself.
enum CLILogging {
    static func bootstrap(verbose: Bool, file: LogFile? = nil) {
        LoggingSystem.bootstrap { label in
            var handler = EscapingLogHandler(StreamLogHandler.standardError(label: label))
            handler.logLevel = verbose ? .info : .critical
            guard let file else { return handler }
            return MultiplexLogHandler([handler, EscapingLogHandler(FileLogHandler(label: label, file: file))])
        }
        if verbose || file != nil { MediaExportLogging.forwardFFmpegLog() } else { MediaExportLogging.stopForwardingFFmpegLog() }
    }
}

/// The `--log` file, opened for appending (a ticket's log collects every run; each run starts with its command line):
/// the log lines and the events as JSON Lines, in the order they came.
final class LogFile: Sendable {
    private let fd: Int32

    /// Opens `path` for appending, created if missing; nil (with `errno`) when it cannot be.
    init?(path: String) {
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return nil }
        self.fd = fd
    }

    deinit { close(fd) }

    /// Appends `line` and a newline (one write: lines from several threads do not interleave).
    func write(_ line: String) { _ = writeFully(fd, line + "\n") }

    /// The file for `--log`, or nil without it; a file that cannot be opened is a refused output (exit 73).
    static func opened(_ path: String?) throws -> LogFile? {
        guard let path else { return nil }
        guard let file = LogFile(path: path) else {
            printError("cannot open the log file \(path): \(String(cString: strerror(errno)))")
            throw ExitCode(ExitStatus.outputRefused)
        }
        file.write("# mediaexport " + MediaExportCommand.losslessArguments().joined(separator: " "))
        return file
    }
}

/// Writes each message to the `--log` file at `info` and above: a time, the level, the label, the message.
struct FileLogHandler: LogHandler {
    let label: String
    let file: LogFile
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let all = metadata.merging(event.metadata ?? [:]) { $1 }
        let tail = all.isEmpty ? "" : " " + all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        file.write("\(Date().ISO8601Format()) \(event.level) \(label):\(tail) \(event.message)")
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

/// The ranges of the numeric options: a value outside its range, or not a number at all (`nan`, `inf`, which no
/// closed range of finite bounds contains), is a usage error naming the option.
enum NumberRange {
    /// Throws a `ValidationError` when `value` is given and outside `range`.
    static func check<T: Comparable>(_ option: String, _ value: T?, _ range: ClosedRange<T>) throws {
        guard let value, !range.contains(value) else { return }
        throw ValidationError("\(option) must be from \(shown(range.lowerBound)) to \(shown(range.upperBound)), got \(shown(value))")
    }

    /// A whole number of seconds or a ratio without its `.0`.
    private static func shown<T>(_ value: T) -> String {
        guard let double = value as? Double, double.isFinite, double == double.rounded(), abs(double) < 1e15 else { return "\(value)" }
        return String(Int64(double))
    }
}
