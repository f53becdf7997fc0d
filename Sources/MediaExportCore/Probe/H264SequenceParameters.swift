/// What an H.264 sequence parameter set (ITU-T H.264 7.3.2.1.1, with its VUI, E.1.1) says of the picture: the
/// fields a decoder would report after its first frame, read from the header alone.
///
/// The probe reads a MOV/MP4's H.264 stream this way instead of decoding its first frame (`avformat_find_stream_info`
/// decodes one frame of every H.264 stream, about 0.1 s for a camera's 1080p keyframe, and a remux never needs it).
/// Nothing here knows FFmpeg: the numbers are the standard's, and `MediaExportFFmpeg` maps them to FFmpeg's enums.
package struct H264SequenceParameters: Equatable, Sendable {
    package var profile: Int
    package var level: Int
    /// 0 monochrome, 1 4:2:0, 2 4:2:2, 3 4:4:4.
    package var chromaFormat: Int
    package var separateColourPlanes: Bool
    package var bitDepthLuma: Int
    package var bitDepthChroma: Int
    /// The picture size after the SPS's cropping.
    package var width: Int
    package var height: Int
    /// `frame_mbs_only_flag` false: the stream may code fields.
    package var interlaced: Bool
    /// The sample aspect ratio the VUI gives (`aspect_ratio_idc` 1-16, or 255 with its own numbers); nil without one.
    package var sampleAspectRatio: Ratio?
    /// `video_full_range_flag`, when the VUI has a video signal type.
    package var fullRange: Bool?
    /// The colour description, when the VUI has one.
    package var colour: Colour?
    /// `chroma_sample_loc_type_top_field`, when the VUI has one.
    package var chromaSampleLocation: Int?

    /// A sample aspect ratio, as the SPS writes it (not reduced).
    package struct Ratio: Equatable, Sendable {
        package var num: Int
        package var den: Int
    }

    /// `colour_primaries`, `transfer_characteristics`, `matrix_coefficients`: H.273 code points.
    package struct Colour: Equatable, Sendable {
        package var primaries: Int
        package var transfer: Int
        package var matrix: Int
    }

    /// The sequence parameter sets of an `avcC` record (ISO/IEC 14496-15 5.3.3.1), or of Annex B extradata (start
    /// codes), each without its NAL header byte and with emulation prevention removed. Nil when the bytes are
    /// neither.
    package static func sequenceParameterSets(extradata bytes: [UInt8]) -> [[UInt8]]? {
        if bytes.count >= 7, bytes[0] == 1 {
            var sets: [[UInt8]] = []
            let count = Int(bytes[5] & 0x1f)
            var at = 6
            for _ in 0..<count {
                guard at + 2 <= bytes.count else { return nil }
                let size = Int(bytes[at]) << 8 | Int(bytes[at + 1])
                at += 2
                guard size >= 1, at + size <= bytes.count else { return nil }
                if bytes[at] & 0x1f == 7 { sets.append(unescaped(bytes[(at + 1)..<(at + size)])) }
                at += size
            }
            return sets
        }
        // Annex B: 00 00 01 (or 00 00 00 01) before each NAL unit.
        var starts: [Int] = []
        var i = 0
        while i + 3 <= bytes.count {
            if bytes[i] == 0, bytes[i + 1] == 0, bytes[i + 2] == 1 { starts.append(i + 3); i += 3 } else { i += 1 }
        }
        guard !starts.isEmpty else { return nil }
        var sets: [[UInt8]] = []
        for (n, start) in starts.enumerated() where start < bytes.count && bytes[start] & 0x1f == 7 {
            var end = n + 1 < starts.count ? starts[n + 1] - 3 : bytes.count
            while end > start + 1, bytes[end - 1] == 0 { end -= 1 }   // a 4-byte start code's leading zero
            sets.append(unescaped(bytes[(start + 1)..<end]))
        }
        return sets
    }

    /// The RBSP of a NAL unit's payload: every `00 00 03` loses its `03`.
    static func unescaped(_ payload: ArraySlice<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(payload.count)
        var zeros = 0
        for byte in payload {
            if zeros >= 2 && byte == 3 { zeros = 0; continue }
            out.append(byte)
            zeros = byte == 0 ? zeros + 1 : 0
        }
        return out
    }

    /// Parses one SPS RBSP (after the NAL header byte). Nil when it is cut short or out of the standard's ranges.
    package init?(rbsp: [UInt8]) {
        var r = BitReader(rbsp)
        guard let profile = r.bits(8), r.bits(8) != nil, let level = r.bits(8),
              let spsID = r.ue(), spsID <= 31 else { return nil }
        self.profile = profile
        self.level = level
        chromaFormat = 1
        separateColourPlanes = false
        bitDepthLuma = 8
        bitDepthChroma = 8
        width = 0
        height = 0
        interlaced = false
        if [100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135].contains(profile) {
            guard readChromaFormat(&r) else { return nil }
        }
        guard Self.skipFrameNumbering(&r), readPictureSize(&r), let vui = r.flag() else { return nil }
        guard vui else { return }
        guard readVUI(&r) else { return nil }
    }

    /// The chroma format and bit depths of the high profiles, skipping their scaling lists; false when cut short.
    private mutating func readChromaFormat(_ r: inout BitReader) -> Bool {
        guard let chroma = r.ue(), chroma <= 3 else { return false }
        chromaFormat = chroma
        if chroma == 3 {
            guard let separate = r.flag() else { return false }
            separateColourPlanes = separate
        }
        guard let luma = r.ue(), let chromaDepth = r.ue(), luma <= 6, chromaDepth <= 6,
              r.flag() != nil, let scaling = r.flag() else { return false }
        bitDepthLuma = luma + 8
        bitDepthChroma = chromaDepth + 8
        if scaling {
            for list in 0..<(chroma == 3 ? 12 : 8) {
                guard let present = r.flag() else { return false }
                if present, !r.skipScalingList(size: list < 6 ? 16 : 64) { return false }
            }
        }
        return true
    }

    /// Skips `log2_max_frame_num` and the picture order count fields; false when cut short or out of range.
    private static func skipFrameNumbering(_ r: inout BitReader) -> Bool {
        guard let log2MaxFrameNum = r.ue(), log2MaxFrameNum <= 12, let pocType = r.ue() else { return false }
        switch pocType {
        case 0:
            guard let lsb = r.ue(), lsb <= 12 else { return false }
        case 1:
            guard r.flag() != nil, r.se() != nil, r.se() != nil, let cycle = r.ue(), cycle <= 255 else { return false }
            for _ in 0..<cycle where r.se() == nil { return false }
        case 2: break
        default: return false
        }
        return true
    }

    /// The reference count, the picture size after cropping and the interlacing; false when cut short, out of
    /// range or empty.
    private mutating func readPictureSize(_ r: inout BitReader) -> Bool {
        // max_num_ref_frames above 16 is an SPS FFmpeg's decoder refuses: leave such a stream to it.
        guard let references = r.ue(), references <= 16, r.flag() != nil, let widthMBs = r.ue(), let heightUnits = r.ue(),
              widthMBs < 1024, heightUnits < 1024, let frameMBsOnly = r.flag() else { return false }
        interlaced = !frameMBsOnly
        if !frameMBsOnly { guard r.flag() != nil else { return false } }
        guard r.flag() != nil, let cropping = r.flag() else { return false }
        var crop = (left: 0, right: 0, top: 0, bottom: 0)
        if cropping {
            guard let l = r.ue(), let rr = r.ue(), let t = r.ue(), let b = r.ue() else { return false }
            crop = (l, rr, t, b)
        }
        // 7.4.2.1.1: crop units follow ChromaArrayType (0 with separate planes or monochrome).
        let arrayType = separateColourPlanes ? 0 : chromaFormat
        let unitX = arrayType == 0 ? 1 : (arrayType == 3 ? 1 : 2)
        let unitY = (arrayType == 0 ? 1 : (arrayType == 1 ? 2 : 1)) * (frameMBsOnly ? 1 : 2)
        let codedWidth = (widthMBs + 1) * 16
        let codedHeight = (heightUnits + 1) * 16 * (frameMBsOnly ? 1 : 2)
        width = codedWidth - unitX * (crop.left + crop.right)
        height = codedHeight - unitY * (crop.top + crop.bottom)
        return width > 0 && height > 0
    }

    /// E.1.1: the fields before the timing information are all a probe needs. False when cut short or reserved.
    private mutating func readVUI(_ r: inout BitReader) -> Bool {
        guard let aspect = r.flag() else { return false }
        if aspect {
            guard let idc = r.bits(8) else { return false }
            if idc == 255 {
                guard let w = r.bits(16), let h = r.bits(16) else { return false }
                sampleAspectRatio = Ratio(num: w, den: h)
            } else if idc >= 1 && idc <= 16 {
                sampleAspectRatio = Self.aspectRatios[idc - 1]
            } else if idc != 0 {
                return false   // reserved: FFmpeg's decoder refuses the SPS ("illegal aspect ratio")
            }
        }
        guard let overscan = r.flag() else { return false }
        if overscan { guard r.flag() != nil else { return false } }
        guard let signal = r.flag() else { return false }
        if signal {
            guard r.bits(3) != nil, let full = r.flag(), let described = r.flag() else { return false }
            fullRange = full
            if described {
                guard let p = r.bits(8), let t = r.bits(8), let m = r.bits(8) else { return false }
                colour = Colour(primaries: p, transfer: t, matrix: m)
            }
        }
        guard let chromaLocation = r.flag() else { return false }
        if chromaLocation {
            guard let top = r.ue(), top <= 5, r.ue() != nil else { return false }
            chromaSampleLocation = top
        }
        return true
    }

    /// Table E-1, `aspect_ratio_idc` 1 to 16.
    static let aspectRatios: [Ratio] = [
        (1, 1), (12, 11), (10, 11), (16, 11), (40, 33), (24, 11), (20, 11), (32, 11),
        (80, 33), (18, 11), (15, 11), (64, 33), (160, 99), (4, 3), (3, 2), (2, 1),
    ].map { Ratio(num: $0.0, den: $0.1) }
}

