internal import CFFmpeg
import Foundation
import MediaExportCore

/// What FFmpeg says about a stream that the planner reads as plain values.
enum StreamGeometry {
    /// The source's rotation for display, clockwise degrees (0, 90, 180, 270). FFmpeg reports counter-clockwise.
    static func sourceClockwise(_ stream: UnsafeMutablePointer<AVStream>) -> Int {
        Rotation.quarterTurns(-displayRotation(stream))
    }

    /// Rotation from the stream's display matrix, rounded to whole degrees (0 when there is none).
    static func displayRotation(_ stream: UnsafeMutablePointer<AVStream>) -> Int {
        var size: Int = 0
        guard let data = av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, &size), size >= 36 else { return 0 }
        let degrees = data.withMemoryRebound(to: Int32.self, capacity: 9) { av_display_rotation_get($0) }
        guard degrees.isFinite else { return 0 }
        return Int(degrees.rounded())
    }

    /// The media type as named in events (`video`, `audio`, `subtitle`, `attachment`, `data`).
    static func typeName(_ t: AVMediaType) -> String {
        switch t {
        case AVMEDIA_TYPE_VIDEO: return "video"
        case AVMEDIA_TYPE_AUDIO: return "audio"
        case AVMEDIA_TYPE_SUBTITLE: return "subtitle"
        case AVMEDIA_TYPE_ATTACHMENT: return "attachment"
        default: return "data"
        }
    }
}

/// The codec's name, or `unknown 'fourcc'` for a codec FFmpeg does not know.
func codecName(_ par: AVCodecParameters) -> String {
    if par.codec_id == AV_CODEC_ID_NONE {
        // No tag either (a Matroska attachment of an unknown mimetype): nothing to quote.
        if par.codec_tag == 0 { return "unknown" }
        var buf = [CChar](repeating: 0, count: Int(AV_FOURCC_MAX_STRING_SIZE))
        av_fourcc_make_string(&buf, par.codec_tag)
        return "unknown '\(FileName.decode(cString: buf))'"
    }
    return String(cString: avcodec_get_name(par.codec_id))
}

/// A QuickTime timecode track: a data stream of sample entry `tmcd`.
func isTimecodeTrack(_ stream: UnsafeMutablePointer<AVStream>) -> Bool {
    let par = stream.pointee.codecpar.pointee
    return par.codec_type == AVMEDIA_TYPE_DATA && par.codec_tag == cff_mktag(0x74, 0x6D, 0x63, 0x64)  // 'tmcd'
}

/// The source stream's display matrix, if it has one.
func sourceMatrix(_ stream: UnsafeMutablePointer<AVStream>) -> [Int32]? {
    var size: Int = 0
    guard let data = av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, &size), size >= 36 else { return nil }
    return data.withMemoryRebound(to: Int32.self, capacity: 9) { Array(UnsafeBufferPointer(start: $0, count: 9)) }
}
