internal import CFFmpeg
import Foundation
import MediaExportCore

/// The codec's name, or `unknown 'fourcc'` for a codec FFmpeg does not know.
func codecName(_ par: AVCodecParameters) -> String {
    if par.codec_id == AV_CODEC_ID_NONE {
        // No tag either (a Matroska attachment of an unknown mimetype): nothing to quote.
        return par.codec_tag == 0 ? "unknown" : "unknown '\(fourCC(par.codec_tag))'"
    }
    return String(cString: avcodec_get_name(par.codec_id))
}

/// A codec tag as its four characters (`gpmd`; a byte that is no printable character as `[N]`, as FFmpeg writes it).
func fourCC(_ tag: UInt32) -> String {
    var buf = [CChar](repeating: 0, count: Int(AV_FOURCC_MAX_STRING_SIZE))
    av_fourcc_make_string(&buf, tag)
    return FileName.decode(cString: buf)
}

/// The source stream's display matrix, if it has one.
func sourceMatrix(_ stream: UnsafeMutablePointer<AVStream>) -> [Int32]? {
    var size: Int = 0
    guard let data = av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, &size), size >= 36 else { return nil }
    return data.withMemoryRebound(to: Int32.self, capacity: 9) { Array(UnsafeBufferPointer(start: $0, count: 9)) }
}
