internal import CFFmpeg
import Foundation
import MediaExportCore

extension Container {
    /// True when the container can hold a stream of this codec.
    func canHold(_ codecID: AVCodecID) -> Bool {
        guard let fmt = av_guess_format(muxerName, nil, nil) else { return false }
        if self == .m4a { return codecID == AV_CODEC_ID_AAC || codecID == AV_CODEC_ID_ALAC }
        // FFmpeg 5.1's MP4 muxer refuses FLAC unless told experimental features are welcome (`-strict -2`), and
        // its MOV mode takes neither FLAC nor Opus ("only supported in MP4"), whatever avformat_query_codec says.
        if codecID == AV_CODEC_ID_FLAC && self != .mkv { return false }
        // The codecs we encode: the planner's table (FFmpeg 5.1's MOV mode writes AV1 without its `av1C` box).
        let name = String(cString: avcodec_get_name(codecID))
        if let codec = VideoCodec(rawValue: name) { return holds(codec) }
        if let codec = AudioCodec(rawValue: name) { return holds(codec) }
        return avformat_query_codec(fmt, codecID, FF_COMPLIANCE_NORMAL) == 1
    }
}

/// Stage 5: writes packets into the output container: the target's temporary file, through its descriptor
/// (never by path, the faststart re-read included), renamed by the caller when complete.
final class Muxer {
    let context: UnsafeMutablePointer<AVFormatContext>
    /// The output's final path, for messages.
    let path: String
    let container: Container
    /// Keeps the target's descriptors open for as long as FFmpeg may use them; nil for a muxer that writes nothing.
    private let target: OutputTarget?
    /// Whether encoders must put codec headers in extradata for the real container (MP4/MOV/MKV do; a first pass
    /// or a sample encode into FFmpeg's `null` muxer opens its encoders as the real output's would).
    let needsGlobalHeader: Bool
    /// Retained while the context lives: FFmpeg's interrupt callback reads it.
    private let cancel: CancelToken?
    private var headerWritten = false
    private var ioOpen = false

    /// The AVIO buffer: large writes, few system calls.
    static let bufferSize: Int32 = 256 << 10

    /// A muxer into `target`'s temporary file; with no target, FFmpeg's `null` format (as `-f null -`): a first
    /// pass's packets, or a sample encode's, are counted and thrown away. Encoders are opened as for `container`.
    init(target: OutputTarget?, container: Container, cancel: CancelToken?) throws {
        self.cancel = cancel
        self.target = target
        self.path = target?.finalPath ?? "(first pass)"
        self.container = container
        needsGlobalHeader = av_guess_format(container.muxerName, nil, nil).map { ($0.pointee.flags & cff_fmt_globalheader()) != 0 } ?? false
        var ctx: UnsafeMutablePointer<AVFormatContext>? = nil
        // The context's url is the temporary file's name: the only name its io_open callback will reopen.
        let code = target?.temporaryName.withUnsafeBufferPointer { avformat_alloc_output_context2(&ctx, nil, container.muxerName, $0.baseAddress) }
            ?? avformat_alloc_output_context2(&ctx, nil, "null", nil)
        guard code >= 0, let ctx else {
            guard target != nil else {
                throw ExportError.ffmpeg(stage: .mux, path: path, code: code, message: "cannot create the null muxer: \(ffmpegMessage(code))")
            }
            throw ExportError.outputUnwritable(path: path, reason: "cannot create \(container.rawValue) muxer: \(ffmpegMessage(code))")
        }
        context = ctx
        if let cancel { cff_set_interrupt(ctx, cancel.pointer) }
        guard let target else { return }
        // Matroska's segment and track UIDs are random unless bit-exact (then numbered), and would make every run's
        // bytes differ; bit-exact also writes `Lavf` without its version as the writing application.
        if container.isMatroskaFamily { ctx.pointee.flags |= AVFMT_FLAG_BITEXACT }
        if (ctx.pointee.oformat.pointee.flags & cff_fmt_nofile()) == 0 {
            let attached = target.temporaryName.withUnsafeBufferPointer {
                cff_output_io_attach(ctx, target.directory, target.descriptor, $0.baseAddress, Muxer.bufferSize)
            }
            if attached < 0 {
                // Every stored property is set: throwing runs deinit, which frees the context (exactly once).
                throw ExportError.outputUnwritable(path: target.finalPath, reason: ffmpegMessage(attached))
            }
            ioOpen = true
        }
    }

    deinit {
        // A failed or cancelled export: free without writing what is still buffered.
        if ioOpen { _ = cff_output_io_detach(context, 0) }
        avformat_free_context(context)
    }

