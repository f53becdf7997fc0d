internal import CFFmpeg
internal import CFFmpegLog
import Foundation
import MediaExportCore

/// Stage 1: opens the input container and reads its packets, one at a time (never the whole file).
final class Demuxer {
    private(set) var context: UnsafeMutablePointer<AVFormatContext>
    let path: String
    /// Retained while the context lives: FFmpeg's interrupt callback reads it.
    let cancel: CancelToken?
    /// The file's identity, size and modification time when it was opened.
    private var opened = stat()

    /// Opens `path` and reads stream information. `interrupt` is polled by FFmpeg during blocking reads.
    ///
    /// Opened only through `cff_input_open` (`InputGuard.h`): by the name's bytes, regular files only, with a
    /// demuxer from `InputFormats.allowed`, and no nested open of any other file or URL. `formats` is for
    /// tests of the second layer (a demuxer that does open other files, let through on purpose).
    ///
    /// `streamInfo: false` skips `avformat_find_stream_info` (which decodes a first frame of each stream): for
    /// reading back an output we wrote, whose header already says what the verifier needs.
    init(path: String, cancel: CancelToken?, formats: String = InputFormats.whitelist, streamInfo: Bool = true) throws {
        self.path = path
        self.cancel = cancel
        FFmpegLog.applyDefault()
        let (input, attributes) = try Demuxer.open(path, formats: formats, cancel: cancel)
        context = input
        opened = attributes
        // Every stored property is set, so a throw from here on runs deinit, which closes the input (exactly once).
        if streamInfo { DecodeWatch.noteStreamInfo(path) }
        let infoCode: Int32 = streamInfo ? StreamInfoReader.read(context) : 0
        // A stream still without its parameters (an AC-3 track whose first frame comes late in a camcorder's
        // MPEG-TS: "sample rate unknown") would be dropped: look further into the file before giving up on it,
        // as `-analyzeduration`/`-probesize` do for the ffmpeg CLI. Only such files pay for it. The stream
        // information cannot be read twice on one context: a second one is opened with the larger limits.
        if streamInfo, infoCode >= 0, Demuxer.lacksParameters(context), let (deep, deepAttributes) = try? Demuxer.open(path, formats: formats, cancel: cancel) {
            deep.pointee.probesize = Demuxer.deepProbeBytes
            deep.pointee.max_analyze_duration = Demuxer.deepProbeSeconds * Int64(AV_TIME_BASE)
            DecodeWatch.noteStreamInfo(path)
            let deepCode = StreamInfoReader.read(deep)
            if deepCode >= 0 && Demuxer.sameFile(attributes, deepAttributes) {
                var old: UnsafeMutablePointer<AVFormatContext>? = context
                cff_input_close(&old)
                context = deep
                deepProbed = true
            } else {
                var d: UnsafeMutablePointer<AVFormatContext>? = deep
                cff_input_close(&d)
            }
        }
        var url = [CChar](repeating: 0, count: 256)
        if cff_input_refused_opens(context, &url, Int32(url.count)) > 0 {
            throw ExportError.notMedia(path: path, reason: InputFormats.nestedOpenRefusal(url: FileName.decode(cString: url)))
        }
        if infoCode < 0 {
            if infoCode == AVCode.exit { throw ExportError.cancelled }
            throw ExportError.notMedia(path: path, reason: "cannot read stream information: \(ffmpegMessage(infoCode))")
        }
    }

    /// Opens `path` through the guarded opener (see `init`), mapping each refusal to its error.
    private static func open(_ path: String, formats: String, cancel: CancelToken?) throws -> (UnsafeMutablePointer<AVFormatContext>, stat) {
        var result = CFFInputResult()
        var ctx: UnsafeMutablePointer<AVFormatContext>? = nil
        let status = cff_input_open(&ctx, FileName.cString(path), formats, cancel?.pointer, &result)
        switch status {
        case CFF_INPUT_OPENED: break
        case CFF_INPUT_SYSTEM_ERROR:
            throw ExportError.inputUnreadable(path: path, reason: String(cString: strerror(result.sys_errno)))
        case CFF_INPUT_DIRECTORY: throw ExportError.inputUnreadable(path: path, reason: "is a directory")
        // FIFOs and devices can block a read forever, out of the watchdog's reach: regular files only.
        case CFF_INPUT_NOT_REGULAR: throw ExportError.inputUnreadable(path: path, reason: "not a regular file")
        case CFF_INPUT_EMPTY: throw ExportError.notMedia(path: path, reason: "file is empty (0 bytes)")
        case CFF_INPUT_FORMAT_REFUSED:
            throw ExportError.notMedia(path: path, reason: InputFormats.refusal(
                name: Demuxer.text(result.format_name), longName: Demuxer.text(result.format_long_name)))
        case CFF_INPUT_NESTED_OPEN_REFUSED:
            throw ExportError.notMedia(path: path, reason: InputFormats.nestedOpenRefusal(url: Demuxer.text(result.refused_url)))
        default:
            if result.averror == AVCode.exit { throw ExportError.cancelled }
            throw ExportError.notMedia(path: path, reason: ffmpegMessage(result.averror))
        }
        guard let input = ctx else { fatalError("cff_input_open reported success without a context") }
        return (input, result.attributes)
    }

