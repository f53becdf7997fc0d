import Foundation
import Testing
@testable import MediaExportCore

/// HDR kept or tone-mapped, deinterlacing, and the filter graph text: decided by the planner from hand-built probes.
@Suite struct PictureProcessingTests {
    static func hdr(_ transfer: String, mastering: MasteringDisplay? = nil, light: ContentLightLevel? = nil,
                    dv: DolbyVision? = nil, primaries: String? = "bt2020") -> SourceInfo {
        var v = SourceStream.h264(0, 1920, 1080, codec: "hevc", pixelFormat: "yuv420p10le")
        v.color = VideoColor(primaries: primaries, transfer: transfer, matrix: "bt2020nc", range: "tv", bitDepth: 10,
                             fieldOrder: .progressive, mastering: mastering, contentLight: light, dolbyVision: dv)
        return .make([v, .aac(1)])
    }

    static func interlaced(_ order: FieldOrder?) -> SourceInfo {
        var v = SourceStream.h264(0, 1920, 1080, codec: "mpeg2video")
        v.color = VideoColor(bitDepth: 8, fieldOrder: order)
        return .make([v, .aac(1)])
    }

    static func videoPlan(_ source: SourceInfo, preset: String, settings: ((inout VideoSettings) -> Void)? = nil) throws -> (VideoPlan, ExportPlan) {
        var p = Presets.named(preset)
        if let settings, var v = p.video { settings(&v); p.video = v }
        let plan = try ExportPlanner.plan(source: source, preset: p, route: .transcode, container: .mp4, edits: nil, range: nil)
        guard case .transcodeVideo(let v) = plan.streams[0].action else {
            Issue.record("video not transcoded: \(plan.streams[0].action)")
            throw CancellationError()
        }
        return (v, plan)
    }

