import ArgumentParser
import Foundation

extension MediaExportCommand {
    /// A command line that does not parse (or fails a check before any work): one line on stderr, as every other error
    /// (`mediaexport: unknown option '--ned' (did you mean '--end'?)`), and exit 64. ArgumentParser's usage text and
    /// "See --help" lines are left out: `--help` shows them. An ffmpeg or HandBrakeCLI habit gets a pointer to
    /// ours instead (`HabitPointer`: `unknown option '-ss' (ffmpeg): use --start 2`). Other outcomes of parsing (`--help`, `--version`) are
    /// ArgumentParser's own.
    static func exitForUsage(_ error: any Error, guess: String? = nil) -> Never {
        guard !(error is ExitCode), exitCode(for: error).rawValue == ExitStatus.usage else {
            if let guess { printError(guess) }
            exit(withError: error)
        }
        printError(guess ?? HabitPointer.pointer(in: losslessArguments()) ?? usageLine(for: error))
        Foundation.exit(ExitStatus.usage)
    }

    /// ArgumentParser's message for a usage error on one line: its lines joined with "; ", the first letter of a word
    /// in lower case as in the tool's other messages, and a suggestion in parentheses.
    static func usageLine(for error: any Error) -> String {
        let lines = message(for: error).split(separator: "\n").map { line -> String in
            var text = line.trimmingCharacters(in: .whitespaces)
            if let r = text.range(of: ". Did you mean ") {
                text.replaceSubrange(r, with: " (did you mean ")
                text += ")"
            }
            return text
        }
        var text = lines.filter { !$0.isEmpty }.joined(separator: "; ")
        if text.count > 1, let first = text.first, first.isUppercase, text.dropFirst().first?.isLowercase == true {
            text = first.lowercased() + text.dropFirst()
        }
        return text.isEmpty ? "invalid command line" : text
    }
}
