internal import CFFmpeg
import Foundation
import MediaExportCore

/// Cover art's way through: its one picture, copied as the output container's cover art (see `CoverArt` for what
/// FFmpeg 5.1 writes where). No decoding and no timeline: a range or trim never cuts it.
///
/// - MP4/M4V/M4A: an output stream with the disposition exactly `attached_pic` (the MP4 muxer's test), given the
///   picture once as a packet; the muxer keeps it for the `covr` atom it writes with the header (no track, no
///   sample). Demuxers deliver the picture as the first packet of the stream (`avformat_queue_attached_pictures`,
///   again after every seek), without a timestamp: it is placed at 0 and only the first is passed on. Should none
///   come, the stream's own copy (`AVStream.attached_pic`) is written at the end of the input.
/// - Matroska: an attachment stream holding the picture in its extradata, with a `filename` and a `mimetype` (what
///   the ffmpeg CLI's `-attach` writes), taken from `AVStream.attached_pic` when the stage is built; the muxer
///   writes it with the header, so the stage takes no packet at all.
/// - At `--metadata sharing` and `none` the picture is written without its metadata (`PictureMetadata.strip`: EXIF,
///   XMP, IPTC, comments; the pixels are the same bytes), as the plan says.
final class CoverArtStage: StreamStage {
    let inputIndex: Int32
    let outputStream: UnsafeMutablePointer<AVStream>
    private(set) var isDone = false
    private let input: UnsafeMutablePointer<AVStream>
    /// The output's path, for messages.
    private let path: String
    /// Strip the picture's metadata (`StreamDecision.Action.coverArt`).
    private let strips: Bool
    /// The picture on its way to the muxer (once).
    private let held = Packet()
    private var holding = false
    private var ended = false

    init(input stream: UnsafeMutablePointer<AVStream>, muxer: Muxer, stripsMetadata: Bool) throws {
        input = stream
        path = muxer.path
        strips = stripsMetadata
        inputIndex = stream.pointee.index
        outputStream = try muxer.addStream()
        if muxer.container == .mkv {
            try attach(stream)
            isDone = true
        } else {
            try check(avcodec_parameters_copy(outputStream.pointee.codecpar, stream.pointee.codecpar), .mux, muxer.path, "copying the cover art's parameters")
            outputStream.pointee.codecpar.pointee.codec_tag = 0
            outputStream.pointee.time_base = stream.pointee.time_base
            copyStreamInfo(from: stream, to: outputStream, displayMatrix: nil)
            // Exactly `attached_pic`: with any other flag (a source's `default`) the MP4 muxer writes a one-frame track.
            outputStream.pointee.disposition = cff_disposition_attached_pic()
        }
    }

    /// Matroska: the output stream becomes an attachment holding the picture (stripped as planned) in its extradata.
    private func attach(_ stream: UnsafeMutablePointer<AVStream>) throws {
        guard let bytes = StreamFacts.attachedPicture(stream) else {
            throw ExportError.ffmpeg(stage: .mux, path: path, code: AVCode.invalidData, message: "cover art stream #\(inputIndex) holds no picture")
        }
        let picture = try written(bytes)
        let par = stream.pointee.codecpar.pointee
        let out: UnsafeMutablePointer<AVCodecParameters> = outputStream.pointee.codecpar
        out.pointee.codec_type = AVMEDIA_TYPE_ATTACHMENT
        out.pointee.codec_id = par.codec_id
        guard let extradata = av_mallocz(picture.count + Int(AV_INPUT_BUFFER_PADDING_SIZE))?.assumingMemoryBound(to: UInt8.self) else {
            throw ExportError.ffmpeg(stage: .mux, path: path, code: cff_averror(ENOMEM), message: "copying the cover art")
        }
        picture.withUnsafeBufferPointer { if let b = $0.baseAddress { extradata.update(from: b, count: picture.count) } }
        // The codec parameters own it from here (freed with the muxer's context).
        out.pointee.extradata = extradata
        out.pointee.extradata_size = Int32(picture.count)
        copyStreamInfo(from: stream, to: outputStream, displayMatrix: nil)
        outputStream.pointee.disposition = 0
        let kind = CoverArtStage.pictureKind(par.codec_id)
        // A Matroska source's attachment keeps its name; an MP3's or MP4's picture has none.
        if av_dict_get(outputStream.pointee.metadata, "filename", nil, 0) == nil {
            av_dict_set(&outputStream.pointee.metadata, "filename", "cover.\(kind.ext)", 0)
        }
        av_dict_set(&outputStream.pointee.metadata, "mimetype", kind.mime, 0)
    }

