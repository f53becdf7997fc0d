internal import CFFmpeg
import Foundation
import MediaExportCore

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

/// The source stream's display matrix, if it has one.
func sourceMatrix(_ stream: UnsafeMutablePointer<AVStream>) -> [Int32]? {
    var size: Int = 0
    guard let data = av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, &size), size >= 36 else { return nil }
    return data.withMemoryRebound(to: Int32.self, capacity: 9) { Array(UnsafeBufferPointer(start: $0, count: 9)) }
}