/// Reads an RBSP bit by bit, most significant first; every read is nil past the end.
struct BitReader {
    private let bytes: [UInt8]
    private var position = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func bits(_ count: Int) -> Int? {
        guard position + count <= bytes.count * 8 else { return nil }
        var value = 0
        for _ in 0..<count {
            value = value << 1 | Int(bytes[position >> 3] >> (7 - UInt8(position & 7)) & 1)
            position += 1
        }
        return value
    }

    mutating func flag() -> Bool? { bits(1).map { $0 == 1 } }

    /// ue(v), 9.1: up to 31 leading zeros (values below 2^32 - 1).
    mutating func ue() -> Int? {
        var zeros = 0
        while true {
            guard let bit = bits(1) else { return nil }
            if bit == 1 { break }
            zeros += 1
            if zeros > 31 { return nil }
        }
        guard let rest = bits(zeros) else { return nil }
        return (1 << zeros) - 1 + rest
    }

    /// se(v), 9.1.1.
    mutating func se() -> Int? {
        guard let k = ue() else { return nil }
        return k & 1 == 1 ? (k + 1) / 2 : -(k / 2)
    }

    /// Skips a scaling_list( ) of `size` entries (7.3.2.1.1.1); false when cut short.
    mutating func skipScalingList(size: Int) -> Bool {
        var last = 8, next = 8
        for _ in 0..<size {
            if next != 0 {
                guard let delta = se(), delta >= -128, delta <= 127 else { return false }
                next = (last + delta + 256) % 256
            }
            last = next == 0 ? last : next
        }
        return true
    }
}