    /// Adds an output stream.
    func addStream() throws -> UnsafeMutablePointer<AVStream> {
        guard let s = avformat_new_stream(context, nil) else {
            throw ExportError.ffmpeg(stage: .mux, path: path, code: -1, message: "cannot add a stream")
        }
        return s
    }

    /// Gives the output its chapters (see `Chapters.forOutput`); before `writeHeader`, which writes them: Matroska
    /// in its `Chapters` element, MP4/MOV/M4A as a QuickTime chapter track (a text track each media track's `chap`
    /// reference names, read back as a discarded `bin_data` stream) plus a Nero `chpl` box. The context owns them
    /// and frees them with itself (`avformat_free_context` in deinit).
    func setChapters(_ chapters: [OutputChapter]) throws {
        guard !headerWritten else {
            throw ExportError.ffmpeg(stage: .mux, path: path, code: -1, message: "chapters given after the header was written")
        }
        try ChapterCopy.attach(chapters, to: context, path: path)
    }

    /// Writes the header; MP4-family outputs get `movflags=+faststart` (and `+use_metadata_tags` for Apple's keys).
    /// `reservedIndex` bytes (MP4 family only; see `Transcoder.indexReservation`) are kept free after the header for
    /// the moov, written there at the end (`moov_size`): the file is faststart without the faststart pass, which
    /// reads and writes the whole file again, and every byte is final when written, so its write-back to the disk
    /// starts as it goes and the fsync before the rename waits for the tail only.
    func writeHeader(metadata: [String: String], reservedIndex: Int64? = nil) throws {
        // In key order: a Dictionary's own order changes from run to run, and so would the file's bytes.
        for (k, v) in metadata.sorted(by: { $0.key < $1.key }) { av_dict_set(&context.pointee.metadata, k, v, 0) }
        var options: OpaquePointer? = nil
        defer { av_dict_free(&options) }
        if container.isQuickTimeFamily && target != nil {
            // Apple's keys (the Live Photo pairing `com.apple.quicktime.content.identifier`, make, model, the creation
            // date with its time zone) are only written as QuickTime metadata keys (`mdta`), as iPhones write them.
            let apple = OutputTags.needsQuickTimeKeys(metadata)
            if let reservedIndex, reservedIndex > 0 {
                // Not with +faststart: movenc's faststart pass would move the data anyway.
                av_dict_set(&options, "moov_size", String(reservedIndex), 0)
                if apple { av_dict_set(&options, "movflags", "+use_metadata_tags", 0) }
                _ = cff_output_io_write_back_early(context)
            } else {
                av_dict_set(&options, "movflags", apple ? "+faststart+use_metadata_tags" : "+faststart", 0)
            }
        }
        try check(avformat_write_header(context, &options), .mux, path, "writing the \(container.rawValue) header")
        headerWritten = true
        if let pb = context.pointee.pb { target?.headerWritten(endingAt: avio_seek(pb, 0, SEEK_CUR)) }
    }

    /// Writes one packet; the muxer interleaves by time and takes ownership of the packet's data. Returns false for
    /// a packet whose data the muxer's bitstream filter refused as invalid when `rejectsDamage` (a copied packet: a
    /// corrupt ADTS frame on its way into MP4), which the caller counts as a corrupt packet, as the ffmpeg CLI
    /// goes on past it.
    func write(_ packet: Packet, rejectsDamage: Bool = false) throws -> Bool {
        let code = av_interleaved_write_frame(context, packet.pointer)
        if rejectsDamage && code == AVCode.invalidData { return false }
        if code < 0 { try writeFailure(code, "writing a packet") }
        return true
    }

    /// Writes the trailer (for faststart this rewrites the file with the moov atom first) and flushes the file.
    func finish() throws {
        guard headerWritten else { return }
        let code = av_write_trailer(context)
        if code < 0 { try writeFailure(code, "finishing the file") }
        if ioOpen {
            ioOpen = false
            let ioError = cff_output_io_detach(context, 1)
            if ioError < 0 { try writeFailure(ioError, "writing the file") }
        }
    }

    private func writeFailure(_ code: Int32, _ what: String) throws { throw Self.writeError(code, what, path: path) }

    /// A muxer's failure to write as the library reports it: cancelled, the disk's fault (full, quota, I/O: the output
    /// cannot be written), or FFmpeg's.
    static func writeError(_ code: Int32, _ what: String, path: String) -> ExportError {
        if code == AVCode.exit { return .cancelled }
        if code == cff_averror(ENOSPC) || code == cff_averror(EIO) || code == cff_averror(EDQUOT) {
            return .outputUnwritable(path: path, reason: "\(what): \(ffmpegMessage(code))")
        }
        return .ffmpeg(stage: .mux, path: path, code: code, message: "\(what): \(ffmpegMessage(code))")
    }
}
