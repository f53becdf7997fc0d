import Foundation
import MediaExportFFmpeg
internal import CFFmpegLog

/// What a command-line tool built on the library asks of its process and of FFmpeg's build, so that the tool imports
/// nothing below `MediaExport`: versions to show, FFmpeg's log, the allocator, signals, the terminal, temporary files.
public enum ToolProcess {
    /// One line per FFmpeg library loaded at run time (`libavformat 59.27.100`).
    public static var ffmpegVersionLines: [String] { FFmpegVersions.lines }

    /// FFmpeg's release string (`5.1.9-0+deb12u1`).
    public static var ffmpegRelease: String { FFmpegVersions.release }

    /// FFmpeg logs nothing of its own on stderr (the library reports errors itself).
    public static func quietFFmpegLog() { FFmpegLog.setVerbose(false) }

    /// Fixes glibc's mmap threshold at `bytes` (mallopt), so that blocks that large get their own mappings and go back
    /// to the system when freed; false where there is no such setting.
    @discardableResult
    public static func fixMmapThreshold(_ bytes: Int32) -> Bool { cff_fix_mmap_threshold(bytes) == 1 }

    /// Installs a handler for each of `signals` that writes the signal's number (one byte) to a non-blocking pipe, and
    /// returns the pipe's read end (the same on every call), or -1.
    public static func installSignalPipe(_ signals: [Int32]) -> Int32 {
        signals.withUnsafeBufferPointer { cff_signal_pipe_install($0.baseAddress, Int32($0.count)) }
    }

    /// The width in columns of the terminal on `fd`, or 0 when `fd` is no terminal or does not say.
    public static func terminalColumns(_ fd: Int32) -> Int { Int(cff_terminal_columns(fd)) }

    /// Removes every temporary file in flight (before the process exits on a second signal or a closed pipe).
    public static func removeTemporaryFiles() { TemporaryFiles.shared.removeAll() }
}