    @Test func hlgThroughAnH264PresetIsToneMappedToBT709() throws {
        let (v, plan) = try Self.videoPlan(Self.hdr("arib-std-b67"), preset: "1280x720")
        #expect(v.toneMap == ToneMapping(source: .hlg, curve: .hable, peak: 10))
        #expect(v.pixelFormat == "yuv420p")
        #expect(v.outputColor == VideoColor(primaries: "bt709", transfer: "bt709", matrix: "bt709", range: "tv"))
        #expect(plan.notes.contains("HDR (HLG) tone-mapped to SDR BT.709 (hable, peak 1000 nits)"))
        let graph = try #require(PictureProcessing.filterGraph(v, sourceWidth: 1920, sourceHeight: 1080, flaggedInterlaced: false))
        #expect(graph == "scale=1280:720:flags=bicubic,zscale=tin=arib-std-b67:pin=bt2020:min=bt2020nc:rin=tv:t=linear:npl=100,"
                + "format=gbrpf32le,zscale=p=bt709,tonemap=hable:desat=0:peak=10,zscale=t=bt709:m=bt709:r=tv,format=yuv420p,setsar=1")
    }

    @Test func pqPeakComesFromTheMetadataAndAbsurdValuesAreLeftOut() throws {
        let master = MasteringDisplay(red: [0.68, 0.32], green: [0.265, 0.69], blue: [0.15, 0.06], whitePoint: [0.3127, 0.329],
                                      minLuminance: 0.005, maxLuminance: 4000)
        var (v, _) = try Self.videoPlan(Self.hdr("smpte2084", mastering: master, light: ContentLightLevel(maxCLL: 1500, maxFALL: 300)), preset: "highest")
        #expect(v.toneMap?.peak == 15)  // MaxCLL first, as FFmpeg's tonemap
        (v, _) = try Self.videoPlan(Self.hdr("smpte2084", mastering: master, light: ContentLightLevel(maxCLL: 0, maxFALL: 0)), preset: "highest")
        #expect(v.toneMap?.peak == 40)  // MaxCLL 0 is no value: the mastering display's 4000 nits
        (v, _) = try Self.videoPlan(Self.hdr("smpte2084", light: ContentLightLevel(maxCLL: 65535, maxFALL: 0)), preset: "highest")
        #expect(v.toneMap?.peak == 100)  // clamped to PQ's 10 000 nits
        (v, _) = try Self.videoPlan(Self.hdr("smpte2084"), preset: "highest")
        #expect(v.toneMap?.peak == SignalPeak.fallback)
        #expect(SignalPeak.relative(maxCLL: 50, masteringMaxLuminance: .nan) == SignalPeak.fallback)
    }

    @Test func thePresetChoosesTheCurve() throws {
        let (v, plan) = try Self.videoPlan(Self.hdr("smpte2084"), preset: "1280x720") { $0.toneMap = .mobius }
        #expect(v.toneMap?.curve == .mobius)
        #expect(PictureProcessing.filterGraph(v, sourceWidth: 1920, sourceHeight: 1080, flaggedInterlaced: false)?.contains("tonemap=mobius:desat=0") == true)
        #expect(plan.notes.contains { $0.hasPrefix("HDR (PQ) tone-mapped to SDR BT.709 (mobius") })
    }

    @Test func hevcPresetsKeepHDRInTenBits() throws {
        let master = MasteringDisplay(red: [0.68, 0.32], green: [0.265, 0.69], blue: [0.15, 0.06], whitePoint: [0.3127, 0.329],
                                      minLuminance: 0.0001, maxLuminance: 1000)
        let (v, plan) = try Self.videoPlan(Self.hdr("smpte2084", mastering: master, light: ContentLightLevel(maxCLL: 1000, maxFALL: 400), primaries: nil),
                                           preset: "hevc-highest")
        #expect(v.toneMap == nil)
        #expect(v.pixelFormat == "yuv420p10le")
        #expect(v.outputColor?.transfer == "smpte2084")
        #expect(v.outputColor?.primaries == "bt2020")  // filled in: the source left it unsaid
        #expect(v.outputColor?.mastering == master)
        #expect(master.x265Value == "G(13250,34500)B(7500,3000)R(34000,16000)WP(15635,16450)L(10000000,1)")
        #expect(PictureProcessing.filterGraph(v, sourceWidth: 1920, sourceHeight: 1080, flaggedInterlaced: false) == nil)
        #expect(plan.notes.contains("HDR (PQ) kept: HEVC Main10, bt2020 primaries, HDR10 metadata carried"))
    }

    @Test func hevcWithTonemapGivesEightBitSDR() throws {
        let (v, _) = try Self.videoPlan(Self.hdr("arib-std-b67"), preset: "hevc-highest") { $0.hdr = .tonemap }
        #expect(v.pixelFormat == "yuv420p")
        #expect(v.toneMap?.source == .hlg)
    }

    @Test func tenBitSDRIsKeptTenBitByHEVCAndEightBitByH264() throws {
        var s = SourceStream.h264(0, 1920, 1080, codec: "hevc", pixelFormat: "yuv420p10le")
        s.color = VideoColor(primaries: "bt709", transfer: "bt709", matrix: "bt709", bitDepth: 10, fieldOrder: .progressive)
        let source = SourceInfo.make([s])
        #expect(try Self.videoPlan(source, preset: "hevc-highest").0.pixelFormat == "yuv420p10le")
        #expect(try Self.videoPlan(source, preset: "highest").0.pixelFormat == "yuv420p")
        #expect(try Self.videoPlan(source, preset: "highest").0.outputColor == nil)  // SDR: the source's tags are copied
    }

    @Test func dolbyVisionNotesSayWhatIsDelivered() throws {
        let (_, compatible) = try Self.videoPlan(Self.hdr("arib-std-b67", dv: DolbyVision(profile: 8, level: 6, compatibility: 4)), preset: "hevc-highest")
        #expect(compatible.notes.contains { $0.hasPrefix("Dolby Vision profile 8.4: its dynamic metadata (RPU) is dropped") })
        let (_, profile5) = try Self.videoPlan(Self.hdr("smpte2084", dv: DolbyVision(profile: 5, level: 6, compatibility: 0)), preset: "highest")
        #expect(profile5.notes.contains { $0.contains("profile 5 has no base layer") })
    }

    @Test func interlacedSourcesAreDeinterlacedByDefault() throws {
        let (v, plan) = try Self.videoPlan(Self.interlaced(.tt), preset: "1280x720")
        #expect(v.deinterlace == .fields(.tt))
        #expect(plan.notes.contains("interlaced (top field first): deinterlaced (bwdif)"))
        #expect(PictureProcessing.filterGraph(v, sourceWidth: 1920, sourceHeight: 1080, flaggedInterlaced: false)
                == "bwdif=mode=send_frame:parity=tff:deint=all,scale=1280:720:flags=bicubic,format=yuv420p,setsar=1")
        let (bff, _) = try Self.videoPlan(Self.interlaced(.bb), preset: "highest")
        #expect(PictureProcessing.filterGraph(bff, sourceWidth: 1920, sourceHeight: 1080, flaggedInterlaced: false)?.hasPrefix("bwdif=mode=send_frame:parity=bff") == true)
    }

    @Test func deinterlacingCanBeTurnedOffAndProgressiveNeedsNoGraph() throws {
        let (off, plan) = try Self.videoPlan(Self.interlaced(.tt), preset: "1280x720") { $0.deinterlace = false }
        #expect(off.deinterlace == .off)
        #expect(plan.notes.contains("interlaced source encoded as it is (video.deinterlace is false)"))
        let (progressive, _) = try Self.videoPlan(Self.interlaced(.progressive), preset: "1280x720")
        #expect(progressive.deinterlace == .off)
        #expect(PictureProcessing.filterGraph(progressive, sourceWidth: 1920, sourceHeight: 1080, flaggedInterlaced: true) == nil)
    }

    @Test func unknownFieldOrderIsDecidedByTheFirstFrame() throws {
        let (v, plan) = try Self.videoPlan(Self.interlaced(nil), preset: "1280x720")
        #expect(v.deinterlace == .flaggedFrames)
        #expect(!plan.notes.contains { $0.contains("deinterlaced") })
        #expect(PictureProcessing.filterGraph(v, sourceWidth: 1920, sourceHeight: 1080, flaggedInterlaced: false) == nil)
        #expect(PictureProcessing.filterGraph(v, sourceWidth: 1920, sourceHeight: 1080, flaggedInterlaced: true)?
                    .hasPrefix("bwdif=mode=send_frame:parity=auto:deint=interlaced,") == true)
    }

    @Test func aCropGoesIntoTheGraphAfterTheDeinterlacer() throws {
        var (v, _) = try Self.videoPlan(Self.interlaced(.tt), preset: "highest")
        v.crop = PixelRect(left: 100, top: 51, width: 800, height: 600)
        #expect(PictureProcessing.filterGraph(v, sourceWidth: 1920, sourceHeight: 1080, flaggedInterlaced: false)?
                    .hasPrefix("bwdif=mode=send_frame:parity=tff:deint=all,crop=800:600:100:51:exact=1,scale=") == true)
    }

    @Test func presetKeysDecodeWithDefaultsPerCodec() throws {
        let h264 = try JSONDecoder().decode(VideoSettings.self, from: Data(#"{"codec":"h264"}"#.utf8))
        #expect(h264.hdr == .tonemap && h264.toneMap == .hable && h264.deinterlace)
        let hevc = try JSONDecoder().decode(VideoSettings.self, from: Data(#"{"codec":"hevc"}"#.utf8))
        #expect(hevc.hdr == .keep)
        let chosen = try JSONDecoder().decode(VideoSettings.self, from: Data(#"{"codec":"hevc","hdr":"tonemap","toneMap":"reinhard","deinterlace":false}"#.utf8))
        #expect(chosen.hdr == .tonemap && chosen.toneMap == .reinhard && !chosen.deinterlace)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(VideoSettings.self, from: Data(#"{"codec":"h264","toneMap":"aces"}"#.utf8)) }
    }

    @Test func theHDRKindComesFromTheTransferAndDolbyVision() {
        let c = VideoColor(primaries: "bt2020", transfer: "smpte2084", matrix: "bt2020nc", range: "tv", bitDepth: 10, fieldOrder: .progressive,
                           contentLight: ContentLightLevel(maxCLL: 1000, maxFALL: 400))
        #expect(c.hdrKind == .pq)
        #expect(VideoColor(transfer: "arib-std-b67", dolbyVision: DolbyVision(profile: 8, compatibility: 4)).hdrKind == .dolbyVision)
    }
}
