internal import CFFmpeg
internal import CFFmpegLog
import Foundation
import Synchronization
import MediaExportCore

/// FFmpeg's error text for a negative return code, with the last error line FFmpeg logged when there is one
/// (it often holds the real cause).
func ffmpegMessage(_ code: Int32) -> String {
    var buffer = [CChar](repeating: 0, count: Int(AV_ERROR_MAX_STRING_SIZE))
    let text = av_strerror(code, &buffer, buffer.count) < 0 ? "FFmpeg error \(code)" : cText(buffer)
    if let logged = FFmpegLog.takeLastError(), logged != text { return "\(text) (\(logged))" }
    return text
}

/// Error codes the pipeline treats as control flow rather than failure.
enum AVCode {
    static let again = cff_averror_eagain()
    static let eof = cff_averror_eof()
    static let exit = cff_averror_exit()
    static let invalidData = cff_averror_invaliddata()
    static let noPTS = cff_nopts_value()
    static let noMemory = -ENOMEM
    /// `AVERROR_PATCHWELCOME`: a feature the decoder lacks, not damage.
    static let notImplemented: Int32 = -Int32(bitPattern: UInt32(0x50) | UInt32(0x41) << 8 | UInt32(0x57) << 16 | UInt32(0x45) << 24)

    /// True when a decoder's error on a packet is damage in that packet, as the ffmpeg CLI takes it (it decodes on):
    /// any error but running out of memory, a cancellation or a feature the decoder lacks (EAGAIN and EOF are
    /// control flow, never errors here).
    /// FFmpeg's decoders answer corrupt data with `AVERROR_INVALIDDATA`, but some with a bare `-1` (EPERM: AAC's
    /// `decode_pce` on a flipped bit) or another code.
    static func isDamage(_ code: Int32) -> Bool { code < 0 && code != noMemory && code != exit && code != again && code != eof
        && code != notImplemented && code != -ENOSYS }
}

/// Throws `ExportError.ffmpeg` when `code` is negative.
@discardableResult
func check(_ code: Int32, _ stage: ExportStage, _ path: String, _ what: String) throws -> Int32 {
    if code < 0 {
        if code == AVCode.exit { throw ExportError.cancelled }
        throw ExportError.ffmpeg(stage: stage, path: path, code: code, message: "\(what): \(ffmpegMessage(code))")
    }
    return code
}

/// What a codec's receive or a filter graph's pull produced: output (in the frame or packet given), or none until
/// more input, or none ever again.
enum Received { case ready, needsInput, ended }

/// A receive's or a pull's result code as control flow (`again`: more input; `eof`: ended); a failure throws (`check`).
func received(_ code: Int32, _ stage: ExportStage, _ path: String, _ what: @autoclosure () -> String) throws -> Received {
    if code == AVCode.again { return .needsInput }
    if code == AVCode.eof { return .ended }
    if code < 0 { try check(code, stage, path, what()) }
    return .ready
}

/// The versions of the FFmpeg libraries loaded at run time, e.g. "libavformat 59.27.100".
public enum FFmpegVersions {
    /// A library version number as FFmpeg writes it (`8.44.100`).
    static func format(_ v: UInt32) -> String { "\(v >> 16).\((v >> 8) & 0xff).\(v & 0xff)" }
    /// One line per library.
    public static var lines: [String] {
        [("libavformat", cff_avformat_version()), ("libavcodec", cff_avcodec_version()), ("libavutil", cff_avutil_version()),
         ("libswscale", cff_swscale_version()), ("libswresample", cff_swresample_version()),
         ("libavfilter", cff_avfilter_version())]
            .map { "\($0.0) \(format($0.1))" }
    }
    /// FFmpeg's release string (e.g. "5.1.6-0+deb12u1").
    public static var release: String { String(cString: av_version_info()) }
}

/// Makes FFmpeg's own logging quiet; the library reports errors itself.
public enum FFmpegLog {
    /// Shows FFmpeg's errors on stderr (verbose) or nothing at all (default).
    public static func setVerbose(_ verbose: Bool) {
        cff_install_log(verbose ? cff_log_warning() : cff_log_quiet())
        configured.store(true, ordering: .relaxed)
    }

    /// The last error FFmpeg logged on this thread (then forgotten), if any.
    static func takeLastError() -> String? {
        var buf = [CChar](repeating: 0, count: 512)
        cff_take_last_error(&buf, Int32(buf.count))
        let s = cText(buf).trimmingCharacters(in: .whitespacesAndNewlines)
        return s.isEmpty ? nil : s
    }

    /// Set once a caller chose; read by every demuxer open (any thread).
    private static let configured = Atomic<Bool>(false)

    /// How severe an FFmpeg line is.
    public enum Level: Sendable { case error, warning, info }

    /// Where FFmpeg's lines go when a host takes them (`forward(to:)`).
    private static let lineSink = LockedBox<(@Sendable (Level, String) -> Void)?>(nil)

    /// Sends FFmpeg's warnings and errors (as one line each, `[h264 @ 0x…] …`) to `sink` instead of stderr — a server
    /// logs them with its own logger; nil stops that.
    public static func forward(to sink: (@Sendable (Level, String) -> Void)?) {
        lineSink.withLock { $0 = sink }
        configured.store(true, ordering: .relaxed)
        if sink == nil { cff_set_log_sink(nil, 0); return }
        cff_set_log_sink({ level, line in
            guard let line else { return }
            let text = String(cString: line)
            let severity: Level = level <= cff_log_error() ? .error : level <= cff_log_warning() ? .warning : .info
            FFmpegLog.lineSink.withLock { $0 }?(severity, text)
        }, cff_log_warning())
    }

    /// Quiet unless a caller chose otherwise: a library must not write to the host's stderr.
    static func applyDefault() {
        if !configured.load(ordering: .relaxed) { setVerbose(false) }
    }
}

/// FFmpeg error codes the layers above name without importing FFmpeg.
package enum FFmpegCodes {
    /// `AVERROR_DECODER_NOT_FOUND`.
    package static var decoderNotFound: Int32 { cff_averror_decoder_not_found() }
}

/// The text of a NUL-terminated C buffer FFmpeg filled (UTF-8; bytes that are not become U+FFFD).
func cText(_ buffer: [CChar]) -> String {
    String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
