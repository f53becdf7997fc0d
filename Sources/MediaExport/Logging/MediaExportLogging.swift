import Logging
import MediaExportCore
import MediaExportFFmpeg

/// What the library logs through swift-log, for a server embedding it (the events say the same to a caller that
/// follows them). An `ExportSession` logs to the `logger` it is given (none by default: `silent`), with the
/// input and output as metadata:
/// - `info`: an export started (route, preset) and completed (bytes, route, verification);
/// - `notice`: each warning of a completed export (everything dropped or changed, with its count and reason);
/// - `warning`: a fallback to the next route and why (a decode failure, a verification that failed, a stall);
/// - `error`: an export that failed, with the error's one line.
/// FFmpeg's own warnings and errors reach a logger only when asked (`forwardFFmpegLog(to:)`); otherwise the library
/// keeps FFmpeg quiet and reports errors itself.
public enum MediaExportLogging {
    /// A logger that drops everything: a session's default (pass `Logger(label: "mediaexport")` to log).
    public static let silent = Logger(label: "mediaexport", factory: { _ in SwiftLogNoOpLogHandler() })

    /// Sends FFmpeg's warnings and errors (one line each, `[h264 @ 0x…] …`) to `logger` (label `ffmpeg` by default)
    /// instead of nowhere. The CLI does this for `--verbose`.
    public static func forwardFFmpegLog(to logger: Logger = Logger(label: "ffmpeg")) {
        FFmpegLog.forward { level, line in
            switch level {
            case .error: logger.error("\(line)")
            case .warning: logger.warning("\(line)")
            case .info: logger.info("\(line)")
            }
        }
    }

    /// Stops forwarding FFmpeg's lines (FFmpeg is quiet again).
    public static func stopForwardingFFmpegLog() {
        FFmpegLog.forward(to: nil)
        FFmpegLog.setVerbose(false)
    }
}
