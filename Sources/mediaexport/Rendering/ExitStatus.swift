import MediaExport

/// Process exit codes of the `mediaexport` tool (sysexits-style where one fits). The library reports what
/// happened (`ExportError`, `BatchOutcome`, `BatchError`); only the tool turns that into a number.
enum ExitStatus {
    /// Success.
    static let success: Int32 = 0
    /// The export ran and failed in FFmpeg (decode, encode, mux).
    static let exportFailed: Int32 = 1
    /// Bad command line or bad time range.
    static let usage: Int32 = 64
    /// The input is not media, or has nothing the preset can use.
    static let notMedia: Int32 = 65
    /// The input is missing or unreadable.
    static let inputUnreadable: Int32 = 66
    /// The output was refused: exists, is the input, escapes the sandbox, or cannot be written.
    static let outputRefused: Int32 = 73
    /// The preset is unknown or its file is invalid.
    static let badPreset: Int32 = 78
    /// An edit sidecar is invalid.
    static let badSidecar: Int32 = 79
    /// The asked-for version cannot be delivered (`--require-current` without renderable edits, or an edit
    /// passthrough cannot apply).
    static let versionUnavailable: Int32 = 80
    /// The export completed, but by a fallback (remux or byte copy) instead of the transcode asked for.
    static let completedWithFallback: Int32 = 3
    /// `regress` found a regression, a sample missing from the baseline, or a sample that failed to export.
    static let regression: Int32 = 4
    /// Cancelled by SIGINT (or the API).
    static let cancelledByInterrupt: Int32 = 130
    /// Cancelled by SIGTERM.
    static let cancelledByTerminate: Int32 = 143

    /// The code for an error of this kind (the README's table).
    static func code(for kind: ExportError.Kind) -> Int32 {
        switch kind {
        case .inputUnreadable: return inputUnreadable
        case .notMedia, .noUsableStreams: return notMedia
        case .invalidTimeRange, .usage: return usage
        case .presetNotFound, .invalidPreset: return badPreset
        case .invalidSidecar: return badSidecar
        case .versionUnavailable, .editNeedsTranscode: return versionUnavailable
        case .outputExists, .outputNotOwned, .outputIsInput, .outputOutsideSandbox, .outputUnwritable: return outputRefused
        case .ffmpeg, .tooManyDecodeErrors, .truncated, .stalled, .inputChanged, .copyMismatch, .verificationFailed, .planMismatch, .sizeLimitExceeded: return exportFailed
        case .cancelled: return cancelledByInterrupt
        }
    }

    /// The code for a batch's outcome.
    static func code(for outcome: BatchOutcome) -> Int32 {
        switch outcome {
        case .cancelled: return cancelledByInterrupt
        case .noMedia: return inputUnreadable
        case .failed: return exportFailed
        case .completedWithFallback: return completedWithFallback
        case .completed: return success
        }
    }
}

extension ExportError {
    /// The tool's exit code for this error.
    var exitCode: Int32 { ExitStatus.code(for: kind) }
}

extension BatchError {
    /// 73 (the output was refused) for every case: another batch holds the folder, its state file is unsafe, a foreign
    /// output, or the folder holds the database of another shard layout.
    var exitCode: Int32 { ExitStatus.outputRefused }
}

extension BatchResult {
    /// The tool's exit code for this batch.
    var exitCode: Int32 { ExitStatus.code(for: outcome) }
}