    /// The picture to write: `bytes`, or `bytes` stripped of their metadata (`PictureMetadata.strip`) as planned.
    private func written(_ bytes: [UInt8]) throws -> [UInt8] {
        guard strips else { return bytes }
        switch PictureMetadata.strip(bytes) {
        case .success(let stripped): return stripped.bytes
        case .failure(let fault):
            throw ExportError.ffmpeg(stage: .mux, path: path, code: AVCode.invalidData,
                                     message: "cover art stream #\(inputIndex): its metadata cannot be stripped (\(fault.rawValue))")
        }
    }

    /// `p`'s picture stripped of its metadata in place, when planned (MP4's `covr`).
    private func strip(_ p: UnsafeMutablePointer<AVPacket>) throws {
        guard strips else { return }
        let size = Int(max(0, p.pointee.size))
        let picture = try written(p.pointee.data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
        let stripped = Packet()
        try check(av_new_packet(stripped.pointer, Int32(picture.count)), .mux, path, "copying the cover art")
        picture.withUnsafeBufferPointer { if let b = $0.baseAddress { stripped.pointer.pointee.data.update(from: b, count: picture.count) } }
        try check(av_packet_copy_props(stripped.pointer, p), .mux, path, "copying the cover art")
        av_packet_unref(p)
        av_packet_move_ref(p, stripped.pointer)
    }

    /// The file name extension and MIME type of a picture codec (Matroska's attachments).
    static func pictureKind(_ id: AVCodecID) -> (ext: String, mime: String) {
        switch id {
        case AV_CODEC_ID_PNG: return ("png", "image/png")
        case AV_CODEC_ID_GIF: return ("gif", "image/gif")
        case AV_CODEC_ID_BMP: return ("bmp", "image/bmp")
        default: return ("jpg", "image/jpeg")
        }
    }

    /// Takes the first picture the demuxer delivers; the rest (the same picture queued again by a seek) are not.
    func send(_ packet: Packet) throws -> StageTally {
        guard !isDone else { return .none }
        try strip(packet.pointer)
        hold(packet.pointer)
        return .none
    }

    func sendEndOfStream() throws -> StageTally {
        ended = true
        if !isDone && input.pointee.attached_pic.size > 0 {
            // The demuxer never delivered it: the stream's own copy.
            let p = Packet()
            try check(av_packet_ref(p.pointer, &input.pointee.attached_pic), .mux, path, "copying the cover art")
            try strip(p.pointer)
            hold(p.pointer)
        }
        return .none
    }

    func receive() throws -> StageOutput {
        if holding {
            holding = false
            return .packet(held)
        }
        return ended ? .finished : .needsInput
    }

    /// Moves the picture into `held`, at the output's time 0 (it has no place on the timeline).
    private func hold(_ p: UnsafeMutablePointer<AVPacket>) {
        p.pointee.stream_index = outputStream.pointee.index
        p.pointee.pts = 0
        p.pointee.dts = 0
        p.pointee.duration = 0
        p.pointee.pos = -1
        p.pointee.flags |= AV_PKT_FLAG_KEY
        av_packet_unref(held.pointer)
        av_packet_move_ref(held.pointer, p)
        holding = true
        isDone = true
    }
}
