import CFFmpeg
import Foundation

/// Stage 1: opens the input container and reads its packets, one at a time (never the whole file).
final class Demuxer {
    private(set) var context: UnsafeMutablePointer<AVFormatContext>
    let path: String
    /// The file's identity, size and modification time when it was opened.
    private var opened = stat()

    /// Opens `path` and reads stream information. `interrupt` is polled by FFmpeg during blocking reads.
    init(path: String, interrupt: UnsafeMutablePointer<Int32>?) throws {
        self.path = path
        FFmpegLog.applyDefault()
        var attrs = stat()
        if stat(path, &attrs) != 0 {
            throw ExportError.inputUnreadable(path: path, reason: String(cString: strerror(errno)))
        }
        if (attrs.st_mode & S_IFMT) == S_IFDIR {
            throw ExportError.inputUnreadable(path: path, reason: "is a directory")
        }
        // FIFOs and devices can block a read forever, out of the watchdog's reach: regular files only.
        if (attrs.st_mode & S_IFMT) != S_IFREG {
            throw ExportError.inputUnreadable(path: path, reason: "not a regular file")
        }
        opened = attrs
        if access(path, R_OK) != 0 {
            throw ExportError.inputUnreadable(path: path, reason: String(cString: strerror(errno)))
        }
        if attrs.st_size == 0 {
            throw ExportError.notMedia(path: path, reason: "file is empty (0 bytes)")
        }
        var ctx: UnsafeMutablePointer<AVFormatContext>? = avformat_alloc_context()
        guard let allocated = ctx else { fatalError("avformat_alloc_context: out of memory") }
        if let interrupt { cff_set_interrupt(allocated, interrupt) }
        let openCode = avformat_open_input(&ctx, path, nil, nil)
        if openCode < 0 {
            // avformat_open_input frees the context on failure.
            if openCode == AVCode.exit { throw ExportError.cancelled }
            throw ExportError.notMedia(path: path, reason: ffmpegMessage(openCode))
        }
        context = ctx!
        let infoCode = avformat_find_stream_info(context, nil)
        if infoCode < 0 {
            // Every stored property is set, so throwing runs deinit, which closes the input (exactly once).
            if infoCode == AVCode.exit { throw ExportError.cancelled }
            throw ExportError.notMedia(path: path, reason: "cannot read stream information: \(ffmpegMessage(infoCode))")
        }
    }

    deinit {
        var c: UnsafeMutablePointer<AVFormatContext>? = context
        avformat_close_input(&c)
    }

    /// The streams of the input.
    var streams: [UnsafeMutablePointer<AVStream>] {
        (0..<Int(context.pointee.nb_streams)).compactMap { context.pointee.streams[$0] }
    }

    /// The container's duration in seconds, if known.
    var duration: Double? {
        let d = context.pointee.duration
        return d > 0 && d != AVCode.noPTS ? Double(d) / Double(AV_TIME_BASE) : nil
    }

    /// The container's start time in seconds (0 when unknown).
    var startTime: Double {
        let s = context.pointee.start_time
        return s == AVCode.noPTS ? 0 : Double(s) / Double(AV_TIME_BASE)
    }

    /// Result of reading one packet.
    enum ReadResult { case packet, endOfFile }

    /// Reads the next packet into `packet`; end of file is a result, not an error.
    func read(into packet: Packet) throws -> ReadResult {
        let code = av_read_frame(context, packet.pointer)
        if code == AVCode.eof { return .endOfFile }
        if code == AVCode.exit { throw ExportError.cancelled }
        if code < 0 {
            // A read error at the end of a truncated file is treated as its end by ffmpeg as well.
            if avio_feof(context.pointee.pb) != 0 { return .endOfFile }
            throw ExportError.ffmpeg(stage: .decode, path: path, code: code, message: "reading packet: \(ffmpegMessage(code))")
        }
        return .packet
    }

    /// Seeks so that reading starts at the keyframe at or before `seconds` (on the container's timeline).
    func seek(toSeconds seconds: Double) throws {
        let ts = Int64((seconds + startTime) * Double(AV_TIME_BASE))
        try check(avformat_seek_file(context, -1, Int64.min, ts, ts, 0), .decode, path, "seeking to \(seconds) s")
    }

    /// Throws when the file was replaced, removed, shrunk or modified since it was opened: the export may
    /// have read a torn file.
    func verifyUnchanged() throws { try InputSnapshot(path: path, attributes: opened).verify() }

    /// Container-level metadata, e.g. `creation_time`, `location`.
    var metadata: [String: String] { Demuxer.dictionary(context.pointee.metadata) }

    static func dictionary(_ dict: OpaquePointer?) -> [String: String] {
        var result: [String: String] = [:]
        var entry: UnsafeMutablePointer<AVDictionaryEntry>? = nil
        while let e = av_dict_get(dict, "", entry, AV_DICT_IGNORE_SUFFIX) {
            result[String(cString: e.pointee.key)] = String(cString: e.pointee.value)
            entry = e
        }
        return result
    }
}
