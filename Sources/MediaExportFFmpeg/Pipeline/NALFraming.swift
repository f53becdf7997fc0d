internal import CFFmpeg

/// The length-prefixed framing of H.264 and HEVC in MP4 and Matroska (`avcC`/`hvcC`): each NAL unit follows its
/// length in 1–4 bytes. A packet whose lengths do not walk to its end — a zeroed stretch reads as a NAL unit of
/// length 0 — is one FFmpeg's own decoders refuse ("Invalid NAL unit size"): damage a remux sees without decoding,
/// by the rule of FFmpeg's `get_nalsize` (a tail shorter than a length ends the walk).
struct NALFraming {
    /// Bytes of each length prefix.
    let lengthSize: Int

    /// The framing of a stream's parameters; nil for another codec, or Annex B (start codes: no lengths to walk).
    init?(_ par: AVCodecParameters) {
        guard let extra = par.extradata, par.extradata_size > 0, extra[0] == 1 else { return nil }
        switch par.codec_id {
        case AV_CODEC_ID_H264 where par.extradata_size >= 7: lengthSize = Int(extra[4] & 3) + 1
        case AV_CODEC_ID_HEVC where par.extradata_size >= 23: lengthSize = Int(extra[21] & 3) + 1
        default: return nil
        }
    }

    /// True when the packet's NAL lengths walk to its end.
    func isWellFormed(_ data: UnsafePointer<UInt8>?, size: Int) -> Bool {
        guard let data, size > 0 else { return false }
        var at = 0
        while at < size - lengthSize {
            var length = 0
            for k in 0..<lengthSize { length = length << 8 | Int(data[at + k]) }
            at += lengthSize
            guard length > 0, length <= size - at else { return false }
            at += length
        }
        return true
    }
}
