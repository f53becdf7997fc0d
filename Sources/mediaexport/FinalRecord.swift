import ArgumentParser
import Foundation
import MediaExport

/// A subcommand with `--json`: whatever happens, its stdout ends with one final record (docs/json-events.md): its
/// own on success, a failure record when it fails, a command line that does not parse included.
protocol JSONOutputCommand {
    /// `--json` was given.
    var json: Bool { get }
    /// The kind of the failure record: `failed` (the export's record), `batchFailed`, `regressFailed`.
    static var failedKind: String { get }
    /// True when the command's work writes its failure record itself (an export's session does).
    static var writesOwnFailure: Bool { get }
}

extension JSONOutputCommand {
    static var failedKind: String { "failed" }
    static var writesOwnFailure: Bool { false }
}

extension Export: JSONOutputCommand { static var writesOwnFailure: Bool { true } }
extension Batch: JSONOutputCommand { static var failedKind: String { "batchFailed" } }
extension Regress: JSONOutputCommand { static var failedKind: String { "regressFailed" } }
extension Probe: JSONOutputCommand {}
extension Presets: JSONOutputCommand {}
extension Resources: JSONOutputCommand {}
extension Thumbnail: JSONOutputCommand {}
extension Formats: JSONOutputCommand {}

/// The failure record every `--json` command ends with when it fails: the export's `failed` payload (`error`,
/// `message`, `stage`, `path`, `exitCode`) under the command's kind.
enum FailureRecord {
    /// The record for a command line that does not parse: error `usage`, exit 64, ArgumentParser's first line.
    static func usage(kind: String, message: String) -> String { record(kind: kind, error: .usage(reason: message)) }

    /// The record for `error`, or nil when the command already ended with its own final record (an `ExitCode`: a
    /// batch or regress run that finished and exits non-zero).
    static func line(kind: String, error: any Error) -> String? {
        switch error {
        case is ExitCode, is CleanExit: return nil
        case let e as ExportError: return record(kind: kind, error: e)
        case let e as BatchError:
            let payload: [String: JSONValue] = ["error": .string("batchRefused"), "message": .string(e.description), "stage": .string("write"),
                                                "exitCode": .number(Double(e.exitCode))]
            return JSONLine.shown(kind, JSONValue.object(payload))
        default:
            return record(kind: kind, error: ExportError.usage(reason: MediaExportCommand.usageLine(for: error)))
        }
    }

    private static func record(kind: String, error: ExportError) -> String {
        var line = ExportEvent.failed(.init(error)).line
        line.setPayload("exitCode", .number(Double(SignalCancellation.exitCode(for: error.exitCode))))  // a cancellation exits as its signal
        return JSONLine.shown(kind, line.payload)
    }
}
