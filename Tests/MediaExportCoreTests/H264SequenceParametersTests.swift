import Testing
@testable import MediaExportCore

/// The SPS reader on a known SPS, and on damaged and random bytes (the bytes come from the file being probed).
@Suite struct H264SequenceParametersTests {
    /// x264, 320x240 4:2:0 High, JVT scaling matrices, BT.709 colours; VUI rewritten by `h264_metadata` to a 4:3
    /// sample aspect ratio and chroma siting type 1. The NAL payload as in the file (with emulation prevention).
    static let payload: [UInt8] = [
        0x64, 0x00, 0x0d, 0xac, 0xb4, 0x0a, 0x0f, 0xd8, 0x73, 0x50, 0x10, 0x10, 0x1a, 0x50, 0x00, 0x00,
        0x03, 0x00, 0x10, 0x00, 0x00, 0x03, 0x03, 0x20, 0xf1, 0x42, 0xaa,
    ]

    @Test func readsAKnownSequenceParameterSet() throws {
        let sps = try #require(H264SequenceParameters(rbsp: H264SequenceParameters.unescaped(Self.payload[...])))
        #expect(sps.profile == 100 && sps.level == 13)
        #expect(sps.chromaFormat == 1 && sps.bitDepthLuma == 8 && sps.bitDepthChroma == 8 && !sps.separateColourPlanes)
        #expect(sps.width == 320 && sps.height == 240 && !sps.interlaced)
        #expect(sps.sampleAspectRatio?.num == 4 && sps.sampleAspectRatio?.den == 3)
        #expect(sps.fullRange == false)
        #expect(sps.colour?.primaries == 1 && sps.colour?.transfer == 1 && sps.colour?.matrix == 1)
        #expect(sps.chromaSampleLocation == 1)
    }

    /// Every single-bit flip, every truncation and 20 000 random byte strings: a value or nil, never a trap or a
    /// hang (the loops are bounded by the standard's limits, every read by the bytes).
    @Test func damagedAndRandomBytesNeverTrap() {
        let rbsp = H264SequenceParameters.unescaped(Self.payload[...])
        var parsed = 0
        for bit in 0..<(rbsp.count * 8) {
            var b = rbsp
            b[bit / 8] ^= UInt8(0x80 >> (bit % 8))
            if H264SequenceParameters(rbsp: b) != nil { parsed += 1 }
        }
        for length in 0...rbsp.count { _ = H264SequenceParameters(rbsp: Array(rbsp.prefix(length))) }
        var state: UInt64 = 0x9e37_79b9_7f4a_7c15
        for _ in 0..<20_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let count = Int(state >> 58)   // 0-63 bytes
            var bytes: [UInt8] = []
            for _ in 0..<count {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                bytes.append(UInt8(truncatingIfNeeded: state >> 33))
            }
            if let sps = H264SequenceParameters(rbsp: bytes) { #expect(sps.width > 0 && sps.height > 0) }
            _ = H264SequenceParameters.sequenceParameterSets(extradata: bytes)
            _ = H264SequenceParameters.sequenceParameterSets(extradata: [1] + bytes)
        }
        // Most flips land in fields any value of which is valid: the reader still reads those.
        #expect(parsed > rbsp.count * 4)
    }
}
