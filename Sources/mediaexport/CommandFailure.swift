import ArgumentParser
import MediaExport

/// A subcommand of the tool: `perform()` does the work and throws what went wrong; `run()` (given here) is the one
/// place a failure becomes a message on stderr and an exit status (`reportFailure`).
protocol ToolCommand: AsyncParsableCommand {
    /// What the command says when its work was cancelled (nil: the error's own description).
    static var cancelledMessage: String? { get }
    /// The command's work.
    func perform() async throws
}

extension ToolCommand {
    static var cancelledMessage: String? { nil }

    mutating func run() async throws {
        do { try await perform() } catch {
            // `--json`: the output ends with one final record, a failure's too (the export's session writes its own).
            if let command = self as? any JSONOutputCommand, command.json, !type(of: command).writesOwnFailure,
               let line = FailureRecord.line(kind: type(of: command).failedKind, error: error) {
                printLine(line)
            }
            throw Self.reportFailure(error)
        }
    }

    /// Says what went wrong, once, on stderr, and gives what to throw instead: the exit status for the library's
    /// errors (a cancellation caused by a signal exits as that signal, 143 for SIGTERM…). `ExitCode`, usage errors and
    /// any other error go on unchanged (to `MediaExportCommand.exitForUsage`).
    static func reportFailure(_ error: any Error) -> any Error {
        switch error {
        case let error as ExportError:
            if case .cancelled = error, let cancelledMessage { printError(cancelledMessage) } else { printError(error.description) }
            return ExitCode(SignalCancellation.exitCode(for: error.exitCode))
        case let error as BatchError:
            printError(error.description)
            return ExitCode(SignalCancellation.exitCode(for: error.exitCode))
        default:
            return error
        }
    }
}