    /// The same file, unchanged (device, inode, size, modification time).
    private static func sameFile(_ a: stat, _ b: stat) -> Bool {
        a.st_dev == b.st_dev && a.st_ino == b.st_ino && a.st_size == b.st_size
            && a.st_mtim.tv_sec == b.st_mtim.tv_sec && a.st_mtim.tv_nsec == b.st_mtim.tv_nsec
    }

    deinit {
        var c: UnsafeMutablePointer<AVFormatContext>? = context
        cff_input_close(&c)
    }

    /// Decodes a fixed-size C string field of `CFFInputResult` (bytes that may not be UTF-8).
    private static func text<T>(_ field: T) -> String {
        withUnsafeBytes(of: field) { raw in
            let bytes = raw.prefix { $0 != 0 }
            return FileName.decode(bytes)
        }
    }

    /// Has libavformat give every packet a PTS, from the DTS of the next packets (`AVFMT_FLAG_GENPTS`, the ffmpeg
    /// CLI's `-fflags +genpts`), before the first packet is read. For stream copies: MPEG-PS and AVI leave the PTS
    /// out of frames that others are predicted from (B-frames, packed bitstreams), which the decoder does not
    /// need but a muxer does — Matroska stores only PTS and refuses such a packet, MP4 would show it at its DTS
    /// (two frames at one time). Packets that have one are untouched, in the same order.
    func generatesPresentationTimes() {
        context.pointee.flags |= AVFMT_FLAG_GENPTS
    }

    /// True when the first look at the streams left one without what the planner needs (`deepProbed` tells).
    private(set) var deepProbed = false
    /// How far the second look reads: bytes, and seconds of media.
    static let deepProbeBytes: Int64 = 64 << 20
    static let deepProbeSeconds: Int64 = 30

    /// A video stream without a picture size, or an audio stream without a sample rate or channel count.
    static func lacksParameters(_ ctx: UnsafeMutablePointer<AVFormatContext>) -> Bool {
        for i in 0..<Int(ctx.pointee.nb_streams) {
            guard let par = ctx.pointee.streams[i]?.pointee.codecpar.pointee, par.codec_id != AV_CODEC_ID_NONE else { continue }
            if par.codec_type == AVMEDIA_TYPE_VIDEO && (par.width <= 0 || par.height <= 0) { return true }
            if par.codec_type == AVMEDIA_TYPE_AUDIO && (par.sample_rate <= 0 || par.ch_layout.nb_channels <= 0) { return true }
        }
        return false
    }

    /// True when libavformat guessed the durations from the bit rate (seconds off for raw AAC, MP3 without a header).
    var durationsEstimated: Bool { av_fmt_ctx_get_duration_estimation_method(context) == AVFMT_DURATION_FROM_BITRATE }

    /// The input's size in bytes when it was opened.
    var fileSize: Int64 { Int64(opened.st_size) }

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

    /// A stretch of the file the demuxer searched through for its sync, finding nothing it could read.
    struct UnreadableStretch: Equatable {
        var fromByte: Int64
        var toByte: Int64
    }
    /// The stretches passed over so far (`read(into:)`), in the order met.
    private(set) var unreadable: [UnreadableStretch] = []
    /// Errors the demuxer logged while reading packets since `countErrorsFromHere` (a resync in damaged data).
    private(set) var loggedErrors = 0

    /// Starts counting `loggedErrors` (and `unreadable`) afresh: what opening, probing and seeking logged is not counted.
    func countErrorsFromHere() {
        _ = cff_take_demuxer_errors()
        loggedErrors = 0
        unreadable = []
    }

    /// Result of reading one packet.
    enum ReadResult { case packet, endOfFile }

    /// Reads the next packet into `packet`; end of file is a result, not an error.
    func read(into packet: Packet) throws -> ReadResult {
        var code = av_read_frame(context, packet.pointer)
        // A demuxer that lost its sync (MPEG-TS: "max resync size reached" in a zeroed stretch) answers EAGAIN after
        // each step of its search; read again, as the ffmpeg CLI does, while the search moves on through the file
        // (bounded by the file's size) and nobody cancelled. The bytes passed over are an unreadable stretch.
        if code == AVCode.again {
            let from = avio_tell(context.pointee.pb)
            var at = from
            while code == AVCode.again, cancel?.isSet != true {
                code = av_read_frame(context, packet.pointer)
                let now = avio_tell(context.pointee.pb)
                if code == AVCode.again && now <= at { break }
                at = now
            }
            unreadable.append(UnreadableStretch(fromByte: from, toByte: at))
            if code == AVCode.again, cancel?.isSet == true { throw ExportError.cancelled }
        }
        loggedErrors += Int(cff_take_demuxer_errors())
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
        let ts = Int64(saturating: (seconds + startTime) * Double(AV_TIME_BASE))  // the file says startTime
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
