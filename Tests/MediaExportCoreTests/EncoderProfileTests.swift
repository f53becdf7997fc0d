import Foundation
import Testing
@testable import MediaExportCore

/// Each encoder's profile: the one description validation, the planner and the size estimates read.
@Suite struct EncoderProfileTests {
    static let all: [EncoderProfile] = VideoCodec.allCases.map(\.profile) + AudioCodec.allCases.map(\.profile)

    @Test func everyProfileNamesContainersThatExist() {
        for profile in Self.all {
            #expect(!profile.containers.isEmpty && profile.containers.allSatisfy { Container(rawValue: $0) != nil }, "\(profile.encoder)")
        }
        #expect(Self.all.map(\.encoder) == ["libx264", "libx265", "libsvtav1", "aac", "libopus"])
    }

    @Test func videoProfilesDescribeRateControlSpeedsAndFormats() {
        for codec in VideoCodec.allCases {
            let p = codec.profile
            #expect(p.speeds.contains(p.defaultSpeed) && p.crfRange.lowerBound == 0 && p.pixelFormats.contains("yuv420p"), "\(codec)")
            #expect(p.sampleFormat == nil && p.family != .audio)
            #expect(VideoSettings(codec: codec).encoderPreset == p.defaultSpeed)
        }
        #expect(VideoCodec.av1.profile.minimumSide == 64 && !VideoCodec.av1.profile.twoPass)
        #expect(VideoCodec.h264.profile.hdr == nil && VideoCodec.hevc.profile.quickTimeTag == "hvc1")
        #expect(AudioCodec.aac.profile.sampleFormat == "fltp" && AudioCodec.opus.profile.sampleFormat == "flt")
    }

    @Test func guessesReadTheCRFOnX264sScale() {
        // 0.1 bits a pixel at x264's CRF 23; AV1's CRF 35 is x264's 23, at half the bits.
        #expect(VideoCodec.h264.profile.guessedBitsPerPixel(crf: 23) == 0.1)
        #expect(VideoCodec.av1.profile.guessedBitsPerPixel(crf: 35) == 0.05)
        #expect(abs(VideoCodec.hevc.profile.guessedBitsPerPixel(crf: 17) - 0.12) < 1e-12)
        // About 0.25 bits a pixel at x264's CRF 18, with half as much again as a margin.
        #expect(VideoCodec.h264.profile.bitRateCeiling(crf: 18, width: 100, height: 100, frameRate: 10) == 0.25 * 100 * 100 * 10 * 1.5)
        #expect(VideoCodec.av1.profile.bitRateCeiling(crf: 36, width: 2, height: 2, frameRate: 1) == 0.25 * 0.5 * 4 * 1.5)
    }
}
