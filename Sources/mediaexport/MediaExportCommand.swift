import ArgumentParser
import Foundation
import MediaExport

/// The `mediaexport` tool: parses arguments and renders events; all work happens in the MediaExport library.
@main
struct MediaExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mediaexport",
        abstract: "Export video and audio with presets, on FFmpeg's libraries.",
        discussion: """
        Examples:
          mediaexport --preset highest in.mov out.mp4
          mediaexport --preset 1280x720 --start 5 --end 15 clip.mov part.mp4
          mediaexport --preset 1280x720 --start 5 --duration 10 clip.mov part.mp4
          mediaexport --preset 1280x720 --crf 28 --audio-bitrate 96k in.mov out.mp4
          mediaexport presets
          mediaexport probe --json in.mov
        """,
        version: "mediaexport \(MediaExportVersion.string)\n" + ToolProcess.ffmpegVersionLines.joined(separator: "\n")
            + "\nFFmpeg \(ToolProcess.ffmpegRelease)",
        subcommands: [Export.self, Batch.self, Regress.self, Package.self, Thumbnail.self, Presets.self, Probe.self, Resources.self, Report.self, Formats.self],
        defaultSubcommand: Export.self
    )

    /// The entry point: a closed pipe must be an error to handle (EPIPE), never a signal that kills the
    /// process mid-export and leaves a temporary file behind.
    static func main() async {
        signal(SIGPIPE, SIG_IGN)
        keepLargeAllocationsOutOfTheHeap()
        let arguments = losslessArguments()
        var command: ParsableCommand
        do {
            command = try parseAsRoot(arguments)
        } catch {
            // `--json` promises one final record: a command line that does not parse gets one too.
            if exitCode(for: error).rawValue == ExitStatus.usage, let json = jsonCommand(arguments) {
                // The same line as on stderr: a habit's pointer, else ArgumentParser's message.
                var message = fullMessage(for: error).split(separator: "\n").first.map(String.init) ?? "invalid command line"
                if message.hasPrefix("Error: ") { message.removeFirst(7) }
                if let pointer = HabitPointer.pointer(in: arguments) { message = pointer }
                printLine(FailureRecord.usage(kind: json.failedKind, message: message))
            }
            exitForUsage(error, guess: mistypedSubcommand(arguments))
        }
        do {
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            exitForUsage(error)
        }
    }

    /// A mistyped subcommand reads as the default export's input: what it probably was, as a message
    /// (`'presest' is neither a file nor a subcommand: did you mean 'presets'?`), or nil.
    static func mistypedSubcommand(_ arguments: [String]) -> String? {
        let names = configuration.subcommands.map { $0._commandName }
        guard let first = arguments.first, !first.hasPrefix("-"), !names.contains(first), !FileManager.default.fileExists(atPath: first),
              let guess = Suggestion.closest(to: first, in: names) else { return nil }
        return "'\(first)' is neither a file nor a subcommand: did you mean '\(guess)'?"
    }

    /// Fixes glibc's mmap threshold at 2 MiB, so that large frame buffers (a 1080p luma plane, every plane of 4K)
    /// get their own mappings and go back to the system when freed. Left to itself glibc raises the threshold to the
    /// size of the largest mapped block freed so far (up to 32 MiB): after probing and the sample encodes free
    /// their frames, every later frame is carved from the brk heap, whose freed holes stay resident (measured on a
    /// 1080p H.264 source → 1280x720: peak RSS 234 → 214 MiB). Not lower: a camera's packets (about 0.4-1.5 MiB at
    /// 100 Mb/s), and the H.264 parser's copy of each one, are allocated and freed once a frame; under a 512 KiB
    /// threshold each got fresh pages from the kernel, zeroed, faulted in and unmapped again (12 600 more page
    /// faults than the ffmpeg CLI on a 4 s clip, 0.07 s of system time), where the heap reuses the same memory.
    /// A process-wide setting, so it belongs to the tool, not to the library.
    static func keepLargeAllocationsOutOfTheHeap() {
        ToolProcess.fixMmapThreshold(2 * 1024 * 1024)
    }

    /// The command the arguments run when it has `--json` and they ask for it (the default subcommand is export).
    static func jsonCommand(_ arguments: [String]) -> (any JSONOutputCommand.Type)? {
        guard arguments.contains("--json") else { return nil }
        let named = arguments.first.flatMap { first in configuration.subcommands.first { $0._commandName == first } }
        return (named ?? Export.self) as? any JSONOutputCommand.Type
    }
}

/// Writes one line to stderr, escaped (`TerminalText`): a name or message cannot add a line or drive the terminal.
func printError(_ message: String) {
    writeAll(2, "mediaexport: " + TerminalText.escaped(message) + "\n")
}

/// Writes lines for people on stdout, each escaped (`TerminalText`).
func printHuman(_ lines: String...) {
    printLine(TerminalText.lines(lines))
}

/// Writes one line to stdout (unbuffered: JSON Lines readers read as we go).
func printLine(_ line: String) {
    writeAll(1, line + "\n")
}

/// Writes all of `text` to `fd` with write(2), retrying short writes and EINTR. When the reader has gone
/// (EPIPE: `mediaexport --json … | head -1`), nothing more is written there and the work in progress is
/// cancelled as if by SIGPIPE (`SignalCancellation.outputClosed`).
func writeAll(_ fd: Int32, _ text: String) {
    if OutputStreams.isClosed(fd) { return }
    if !writeFully(fd, text) && errno == EPIPE {
        OutputStreams.markClosed(fd)
        SignalCancellation.outputClosed()
    }
}

/// Which of stdout and stderr lost their reader.
enum OutputStreams {
    private static let closed = LockedBox<Set<Int32>>([])
    static func isClosed(_ fd: Int32) -> Bool { closed.withLock { $0.contains(fd) } }
    static func markClosed(_ fd: Int32) { closed.withLock { _ = $0.insert(fd) } }
}

/// Writes a value as pretty, key-sorted JSON on stdout (`--json` of presets, probe, resources, thumbnail). `times`:
/// its times to the millisecond (`JSONTime`), as a record's (the thumbnail's line); a document that describes a file
/// (probe) keeps the precision its container has.
func printJSON<T: Encodable>(_ value: T, pretty: Bool = true, times: Bool = false) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = pretty ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
    let data = times ? try JSONTime.encode(value, pretty: pretty) : try encoder.encode(value)
    printLine(String(decoding: data, as: UTF8.self))
}

/// `value` as pretty JSON with `--json`, else as `text` renders it for people (probe, resources, formats).
func printJSON<T: Encodable>(_ value: T, or text: (T) -> String, json: Bool) throws {
    if json { try printJSON(value) } else { printLine(text(value)) }
}
